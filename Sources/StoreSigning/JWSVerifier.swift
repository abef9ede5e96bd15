import CLibCrypto
import Foundation

/// The instant at which certificates must be valid.
public enum VerificationTime: Sendable, Equatable {
    case now
    case date(Date)
    /// The payload's `signedDate` (ms since 1970, possibly fractional); now when absent.
    /// This is how stored App Store payloads are checked after their leaf has expired.
    case signedDate
}

/// Why a token did not verify; the kinds mirror StoreKit's `VerificationResult.VerificationError`.
public struct JWSVerificationError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Not three base64url parts, or the header or payload is not a JSON object.
        case invalidEncoding
        /// `alg` is not ES256, the signature is not 64 bytes, or it does not match the leaf key.
        case invalidSignature
        /// `x5c` is missing or unreadable, or the chain does not lead to a trusted root at the time.
        case invalidCertificateChain
        /// Kept for parity with StoreKit; revocation is not checked.
        case revokedCertificate
        /// The header has no `alg`.
        case missingRequiredProperties
    }
    public let kind: Kind
    public let message: String
    public var description: String { "\(kind): \(message)" }
}

/// What `JWSVerifier.verify` found out about a token.
public struct JWSVerification: Sendable {
    /// The decoded header and payload bytes, when those parts were valid base64url.
    public let header: Data?
    public let payload: Data?
    /// nil when the token verified.
    public let error: JWSVerificationError?
    public var isVerified: Bool { error == nil }
}

/// Verifies compact ES256 JWS tokens whose `x5c` chain leads to one of the configured roots.
public struct JWSVerifier: Sendable {
    private let store: StoreHandle
    private let strict: Bool
    private let markers: CertificateMarkers?
    private let chainLength: Int?
    private let cache = ChainCache()

    /// A base64url header longer than this is refused before it is decoded: the App Store's, with
    /// three certificates in `x5c`, is about 4 KB, and a chain of thousands would take seconds to parse.
    public static let maximumHeaderLength = 16_384

    /// Only `trustedRoots` are anchors; a token's own last `x5c` certificate is never trusted.
    /// `strict` adds OpenSSL's X509_STRICT checks, which Apple's test certificates fail.
    /// `markers` requires extensions on the leaf and intermediate (Apple's App Store OIDs).
    /// `chainLength` requires exactly that many certificates in `x5c`.
    public init(trustedRoots: [Certificate], strict: Bool = false, markers: CertificateMarkers? = nil, chainLength: Int? = nil) {
        store = StoreHandle(roots: trustedRoots)
        self.strict = strict
        self.markers = markers
        self.chainLength = chainLength
    }

    /// The checks of Apple's App Store Server Library (`SignedDataVerifier`) in its default offline mode:
    /// exactly three certificates, X509_STRICT, and the App Store's marker OIDs whatever the root.
    public static func appStore(trustedRoots: [Certificate]) -> JWSVerifier {
        JWSVerifier(trustedRoots: trustedRoots, strict: true, markers: .appleAppStore, chainLength: 3)
    }

    public func verify(_ token: String, at time: VerificationTime) -> JWSVerification {
        var token = token
        return token.withUTF8 { verify(bytes: $0, at: time) }
    }

    private struct Header: Decodable {
        var alg: String?
        var x5c: [String]?
        // Wrong types read as absent, so they get the error that matches the field, not invalidEncoding.
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            alg = try? container.decodeIfPresent(String.self, forKey: .alg)
            x5c = try? container.decodeIfPresent([String].self, forKey: .x5c)
        }
        enum CodingKeys: CodingKey { case alg, x5c }
    }

    private func verify(bytes: UnsafeBufferPointer<UInt8>, at time: VerificationTime) -> JWSVerification {
        func failure(_ kind: JWSVerificationError.Kind, _ message: String, _ header: Data? = nil, _ payload: Data? = nil) -> JWSVerification {
            JWSVerification(header: header, payload: payload, error: JWSVerificationError(kind: kind, message: message))
        }
        // The header's size is checked before anything else reads the token.
        let headerEnd = Self.dot(in: bytes, from: 0, to: min(bytes.count, Self.maximumHeaderLength + 1))
        guard (headerEnd ?? bytes.count) <= Self.maximumHeaderLength else {
            return failure(.invalidCertificateChain, "the header is more than the \(Self.maximumHeaderLength) bytes an App Store chain of three certificates needs")
        }
        guard let headerEnd, let payloadEnd = Self.dot(in: bytes, from: headerEnd + 1, to: bytes.count),
              Self.dot(in: bytes, from: payloadEnd + 1, to: bytes.count) == nil
        else { return failure(.invalidEncoding, "a compact JWS has exactly three dot-separated parts") }
        func part(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: bytes[range]) }
        let cached = cache.entry(header: part(0..<headerEnd))

        guard let header = cached?.header ?? Base64URL.decode(part(0..<headerEnd)).map({ Data($0) }) else {
            return failure(.invalidEncoding, "header is not base64url")
        }
        guard let payloadBytes = Base64URL.decode(part(headerEnd + 1..<payloadEnd)) else {
            return failure(.invalidEncoding, "payload is not base64url", header)
        }
        let payload = Data(payloadBytes)
        guard let signature = Base64URL.decode(part(payloadEnd + 1..<bytes.count)) else {
            return failure(.invalidEncoding, "signature is not base64url", header, payload)
        }
        guard let scan = payloadBytes.withUnsafeBufferPointer({ JSONObjectScanner.scan($0) }) else {
            return failure(.invalidEncoding, "payload is not a JSON object", header, payload)
        }
        // A signedDate beyond any representable time (1e300) is malformed, not a reason to trap.
        let signedSeconds = scan.signedDate.map { Int(exactly: ($0 / 1000).rounded(.down)) }
        if case .signedDate = time, case .some(.none) = signedSeconds {
            return failure(.invalidEncoding, "signedDate is out of range", header, payload)
        }
        let seconds: Int? = switch time {
        case .now: nil
        case .date(let date): Int(exactly: date.timeIntervalSince1970.rounded(.down))
        case .signedDate: signedSeconds ?? nil
        }
        let instant = seconds ?? Int(Date().timeIntervalSince1970)

        // The cache holds only headers whose alg was ES256 and whose chain validated; it is reused only
        // while `instant` lies inside every chain certificate's validity. The signature is always checked.
        let leafKey: PKeyHandle
        var signingInput: DigestState?
        if let cached, cached.validity.contains(instant) {
            leafKey = cached.leafKey
            signingInput = cached.signingInput
        } else {
            // The scanner first, so header and payload follow the same JSON grammar (Foundation's
            // parser tolerates trailing commas).
            guard header.withUnsafeBytes({ JSONObjectScanner.scan($0.bindMemory(to: UInt8.self)) }) != nil,
                  let fields = try? JSONDecoder().decode(Header.self, from: header) else {
                return failure(.invalidEncoding, "header is not a JSON object", header, payload)
            }
            guard let alg = fields.alg else { return failure(.missingRequiredProperties, "header has no alg", header, payload) }
            guard alg == "ES256" else { return failure(.invalidSignature, "alg \(alg) is not ES256", header, payload) }
            guard let x5c = fields.x5c, !x5c.isEmpty else {
                return failure(.invalidCertificateChain, "header has no x5c certificate chain", header, payload)
            }
            if let chainLength, x5c.count != chainLength {
                return failure(.invalidCertificateChain, "x5c holds \(x5c.count) certificate\(x5c.count == 1 ? "" : "s"); the App Store's chain has exactly \(chainLength) (leaf, intermediate, root)", header, payload)
            }
            // At `instant`, not OpenSSL's own now: time(2) reads a clock that lags Date's by a few
            // milliseconds after each second begins, so a certificate made then read as not yet valid.
            switch validateChain(x5c, at: instant) {
            case .success(let entry):
                leafKey = entry.leafKey
                let key = Array(part(0..<headerEnd))
                cache.insert(ChainCache.Entry(key: key, header: header, leafKey: entry.leafKey, validity: entry.validity,
                                              signingInput: try? DigestState(prefix: key + [UInt8(ascii: ".")])))
            case .failure(let error):
                return failure(error.kind, error.message, header, payload)
            }
        }

        guard signature.count == 64 else {
            return failure(.invalidSignature, "an ES256 signature is 64 bytes, not \(signature.count)", header, payload)
        }
        // With a cached chain the header's part of the digest is done already: it is four fifths of the input.
        let digest = (try? signingInput?.digest(appending: UnsafeRawBufferPointer(part(headerEnd + 1..<payloadEnd))))
            ?? ECDSA.sha256(UnsafeRawBufferPointer(part(0..<payloadEnd)))
        guard let der = ECDSA.derSignature(fromRaw: signature),
              ECDSA.verifyDigest(digest, derSignature: der, key: leafKey)
        else { return failure(.invalidSignature, "signature does not match the leaf certificate's key", header, payload) }
        return JWSVerification(header: header, payload: payload, error: nil)
    }

    /// The first "." in `bytes[start..<end]` (memchr: a token is 4 KB, mostly its header).
    private static func dot(in bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Int? {
        guard start < end, let base = bytes.baseAddress, let found = memchr(base + start, Int32(UInt8(ascii: ".")), end - start) else { return nil }
        return UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
    }

    /// Validates `x5c` against the roots at `seconds` (nil: now); returns the leaf key and the
    /// seconds range in which the whole built chain stays valid.
    private func validateChain(_ x5c: [String], at seconds: Int?) -> Result<(leafKey: PKeyHandle, validity: Range<Int>), JWSVerificationError> {
        func chainError(_ message: String) -> JWSVerificationError { .init(kind: .invalidCertificateChain, message: message) }
        var certificates: [Certificate] = []
        for (index, base64) in x5c.enumerated() {
            guard let der = Data(base64Encoded: base64), let certificate = try? Certificate(der: der) else {
                ERR_clear_error()
                return .failure(chainError("x5c[\(index)] is not a base64 DER certificate"))
            }
            certificates.append(certificate)
        }
        let validity: Range<Int>
        switch store.validate(certificates, at: seconds, strict: strict, markers: markers) {
        case .success(let range): validity = range
        case .failure(let error): return .failure(chainError(error.message))
        }
        guard let leafKey = certificates[0].publicKey?.handle else {
            return .failure(.init(kind: .invalidSignature, message: "leaf certificate key is not P-256"))
        }
        return .success((leafKey, validity))
    }
}

/// Extensions a chain's leaf and intermediate must carry, as Apple's App Store certificates do.
public struct CertificateMarkers: Sendable, Equatable {
    public var leafOID: String
    public var intermediateOID: String

    public init(leafOID: String, intermediateOID: String) {
        self.leafOID = leafOID
        self.intermediateOID = intermediateOID
    }

    /// The App Store's receipt-signing leaf and WWDR intermediate markers.
    public static let appleAppStore = CertificateMarkers(leafOID: "1.2.840.113635.100.6.11.1", intermediateOID: "1.2.840.113635.100.6.2.1")

    /// Checks the chain OpenSSL built (leaf first, ending at the trusted root), as Apple's verifier does.
    func problem(inBuilt chain: [OpaquePointer]) -> String? {
        if !Certificate.hasExtension(chain[0], oid: leafOID) { return "the leaf certificate lacks the App Store leaf marker \(leafOID)" }
        if chain.count < 2 || !Certificate.hasExtension(chain[1], oid: intermediateOID) {
            return "the intermediate certificate lacks the App Store intermediate marker \(intermediateOID)"
        }
        return nil
    }
}

/// Owns the `X509_STORE` of trusted roots.
/// Sendable because the store is filled in init and only read afterwards; OpenSSL locks its
/// internal lookups, and each validation uses its own `X509_STORE_CTX`.
private final class StoreHandle: @unchecked Sendable {
    let pointer: OpaquePointer?

    init(roots: [Certificate]) {
        pointer = X509_STORE_new()
        for root in roots { X509_STORE_add_cert(pointer, root.handle.pointer) }  // the store takes its own reference
        ERR_clear_error()  // adding the same root twice queues a harmless error
    }
    deinit { X509_STORE_free(pointer) }

    /// Validates `chain` (leaf first, the rest untrusted helpers) against the roots.
    /// Returns the seconds range in which every certificate of the built chain is valid.
    func validate(_ chain: [Certificate], at seconds: Int?, strict: Bool, markers: CertificateMarkers?) -> Result<Range<Int>, SigningError> {
        guard let pointer, let context = X509_STORE_CTX_new(), let untrusted = shim_sk_X509_new_null() else {
            return .failure(SigningError("out of memory"))
        }
        defer { X509_STORE_CTX_free(context); shim_sk_X509_free(untrusted) }
        return withExtendedLifetime(chain) {
            for certificate in chain.dropFirst() { _ = shim_sk_X509_push(untrusted, certificate.handle.pointer) }
            guard X509_STORE_CTX_init(context, pointer, chain[0].handle.pointer, untrusted) == 1 else {
                return .failure(SigningError.openSSL("X509_STORE_CTX_init"))
            }
            if strict { X509_STORE_CTX_set_flags(context, UInt(X509_V_FLAG_X509_STRICT)) }
            if let seconds { X509_STORE_CTX_set_time(context, 0, seconds) }
            guard X509_verify_cert(context) == 1 else {
                let code = X509_STORE_CTX_get_error(context)
                ERR_clear_error()
                let reason = X509_verify_cert_error_string(Int(code)).map { String(cString: $0) } ?? "error \(code)"
                let message = switch code {
                case X509_V_ERR_CERT_HAS_EXPIRED: "a certificate had expired at the verification time (\(reason))"
                case X509_V_ERR_CERT_NOT_YET_VALID: "a certificate was not yet valid at the verification time (\(reason))"
                case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT,
                     X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
                    "certificate chain does not lead to a trusted root (\(reason))"
                default: "certificate chain is invalid (\(reason))"
                }
                // Say when only the strict checks failed: the chain is sound but not shaped as Apple's verifier demands.
                if strict, case .success = validate(chain, at: seconds, strict: false, markers: nil) {
                    return .failure(SigningError("the chain fails OpenSSL's X509_STRICT checks, which Apple's verifier applies (\(reason))"))
                }
                return .failure(SigningError(message))
            }
            // The built chain ends at the trusted root, which may differ from the token's last x5c entry.
            var built: [OpaquePointer] = []
            if let stack = X509_STORE_CTX_get0_chain(context) {
                built = (0..<OPENSSL_sk_num(stack)).compactMap { OpaquePointer(OPENSSL_sk_value(stack, $0)) }
            }
            if let markers, let problem = markers.problem(inBuilt: built) { return .failure(SigningError(problem)) }
            var start = Int.min, end = Int.max
            for x509 in built {
                start = max(start, epochSeconds(X509_get0_notBefore(x509)) ?? .max)
                // OpenSSL treats a certificate as expired from its notAfter second on.
                end = min(end, epochSeconds(X509_get0_notAfter(x509)) ?? .min)
            }
            return .success(start < end ? start..<end : 0..<0)
        }
    }
}

/// Chains that validated, by the exact header bytes (which fix the exact x5c strings and alg).
/// Sendable because every access to `entries` and `last` holds `lock`.
private final class ChainCache: @unchecked Sendable {
    /// Bytes, not a String: String equality is Unicode canonical equivalence ("K" == "\u{212A}").
    struct Key: Hashable {
        let bytes: [UInt8]
        func hash(into hasher: inout Hasher) { bytes.withUnsafeBytes { hasher.combine(bytes: $0) } }
    }
    struct Entry {
        let key: [UInt8]
        let header: Data
        let leafKey: PKeyHandle
        let validity: Range<Int>
        /// SHA-256 having absorbed `key` and the dot after it.
        let signingInput: DigestState?
    }
    private let lock = NSLock()
    private var entries: [Key: Entry] = [:]
    /// The entry found last: a store signs with one chain at a time, so most lookups end here,
    /// at one memcmp instead of copying and hashing a 4 KB header.
    private var last: Entry?
    private let limit = 256

    func entry(header: UnsafeBufferPointer<UInt8>) -> Entry? {
        lock.withLock {
            if let last, last.key.count == header.count,
               last.key.withUnsafeBufferPointer({ header.isEmpty || memcmp($0.baseAddress!, header.baseAddress!, header.count) == 0 }) {
                return last
            }
            guard let found = entries[Key(bytes: Array(header))] else { return nil }
            last = found
            return found
        }
    }

    func insert(_ entry: Entry) {
        lock.withLock {
            if entries.count >= limit { entries.removeAll(keepingCapacity: true) }  // crude, but bounded
            entries[Key(bytes: entry.key)] = entry
            last = entry
        }
    }
}
