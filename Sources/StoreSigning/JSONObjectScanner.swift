/// Checks that bytes hold exactly one JSON object (RFC 8259 grammar, UTF-8) and reads its top-level
/// `signedDate` number, without building any values.
/// Hand-written because Foundation's decoders took 6–12 µs on a 2 KB payload, the largest cost of
/// verifying a token after ECDSA itself; this takes about 1 µs.
struct JSONObjectScanner {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    /// The top-level `signedDate` when it is a number (its key written without escapes).
    private(set) var signedDate: Double?

    private init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// nil unless `bytes` hold exactly one JSON object.
    static func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> JSONObjectScanner? {
        var scanner = JSONObjectScanner(bytes)
        scanner.skipSpace()
        guard scanner.peek == UInt8(ascii: "{"), scanner.value(depth: 0) else { return nil }
        scanner.skipSpace()
        guard scanner.index == bytes.count else { return nil }
        // Bytes ≥ 0x80 can only sit inside strings; checking they form valid UTF-8 once is enough.
        if bytes.contains(where: { $0 >= 0x80 }), !String(decoding: bytes, as: UTF8.self).utf8.elementsEqual(bytes) {
            return nil
        }
        return scanner
    }

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func consume(_ byte: UInt8) -> Bool {
        guard peek == byte else { return false }
        index += 1
        return true
    }

    private mutating func skipSpace() {
        while let byte = peek, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    private mutating func value(depth: Int) -> Bool {
        // Bounded nesting, so hostile input cannot overflow the stack.
        guard depth < 64, let byte = peek else { return false }
        switch byte {
        case UInt8(ascii: "{"): return container(close: UInt8(ascii: "}"), depth: depth, keyed: true)
        case UInt8(ascii: "["): return container(close: UInt8(ascii: "]"), depth: depth, keyed: false)
        case UInt8(ascii: "\""): return string() != nil
        case UInt8(ascii: "t"): return literal("true")
        case UInt8(ascii: "f"): return literal("false")
        case UInt8(ascii: "n"): return literal("null")
        default: return number()
        }
    }

    private mutating func container(close: UInt8, depth: Int, keyed: Bool) -> Bool {
        index += 1
        skipSpace()
        if consume(close) { return true }
        repeat {
            skipSpace()
            var key: Range<Int>?
            if keyed {
                key = string()
                skipSpace()
                guard key != nil, consume(UInt8(ascii: ":")) else { return false }
                skipSpace()
            }
            let start = index
            guard value(depth: depth + 1) else { return false }
            if depth == 0, let key, bytes[key].elementsEqual("signedDate".utf8) {
                signedDate = Self.number(bytes[start..<index])
            }
            skipSpace()
        } while consume(UInt8(ascii: ","))
        return consume(close)
    }

    /// A number's value; milliseconds since 1970 (up to 15 digits, so exact) without going through text.
    private static func number(_ text: Slice<UnsafeBufferPointer<UInt8>>) -> Double? {
        guard text.count <= 15, !text.isEmpty, text.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            return Double(String(decoding: text, as: UTF8.self))
        }
        return Double(text.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) })
    }

    /// The range of the string's raw content, or nil if it is not a valid JSON string.
    private mutating func string() -> Range<Int>? {
        guard consume(UInt8(ascii: "\"")) else { return nil }
        let start = index
        while let byte = peek {
            index += 1
            switch byte {
            case UInt8(ascii: "\""): return start..<index - 1
            case UInt8(ascii: "\\"):
                guard let escaped = peek else { return nil }
                index += 1
                if escaped == UInt8(ascii: "u") {
                    for _ in 0..<4 {
                        guard let hex = peek, hex.isHexDigit else { return nil }
                        index += 1
                    }
                } else if !#"\"/bfnrt"#.utf8.contains(escaped) {
                    return nil
                }
            case ..<0x20: return nil  // control characters must be escaped
            default: continue
            }
        }
        return nil
    }

    private mutating func number() -> Bool {
        _ = consume(UInt8(ascii: "-"))
        if !consume(UInt8(ascii: "0")) { guard digits() > 0 else { return false } }  // no leading zeros
        if consume(UInt8(ascii: ".")) { guard digits() > 0 else { return false } }
        if consume(UInt8(ascii: "e")) || consume(UInt8(ascii: "E")) {
            _ = consume(UInt8(ascii: "+")) || consume(UInt8(ascii: "-"))
            guard digits() > 0 else { return false }
        }
        return true
    }

    private mutating func digits() -> Int {
        let start = index
        while let byte = peek, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { index += 1 }
        return index - start
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        let word = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        guard bytes.count - index >= word.count, bytes[index..<index + word.count].elementsEqual(word) else { return false }
        index += word.count
        return true
    }
}

private extension UInt8 {
    var isHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }
}
