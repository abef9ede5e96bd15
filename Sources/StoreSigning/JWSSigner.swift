import Foundation

/// Makes compact ES256 JWS tokens the way the App Store does: `x5c` carries the chain in base64 DER.
public struct JWSSigner: Sendable {
    public let key: SigningKey
    public let chain: [Certificate]
    public let keyID: String?
    /// `base64url(header) + "."`, computed once: every token starts with it.
    private let signingPrefix: [UInt8]

    /// `chain` is leaf first; the leaf should hold `key`'s public key.
    public init(key: SigningKey, chain: [Certificate], keyID: String? = nil) throws {
        var header: [String: Any] = ["alg": "ES256", "x5c": chain.map { $0.der.base64EncodedString() }]
        if let keyID { header["kid"] = keyID }
        let json = try JSONSerialization.data(withJSONObject: header, options: [.sortedKeys, .withoutEscapingSlashes])
        var prefix: [UInt8] = []
        json.withUnsafeBytes { Base64URL.append(encoding: $0, to: &prefix) }
        prefix.append(UInt8(ascii: "."))
        self.key = key
        self.chain = chain
        self.keyID = keyID
        self.signingPrefix = prefix
    }

    /// `base64url(header).base64url(payload).base64url(r‖s)`.
    public func sign(payload: Data) throws -> String {
        var token = signingPrefix
        token.reserveCapacity(signingPrefix.count + (payload.count * 4 + 2) / 3 + 87)
        payload.withUnsafeBytes { Base64URL.append(encoding: $0, to: &token) }
        let digest = token.withUnsafeBytes { ECDSA.sha256($0) }
        guard let raw = ECDSA.rawSignature(fromDER: try ECDSA.signDigest(digest, key: key.handle)) else {
            throw SigningError("OpenSSL returned a malformed ECDSA signature")
        }
        token.append(UInt8(ascii: "."))
        raw.withUnsafeBytes { Base64URL.append(encoding: $0, to: &token) }
        return String(decoding: token, as: UTF8.self)
    }
}

/// Raw ECDSA P-256 over a 32-byte digest with no JWS around it: the benchmark's yardstick.
/// It goes through the same libcrypto calls as `JWSSigner` and `JWSVerifier`.
public struct RawECDSABaseline: Sendable {
    let key: PKeyHandle

    public init(key: SigningKey) { self.key = key.handle }

    /// Returns OpenSSL's DER signature.
    public func sign(digest: [UInt8]) throws -> [UInt8] { try ECDSA.signDigest(digest, key: key) }

    public func verify(derSignature: [UInt8], digest: [UInt8]) -> Bool {
        ECDSA.verifyDigest(digest, derSignature: derSignature, key: key)
    }
}
