/// The order ID on the customer's App Store receipt e-mail, which a backend looks up with the App
/// Store Server API. Every transaction has one, derived from its ID and reversible, so nothing new
/// is stored and ledgers made before order IDs have them too. Ten characters of an unambiguous
/// alphabet (no I, O, 0, 1), like Apple's; the ID is scrambled so consecutive purchases do not
/// get consecutive-looking orders.
public enum OrderID {
    static let alphabet = Array("ABCDEFGHJKLMNPQRSTUVWXYZ23456789".utf8)
    static let bits: UInt64 = 50
    static let mask: UInt64 = (1 << bits) - 1
    /// Odd, so multiplying by it is a bijection on 50-bit numbers.
    static let scramble: UInt64 = 0x2_9E37_79B9_7F4B
    static let unscramble: UInt64 = {
        // Newton's iteration for the inverse of an odd number modulo 2^64 (then masked to 50 bits).
        var inverse = scramble
        for _ in 0..<6 { inverse = inverse &* (2 &- scramble &* inverse) }
        return inverse
    }()

    public static func of(transactionID: Int64) -> String {
        var value = (UInt64(bitPattern: transactionID) &* scramble) & mask
        var characters = [UInt8](repeating: 0, count: 10)
        for index in (0..<10).reversed() {
            characters[index] = alphabet[Int(value & 31)]
            value >>= 5
        }
        return String(decoding: characters, as: UTF8.self)
    }

    /// The transaction ID an order ID names; nil when it is not one Storefront could have made.
    public static func transactionID(of orderID: String) -> Int64? {
        let characters = Array(orderID.uppercased().utf8)
        guard characters.count == 10 else { return nil }
        var value: UInt64 = 0
        for character in characters {
            guard let digit = alphabet.firstIndex(of: character) else { return nil }
            value = value << 5 | UInt64(digit)
        }
        let id = (value &* unscramble) & mask
        return id <= UInt64(Int64.max) ? Int64(id) : nil
    }
}
