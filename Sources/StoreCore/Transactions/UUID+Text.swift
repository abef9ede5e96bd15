import Foundation

extension UUID {
    /// The canonical text form, 8-4-4-4-12 hex digits in either case, as `UUID(uuidString:)` reads it:
    /// by hand, since Foundation's goes through `sscanf`, a tenth of decoding a signed transaction.
    public init?(text: String) {
        var text = text
        guard let bytes = text.withUTF8({ Self.bytes(of: $0) }) else { return nil }
        self.init(uuid: bytes)
    }

    private static func bytes(of utf8: UnsafeBufferPointer<UInt8>) -> uuid_t? {
        guard utf8.count == 36 else { return nil }
        var bytes = [UInt8](repeating: 0, count: 16)
        var (index, count) = (0, 0)
        while index < 36 {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard utf8[index] == UInt8(ascii: "-") else { return nil }
                index += 1
                continue
            }
            guard let high = hexDigit(utf8[index]), let low = hexDigit(utf8[index + 1]) else { return nil }
            bytes[count] = high << 4 | low
            (index, count) = (index + 2, count + 1)
        }
        return (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15])
    }

    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
