import CLibCrypto
import Foundation

/// An X.509 certificate.
public struct Certificate: Sendable, Hashable {
    let handle: X509Handle
    /// The DER encoding, exactly as read or created.
    public let der: Data

    /// Reads one DER certificate; trailing bytes are refused.
    public init(der: Data) throws {
        let parsed = der.withUnsafeBytes { buffer -> (OpaquePointer?, Int) in
            guard let base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return (nil, 0) }
            var cursor: UnsafePointer<UInt8>? = UnsafePointer(base)
            let x509 = d2i_X509(nil, &cursor, buffer.count)
            return (x509, cursor.map { $0 - UnsafePointer(base) } ?? 0)
        }
        guard let x509 = parsed.0 else { throw SigningError.openSSL("not a DER X.509 certificate") }
        let handle = X509Handle(x509)
        guard parsed.1 == der.count else { throw SigningError("trailing bytes after the DER certificate") }
        self.handle = handle
        self.der = der
    }

    /// Reads the first `BEGIN CERTIFICATE` block; text before it (such as an `openssl x509 -text` dump) is skipped.
    public init(pem: String) throws {
        let x509 = readFromMemoryBIO(pem) { PEM_read_bio_X509($0, nil, nil, nil) }
        guard let x509 else { throw SigningError.openSSL("no readable certificate in PEM") }
        let handle = X509Handle(x509)
        var out: UnsafeMutablePointer<UInt8>?
        let length = i2d_X509(x509, &out)
        guard length > 0, let out else { throw SigningError.openSSL("i2d_X509") }
        defer { shim_OPENSSL_free(out) }
        self.handle = handle
        self.der = Data(bytes: out, count: Int(length))
    }

    public var pemRepresentation: String {
        let body = der.base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN CERTIFICATE-----\n\(body)\n-----END CERTIFICATE-----\n"
    }

    /// The first CN of the subject, if any.
    public var subjectCommonName: String? {
        guard let name = X509_get_subject_name(handle.pointer) else { return nil }
        let index = X509_NAME_get_index_by_NID(name, NID_commonName, -1)
        guard index >= 0, let entry = X509_NAME_get_entry(name, index) else { return nil }
        var utf8: UnsafeMutablePointer<UInt8>?
        let length = ASN1_STRING_to_UTF8(&utf8, X509_NAME_ENTRY_get_data(entry))
        guard length >= 0, let utf8 else { return nil }
        defer { shim_OPENSSL_free(utf8) }
        return String(decoding: UnsafeBufferPointer(start: utf8, count: Int(length)), as: UTF8.self)
    }

    public var notBefore: Date { Date(timeIntervalSince1970: TimeInterval(notBeforeSeconds)) }
    public var notAfter: Date { Date(timeIntervalSince1970: TimeInterval(notAfterSeconds)) }
    var notBeforeSeconds: Int { epochSeconds(X509_get0_notBefore(handle.pointer)) ?? .max }
    var notAfterSeconds: Int { epochSeconds(X509_get0_notAfter(handle.pointer)) ?? .min }

    public var publicKey: PublicKey? {
        guard let key = X509_get0_pubkey(handle.pointer), EVP_PKEY_up_ref(key) == 1 else { return nil }
        let handle = PKeyHandle(key)
        return handle.isP256 ? PublicKey(handle: handle) : nil
    }

    /// Whether the certificate carries an extension with this dotted OID.
    public func hasExtension(oid: String) -> Bool { Self.hasExtension(handle.pointer, oid: oid) }

    static func hasExtension(_ x509: OpaquePointer, oid: String) -> Bool {
        guard let object = OBJ_txt2obj(oid, 1) else { ERR_clear_error(); return false }
        defer { ASN1_OBJECT_free(object) }
        return X509_get_ext_by_OBJ(x509, object, -1) >= 0
    }

    public static func == (lhs: Certificate, rhs: Certificate) -> Bool { lhs.der == rhs.der }
    public func hash(into hasher: inout Hasher) { hasher.combine(der) }

    /// A self-signed P-256 / ecdsa-with-SHA256 CA certificate, like Xcode's "StoreKit Testing in Xcode"
    /// certificate: it can sign tokens and also be the trusted root that verifies them.
    /// It carries critical basicConstraints CA:TRUE, keyUsage, and subject/authority key IDs, so it
    /// also passes X509_STRICT.
    public static func selfSigned(
        key: SigningKey,
        commonName: String,
        organization: String? = nil,
        notBefore: Date = Date(),
        validFor: TimeInterval = 365 * 24 * 3600
    ) throws -> Certificate {
        try issue(subject: Name(commonName: commonName, organization: organization), key: key.publicKey, role: .selfSignedSigner,
                  issuer: nil, signedBy: key, notBefore: notBefore, notAfter: notBefore.addingTimeInterval(validFor))
    }

    /// A subject or issuer name.
    public struct Name: Sendable, Equatable {
        public var commonName: String
        public var organization: String?
        public init(commonName: String, organization: String? = nil) {
            self.commonName = commonName
            self.organization = organization
        }
    }

    /// What a certificate is for. The first three have the extensions of the App Store's chain, so a
    /// chain of them passes Apple's `SignedDataVerifier` (X509_STRICT and the marker OIDs).
    public enum Role: Sendable {
        /// A trust anchor: CA, keyCertSign + cRLSign, subject key ID.
        case root
        /// A CA that may issue only leaves (path length 0), with Apple's intermediate marker OID.
        case intermediate(marker: String)
        /// A signer, not a CA: digitalSignature only, with Apple's leaf marker OID.
        case leaf(marker: String)
        /// A CA that also signs tokens itself (Xcode's single-certificate form).
        case selfSignedSigner

        var extensions: [(name: String, value: String)] {
            switch self {
            case .root:
                [("basicConstraints", "critical,CA:TRUE"), ("keyUsage", "critical,keyCertSign,cRLSign"),
                 ("subjectKeyIdentifier", "hash")]
            case .intermediate(let marker):
                [("basicConstraints", "critical,CA:TRUE,pathlen:0"), ("keyUsage", "critical,keyCertSign,cRLSign"),
                 ("subjectKeyIdentifier", "hash"), ("authorityKeyIdentifier", "keyid:always"), (marker, "ASN1:NULL")]
            case .leaf(let marker):
                [("basicConstraints", "critical,CA:FALSE"), ("keyUsage", "critical,digitalSignature"),
                 ("subjectKeyIdentifier", "hash"), ("authorityKeyIdentifier", "keyid:always"), (marker, "ASN1:NULL")]
            case .selfSignedSigner:
                [("basicConstraints", "critical,CA:TRUE"), ("keyUsage", "critical,digitalSignature,keyCertSign,cRLSign"),
                 ("subjectKeyIdentifier", "hash"), ("authorityKeyIdentifier", "keyid:always")]
            }
        }
    }

    /// Issues a v3 certificate for `key` (ecdsa-with-SHA256, a random 127-bit serial).
    /// `issuer` nil makes it self-signed, and `signedBy` must then be the subject's own key.
    public static func issue(subject: Name, key: PublicKey, role: Role, issuer: Certificate?, signedBy issuerKey: SigningKey,
                             notBefore: Date, notAfter: Date) throws -> Certificate {
        guard let x509 = X509_new() else { throw SigningError.openSSL("X509_new") }
        defer { X509_free(x509) }
        func check(_ ok: Bool, _ what: String) throws { if !ok { throw SigningError.openSSL(what) } }

        try check(X509_set_version(x509, 2) == 1, "X509_set_version")  // 2 means v3
        // A random positive 127-bit serial, as RFC 5280 suggests for uniqueness.
        guard let serial = BN_new() else { throw SigningError.openSSL("BN_new") }
        defer { BN_free(serial) }
        try check(BN_rand(serial, 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) == 1, "BN_rand")
        try check(BN_to_ASN1_INTEGER(serial, X509_get_serialNumber(x509)) != nil, "serial number")

        guard let name = X509_NAME_new() else { throw SigningError.openSSL("X509_NAME_new") }
        defer { X509_NAME_free(name) }
        try check(X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, subject.commonName, -1, -1, 0) == 1, "subject CN")
        if let organization = subject.organization {
            try check(X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8, organization, -1, -1, 0) == 1, "subject O")
        }
        try check(X509_set_subject_name(x509, name) == 1, "subject name")
        let issuerName = issuer.map { X509_get_subject_name($0.handle.pointer) } ?? name
        try check(X509_set_issuer_name(x509, issuerName) == 1, "issuer name")

        let start = Int(notBefore.timeIntervalSince1970.rounded(.down))
        let end = Int(notAfter.timeIntervalSince1970.rounded(.down))
        try check(ASN1_TIME_set(X509_getm_notBefore(x509), start) != nil, "notBefore")
        try check(ASN1_TIME_set(X509_getm_notAfter(x509), end) != nil, "notAfter")
        try check(X509_set_pubkey(x509, key.handle.pointer) == 1, "X509_set_pubkey")

        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuer?.handle.pointer ?? x509, x509, nil, nil, 0)
        // Order matters: a self-signed certificate's authority key ID is copied from its own subject key ID.
        for (extensionName, value) in role.extensions {
            guard let ext = X509V3_EXT_nconf(nil, &context, extensionName, value) else {
                throw SigningError.openSSL("extension \(extensionName)")
            }
            defer { X509_EXTENSION_free(ext) }
            try check(X509_add_ext(x509, ext, -1) == 1, "X509_add_ext")
        }
        try withExtendedLifetime(issuer) {
            try check(X509_sign(x509, issuerKey.handle.pointer, EVP_sha256()) > 0, "X509_sign")
        }

        var out: UnsafeMutablePointer<UInt8>?
        let length = i2d_X509(x509, &out)
        guard length > 0, let out else { throw SigningError.openSSL("i2d_X509") }
        defer { shim_OPENSSL_free(out) }
        return try Certificate(der: Data(bytes: out, count: Int(length)))
    }

    /// Every certificate in `pem`, in order (`BEGIN CERTIFICATE` blocks; other blocks are skipped).
    public static func all(pem: String) throws -> [Certificate] {
        var certificates: [Certificate] = []
        var rest = Substring(pem)
        while let begin = rest.range(of: "-----BEGIN CERTIFICATE-----") {
            guard let end = rest.range(of: "-----END CERTIFICATE-----", range: begin.upperBound..<rest.endIndex) else { break }
            certificates.append(try Certificate(pem: String(rest[begin.lowerBound..<end.upperBound])))
            rest = rest[end.upperBound...]
        }
        return certificates
    }

    /// Whether the certificate names itself as its issuer and its own key verifies its signature.
    public var isSelfSigned: Bool {
        guard let key = X509_get0_pubkey(handle.pointer) else { return false }
        let ok = X509_NAME_cmp(X509_get_subject_name(handle.pointer), X509_get_issuer_name(handle.pointer)) == 0
            && X509_verify(handle.pointer, key) == 1
        ERR_clear_error()
        return ok
    }

    /// SHA-256 of the DER public key, in hex: names a key without showing it.
    public var keyFingerprint: String {
        publicKey?.fingerprint.map { String(format: "%02x", $0) }.joined() ?? ""
    }
}
