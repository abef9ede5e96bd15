import CLibCrypto
import Foundation

/// Makes compact ES256 JWS tokens the way the App Store does: `x5c` carries the chain in base64 DER.
public struct JWSSigner: Sendable {
    public let key: SigningKey
    public let chain: [Certificate]
    public let keyID: String?
    /// `base64url(header) + "."`, computed once: every token starts with it.
    private let signingPrefix: [UInt8]
    /// SHA-256 state after the prefix, so each token hashes only its own payload.
    private let prefixDigest: DigestState

    /// `chain` is leaf first and must not be empty; its leaf must hold `key`'s public key, or every
    /// token would fail verification.
    /// `header`: members added to the JWS header (strings), beside `alg`, `x5c` and `kid`.
    public init(key: SigningKey, chain: [Certificate], keyID: String? = nil, header extra: [String: String] = [:]) throws {
        guard let leaf = chain.first else { throw SigningError("the x5c chain needs at least the leaf certificate") }
        guard leaf.publicKey?.derRepresentation == key.publicKey.derRepresentation else {
            throw SigningError("the leaf certificate does not hold the signing key's public key")
        }
        var header: [String: Any] = ["alg": "ES256", "x5c": chain.map { $0.der.base64EncodedString() }]
        if let keyID { header["kid"] = keyID }
        header.merge(extra) { kept, _ in kept }
        let json = try JSONSerialization.data(withJSONObject: header, options: [.sortedKeys, .withoutEscapingSlashes])
        var prefix: [UInt8] = []
        json.withUnsafeBytes { Base64URL.append(encoding: $0, to: &prefix) }
        prefix.append(UInt8(ascii: "."))
        self.key = key
        self.chain = chain
        self.keyID = keyID
        self.signingPrefix = prefix
        self.prefixDigest = try DigestState(prefix: prefix)
    }

    /// `base64url(header) + "."`: the start of every token this signer makes.
    public var tokenPrefix: String { String(decoding: signingPrefix, as: UTF8.self) }

    /// `base64url(header).base64url(payload).base64url(r‖s)`.
    public func sign(payload: Data) throws -> String {
        var token = signingPrefix
        token.reserveCapacity(signingPrefix.count + (payload.count * 4 + 2) / 3 + 87)
        payload.withUnsafeBytes { Base64URL.append(encoding: $0, to: &token) }
        let digest = try token.withUnsafeBytes { try prefixDigest.digest(appending: UnsafeRawBufferPointer(rebasing: $0[signingPrefix.count...])) }
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

/// A SHA-256 state that has absorbed a fixed prefix.
/// Sendable because the context is never updated after init: each digest works on a copy
/// (`EVP_MD_CTX_copy_ex` only reads its source).
final class DigestState: @unchecked Sendable {
    private let context: OpaquePointer

    init(prefix: [UInt8]) throws {
        guard let context = EVP_MD_CTX_new() else { throw SigningError.openSSL("EVP_MD_CTX_new") }
        self.context = context
        guard EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1, EVP_DigestUpdate(context, prefix, prefix.count) == 1 else {
            throw SigningError.openSSL("SHA-256 of the JWS header")
        }
    }
    deinit { EVP_MD_CTX_free(context) }

    /// SHA-256 of prefix + `bytes`.
    func digest(appending bytes: UnsafeRawBufferPointer) throws -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        guard let copy = EVP_MD_CTX_new() else { throw SigningError.openSSL("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(copy) }
        guard EVP_MD_CTX_copy_ex(copy, context) == 1, EVP_DigestUpdate(copy, bytes.baseAddress, bytes.count) == 1,
              EVP_DigestFinal_ex(copy, &digest, nil) == 1
        else { throw SigningError.openSSL("SHA-256 of the JWS payload") }
        return digest
    }
}
