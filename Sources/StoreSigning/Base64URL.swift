import Foundation

/// Base64url without padding (RFC 7515 §2), as compact JWS uses it.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// 0...63 for alphabet bytes, 0xFF for everything else.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }()

    public static func encode(_ data: some DataProtocol) -> String {
        var out: [UInt8] = []
        let bytes = Array(data)
        bytes.withUnsafeBytes { append(encoding: $0, to: &out) }
        return String(decoding: out, as: UTF8.self)
    }

    /// Strict: returns nil for any byte outside the alphabet (including `=` padding and whitespace),
    /// for an impossible length, and for non-zero leftover bits (a non-canonical encoding).
    public static func decode(_ string: String) -> Data? {
        var string = string
        return string.withUTF8 { decode($0) }.map { Data($0) }
    }

    /// Appends the encoding of `input` to `out`. Writes into reserved memory directly: per-byte
    /// `append` costs several times more, and signing spends most of its non-ECDSA time here.
    static func append(encoding input: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        let full = input.count / 3, rest = input.count % 3
        let added = full * 4 + (rest == 0 ? 0 : rest + 1)
        let encoded = [UInt8](unsafeUninitializedCapacity: added) { buffer, count in
            alphabet.withUnsafeBufferPointer { table in
                var o = 0
                func put(_ chunk: UInt32, _ characters: Int) {  // the top `characters` sextets of 24 bits
                    var shift: UInt32 = 18
                    for _ in 0..<characters {
                        buffer[o] = table[Int(chunk >> shift & 63)]
                        o += 1
                        shift &-= 6
                    }
                }
                for group in 0..<full {
                    let i = group * 3
                    put(UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2]), 4)
                }
                let i = full * 3
                if rest == 1 { put(UInt32(input[i]) << 16, 2) }
                if rest == 2 { put(UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8, 3) }
            }
            count = added
        }
        out.append(contentsOf: encoded)
    }

    static func decode(_ input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        let full = input.count / 4, rest = input.count % 4
        guard rest != 1 else { return nil }
        let outputCount = full * 3 + (rest == 0 ? 0 : rest - 1)
        var valid = true
        let output = [UInt8](unsafeUninitializedCapacity: outputCount) { buffer, count in
            values.withUnsafeBufferPointer { table in
                // Sextets of the 4 characters from `i`, or nil if any is outside the alphabet
                // (the table maps those to 0xFF, so or-ing them sets bits above 63).
                func quad(_ i: Int, _ characters: Int) -> UInt32? {
                    var chunk: UInt32 = 0, seen: UInt8 = 0
                    for k in 0..<4 {
                        let value = k < characters ? table[Int(input[i + k])] : 0
                        seen |= value
                        chunk = chunk << 6 | UInt32(value)
                    }
                    return seen < 64 ? chunk : nil
                }
                var o = 0
                for group in 0..<full {
                    guard let chunk = quad(group * 4, 4) else { valid = false; break }
                    buffer[o] = UInt8(truncatingIfNeeded: chunk >> 16)
                    buffer[o + 1] = UInt8(truncatingIfNeeded: chunk >> 8)
                    buffer[o + 2] = UInt8(truncatingIfNeeded: chunk)
                    o += 3
                }
                if valid && rest > 0 {
                    // Leftover bits must be zero, so each byte string has exactly one encoding.
                    if let chunk = quad(full * 4, rest), chunk & (rest == 2 ? 0xFFFF : 0xFF) == 0 {
                        buffer[o] = UInt8(truncatingIfNeeded: chunk >> 16)
                        if rest == 3 { buffer[o + 1] = UInt8(truncatingIfNeeded: chunk >> 8) }
                    } else {
                        valid = false
                    }
                }
                count = valid ? outputCount : 0
            }
        }
        return valid ? output : nil
    }
}
