import CLibCrypto
import Foundation

/// A failure to create, load or use a key or certificate.
public struct SigningError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
    init(_ message: String) { self.message = message }

    /// Adds OpenSSL's oldest queued reason, then clears the thread's queue so later calls start clean.
    static func openSSL(_ what: String) -> SigningError {
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0 else { return SigningError(what) }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return SigningError("\(what): \(cString(buffer))")
    }
}

/// Owns an `EVP_PKEY`.
/// Sendable because the key is never mutated after init and OpenSSL 3 allows concurrent
/// read-only use of a provider key; every operation creates its own `EVP_PKEY_CTX`.
final class PKeyHandle: @unchecked Sendable {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
    deinit { EVP_PKEY_free(pointer) }

    /// ES256 needs a P-256 key; anything else is refused on load.
    var isP256: Bool {
        guard EVP_PKEY_get_base_id(pointer) == EVP_PKEY_EC else { return false }
        var name = [CChar](repeating: 0, count: 32)
        var length = 0
        guard EVP_PKEY_get_group_name(pointer, &name, name.count, &length) == 1 else { return false }
        return cString(name) == "prime256v1"
    }
}

/// Owns an `X509`.
/// Sendable because the certificate is never modified after init; readers only call accessors.
final class X509Handle: @unchecked Sendable {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
    deinit { X509_free(pointer) }
}

/// The text of a NUL-terminated C buffer.
func cString(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// Runs `write` against a memory BIO and returns what it wrote.
func writeToMemoryBIO(_ what: String, _ write: (OpaquePointer) -> Int32) throws -> String {
    guard let bio = BIO_new(BIO_s_mem()) else { throw SigningError.openSSL(what) }
    defer { BIO_free(bio) }
    guard write(bio) == 1 else { throw SigningError.openSSL(what) }
    var bytes: UnsafeMutablePointer<CChar>?
    let count = shim_BIO_get_mem_data(bio, &bytes)
    guard let bytes, count > 0 else { throw SigningError.openSSL(what) }
    return String(decoding: UnsafeRawBufferPointer(start: bytes, count: count), as: UTF8.self)
}

/// Runs `read` against a read-only memory BIO over `text`.
func readFromMemoryBIO<T>(_ text: String, _ read: (OpaquePointer) -> T?) -> T? {
    let bytes = Array(text.utf8)
    return bytes.withUnsafeBytes { buffer -> T? in
        guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
        defer { BIO_free(bio) }
        return read(bio)
    }
}

/// Seconds since 1970 of an ASN.1 time (UTCTime or GeneralizedTime).
func epochSeconds(_ time: UnsafePointer<ASN1_TIME>?) -> Int? {
    guard let time else { return nil }
    var parts = tm()
    guard ASN1_TIME_to_tm(time, &parts) == 1 else { return nil }
    return Int(timegm(&parts))
}

/// The ECDSA primitives shared by the JWS code and the benchmark baseline, so both pay the same
/// per-call OpenSSL cost and the benchmark measures only what JWS adds.
enum ECDSA {
    static func sha256(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        _ = SHA256(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, &digest)
        return digest
    }

    /// Signs a digest; returns OpenSSL's DER `ECDSA-Sig-Value`.
    static func signDigest(_ digest: [UInt8], key: PKeyHandle) throws -> [UInt8] {
        guard let context = EVP_PKEY_CTX_new(key.pointer, nil) else { throw SigningError.openSSL("EVP_PKEY_CTX_new") }
        defer { EVP_PKEY_CTX_free(context) }
        var signature = [UInt8](repeating: 0, count: 80)  // P-256 DER signatures are at most 72 bytes
        var length = signature.count
        guard EVP_PKEY_sign_init(context) == 1,
              EVP_PKEY_sign(context, &signature, &length, digest, digest.count) == 1
        else { throw SigningError.openSSL("ECDSA sign") }
        signature.removeSubrange(length...)
        return signature
    }

    static func verifyDigest(_ digest: [UInt8], derSignature: [UInt8], key: PKeyHandle) -> Bool {
        guard let context = EVP_PKEY_CTX_new(key.pointer, nil) else { return false }
        defer { EVP_PKEY_CTX_free(context) }
        let ok = EVP_PKEY_verify_init(context) == 1
            && EVP_PKEY_verify(context, derSignature, derSignature.count, digest, digest.count) == 1
        if !ok { ERR_clear_error() }
        return ok
    }

    /// DER → raw r‖s (32 bytes each), the form JWS uses.
    static func rawSignature(fromDER der: [UInt8]) -> [UInt8]? {
        let signature = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let signature else { return nil }
        defer { ECDSA_SIG_free(signature) }
        var raw = [UInt8](repeating: 0, count: 64)
        let ok = raw.withUnsafeMutableBufferPointer { out in
            BN_bn2binpad(ECDSA_SIG_get0_r(signature), out.baseAddress, 32) == 32
                && BN_bn2binpad(ECDSA_SIG_get0_s(signature), out.baseAddress! + 32, 32) == 32
        }
        return ok ? raw : nil
    }

    /// Raw r‖s → DER, the form OpenSSL verifies: SEQUENCE { INTEGER r, INTEGER s }, each the shortest
    /// two's complement of its 32 bytes. Written by hand: through `ECDSA_SIG` and two `BIGNUM`s it was
    /// a twentieth of verifying a token.
    static func derSignature(fromRaw raw: [UInt8]) -> [UInt8]? {
        guard raw.count == 64 else { return nil }
        var der: [UInt8] = [0x30, 0]
        der.reserveCapacity(72)
        for half in [raw[0..<32], raw[32..<64]] {
            let magnitude = half.drop { $0 == 0 }
            let padded = (magnitude.first ?? 0x80) & 0x80 != 0  // a high bit, or zero itself, takes a 0x00
            der += [0x02, UInt8(magnitude.count + (padded ? 1 : 0))]
            if padded { der.append(0) }
            der += magnitude
        }
        der[1] = UInt8(der.count - 2)  // at most 70: a one-byte length
        return der
    }
}
