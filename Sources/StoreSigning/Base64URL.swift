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

    static func append(encoding input: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        out.reserveCapacity(out.count + (input.count * 4 + 2) / 3)
        alphabet.withUnsafeBufferPointer { table in
            var index = 0
            while index + 3 <= input.count {
                let chunk = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
                out.append(table[Int(chunk >> 18 & 63)])
                out.append(table[Int(chunk >> 12 & 63)])
                out.append(table[Int(chunk >> 6 & 63)])
                out.append(table[Int(chunk & 63)])
                index += 3
            }
            switch input.count - index {
            case 1:
                let chunk = UInt32(input[index]) << 16
                out.append(table[Int(chunk >> 18 & 63)])
                out.append(table[Int(chunk >> 12 & 63)])
            case 2:
                let chunk = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8
                out.append(table[Int(chunk >> 18 & 63)])
                out.append(table[Int(chunk >> 12 & 63)])
                out.append(table[Int(chunk >> 6 & 63)])
            default:
                break
            }
        }
    }

    static func decode(_ input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        let remainder = input.count % 4
        guard remainder != 1 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(input.count * 3 / 4)
        return values.withUnsafeBufferPointer { table -> [UInt8]? in
            var accumulator: UInt32 = 0
            var bits = 0
            for byte in input {
                let value = table[Int(byte)]
                guard value != 0xFF else { return nil }
                accumulator = accumulator << 6 | UInt32(value)
                bits += 6
                if bits >= 8 {
                    bits -= 8
                    out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                }
            }
            // Leftover bits must be zero, so each byte string has exactly one encoding.
            guard accumulator & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
            return out
        }
    }
}
