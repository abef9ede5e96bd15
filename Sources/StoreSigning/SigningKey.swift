import CLibCrypto
import Foundation

/// A P-256 private key for ES256.
public struct SigningKey: Sendable {
    let handle: PKeyHandle

    init(handle: PKeyHandle) throws {
        guard handle.isP256 else { throw SigningError("not a P-256 (prime256v1) EC key") }
        self.handle = handle
    }

    /// A fresh random key.
    public static func generate() throws -> SigningKey {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { throw SigningError.openSSL("EVP_PKEY_CTX_new_from_name") }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1,
              EVP_PKEY_CTX_set_group_name(context, "P-256") == 1,
              EVP_PKEY_generate(context, &key) == 1, let key
        else { throw SigningError.openSSL("P-256 key generation") }
        return try SigningKey(handle: PKeyHandle(key))
    }

    /// Reads the first private key in `pem`: PKCS#8 (`PRIVATE KEY`) or SEC1 (`EC PRIVATE KEY`).
    /// Encrypted keys are refused rather than prompting on the terminal.
    public init(pem: String) throws {
        let key = readFromMemoryBIO(pem) { bio in
            PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil)
        }
        guard let key else { throw SigningError.openSSL("no readable private key in PEM") }
        try self.init(handle: PKeyHandle(key))
    }

    /// PKCS#8 PEM, unencrypted.
    public var pemRepresentation: String {
        // Writing a valid in-memory key to a memory BIO only fails on allocation failure.
        try! writeToMemoryBIO("PEM_write_bio_PrivateKey") { PEM_write_bio_PrivateKey($0, handle.pointer, nil, nil, 0, nil, nil) }
    }

    /// Shares this key's handle; `PublicKey` only ever reads or exports the public half.
    public var publicKey: PublicKey { PublicKey(handle: handle) }

    /// ES256: SHA-256 then ECDSA P-256; returns the 64-byte raw r‖s that JWS uses.
    public func sign(_ data: Data) throws -> Data {
        let digest = data.withUnsafeBytes { ECDSA.sha256($0) }
        guard let raw = ECDSA.rawSignature(fromDER: try ECDSA.signDigest(digest, key: handle)) else {
            throw SigningError("OpenSSL returned a malformed ECDSA signature")
        }
        return Data(raw)
    }
}

/// A P-256 public key.
public struct PublicKey: Sendable {
    let handle: PKeyHandle

    /// Reads a DER SubjectPublicKeyInfo.
    public init(der: Data) throws {
        let key = der.withUnsafeBytes { buffer -> OpaquePointer? in
            var cursor = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) as UnsafePointer<UInt8>?
            return d2i_PUBKEY(nil, &cursor, buffer.count)
        }
        guard let key else { throw SigningError.openSSL("not a DER SubjectPublicKeyInfo") }
        let handle = PKeyHandle(key)
        guard handle.isP256 else { throw SigningError("not a P-256 (prime256v1) EC key") }
        self.handle = handle
    }

    init(handle: PKeyHandle) { self.handle = handle }

    /// DER SubjectPublicKeyInfo.
    public var derRepresentation: Data { (try? Data(Self.spki(of: handle))) ?? Data() }

    /// SHA-256 of the DER SubjectPublicKeyInfo: names a key without showing it.
    public var fingerprint: [UInt8] { derRepresentation.withUnsafeBytes { ECDSA.sha256($0) } }

    /// Checks a 64-byte raw r‖s ES256 signature over `data`.
    public func isValidSignature(_ signature: Data, for data: Data) -> Bool {
        guard signature.count == 64, let der = ECDSA.derSignature(fromRaw: Array(signature)) else { return false }
        let digest = data.withUnsafeBytes { ECDSA.sha256($0) }
        return ECDSA.verifyDigest(digest, derSignature: der, key: handle)
    }

    /// Checks a DER-encoded ECDSA signature over SHA-256 of `data` (the legacy promotional offer
    /// signature, which App Store Connect keys make with `SHA256withECDSA`).
    public func isValidDERSignature(_ signature: Data, for data: Data) -> Bool {
        let digest = data.withUnsafeBytes { ECDSA.sha256($0) }
        return ECDSA.verifyDigest(digest, derSignature: Array(signature), key: handle)
    }

    static func spki(of key: PKeyHandle) throws -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>?
        let length = i2d_PUBKEY(key.pointer, &out)
        guard length > 0, let out else { throw SigningError.openSSL("i2d_PUBKEY") }
        defer { shim_OPENSSL_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }
}
