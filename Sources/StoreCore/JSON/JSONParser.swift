import Foundation

/// A JSON syntax error with the line and column (1-based) where parsing stopped.
public struct JSONSyntaxError: Error, Equatable, Sendable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public var reason: String
    public var description: String { "line \(line), column \(column): \(reason)" }
}

/// A strict RFC 8259 parser over UTF-8 bytes. Nesting is capped so hostile input can't
/// overflow the stack; invalid UTF-8 is an error, never a crash. It reads the bytes where they
/// are (a catalog of 100,000 products is 50 MB: a copy would be 50 MB more); a parser lives only
/// inside `parse` or `reading`, while the bytes it points to do.
public struct JSONParser {
    public static let maximumDepth = 128

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var depth = 0
    /// Piece by piece: the object or array just entered has had no item read yet.
    private var isFirst = false
    /// Whether objects and arrays are allocated at their exact size (see `members`), or built faster
    /// (see `finished`) for a value that is let go soon after.
    private var exactSize = true
    /// Members and elements being read, one list per depth, reused: each object and array is then
    /// allocated once at its exact size (growing by doubling left a quarter of a large tree unused).
    private var members: [[(key: String, value: JSONValue)]] = []
    private var elements: [[JSONValue]] = []

    public static func parse(_ data: Data) throws(JSONSyntaxError) -> JSONValue {
        let result = data.withUnsafeBytes { raw in
            Result { () throws(JSONSyntaxError) -> JSONValue in
                var parser = JSONParser(bytes: raw.assumingMemoryBound(to: UInt8.self))
                return try parser.document()
            }
        }
        return try result.get()
    }

    public static func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
        try parse(Data(text.utf8))
    }

    private init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    private mutating func document() throws(JSONSyntaxError) -> JSONValue {
        startDocument()
        let value = try parseValue()
        try endDocument()
        return value
    }

    // MARK: Reading piece by piece

    /// Reads `data` with `body`, which takes the document apart with the calls below (starting with
    /// `startDocument` and ending with `endDocument`) instead of having it parsed whole: a reader can
    /// then keep what it makes of each part and let the part's values go.
    static func reading<T>(_ data: Data, _ body: (inout JSONParser) throws -> T) throws -> T {
        try data.withUnsafeBytes { raw in
            var parser = JSONParser(bytes: raw.assumingMemoryBound(to: UInt8.self))
            return try body(&parser)
        }
    }

    mutating func startDocument() {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        skipWhitespace()
    }

    mutating func endDocument() throws(JSONSyntaxError) {
        skipWhitespace()
        guard index == bytes.count else { throw error("unexpected text after the JSON value") }
    }

    /// The first byte of the next value (`{`, `[`, `"`…), if any.
    mutating func peekValue() -> UInt8? {
        skipWhitespace()
        return peek
    }

    /// The next value, whole; `transient`: one let go soon after, so built faster rather than compact.
    mutating func value(transient: Bool = false) throws(JSONSyntaxError) -> JSONValue {
        skipWhitespace()
        exactSize = !transient
        defer { exactSize = true }
        return try parseValue()
    }

    /// Enters the object that is the next value; then `nextKey` until it returns nil.
    mutating func startObject() throws(JSONSyntaxError) {
        guard peekValue() == UInt8(ascii: "{") else { throw error("expected an object") }
        try nest()
        index += 1
        isFirst = true
    }

    /// The key of the object's next member, whose value is read next; nil after the object's last.
    mutating func nextKey() throws(JSONSyntaxError) -> String? {
        guard try nextItem(end: UInt8(ascii: "}"), in: "object") else { return nil }
        guard peek == UInt8(ascii: "\"") else { throw error("expected a quoted key") }
        let key = try parseString()
        skipWhitespace()
        guard peek == UInt8(ascii: ":") else { throw error("expected ':' after key \"\(key)\"") }
        index += 1
        return key
    }

    /// Enters the array that is the next value; then `nextElement` until it returns false.
    mutating func startArray() throws(JSONSyntaxError) {
        guard peekValue() == UInt8(ascii: "[") else { throw error("expected an array") }
        try nest()
        index += 1
        isFirst = true
    }

    /// Whether the array has another element, which is read next.
    mutating func nextElement() throws(JSONSyntaxError) -> Bool {
        try nextItem(end: UInt8(ascii: "]"), in: "array")
    }

    /// Past the comma before the next item, or past the end of the object or array (false).
    private mutating func nextItem(end: UInt8, in container: String) throws(JSONSyntaxError) -> Bool {
        skipWhitespace()
        if isFirst {
            isFirst = false
            if peek != end { return true }
        } else if peek == UInt8(ascii: ",") {
            index += 1
            skipWhitespace()
            return true
        } else if peek != end {
            throw error("expected ',' or '\(Character(Unicode.Scalar(end)))' in \(container)")
        }
        index += 1
        depth -= 1
        return false
    }

    private mutating func parseValue() throws(JSONSyntaxError) -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of file, expected a value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw error("unexpected character \(describe(bytes[index])), expected a value")
        }
    }

    private mutating func nest() throws(JSONSyntaxError) {
        // Checked before counting: a refused level leaves the depth of the levels it is in.
        if depth + 1 > Self.maximumDepth { throw error("nesting deeper than \(Self.maximumDepth) levels") }
        depth += 1
    }

    private mutating func parseObject() throws(JSONSyntaxError) -> JSONValue {
        try nest(); defer { depth -= 1 }
        index += 1
        skipWhitespace()
        if peek == UInt8(ascii: "}") { index += 1; return .object([]) }
        if members.count < depth { members.append(contentsOf: repeatElement([], count: depth - members.count)) }
        defer { members[depth - 1].removeAll(keepingCapacity: true) }
        while true {
            skipWhitespace()
            guard peek == UInt8(ascii: "\"") else { throw error("expected a quoted key") }
            let key = try parseString()
            skipWhitespace()
            guard peek == UInt8(ascii: ":") else { throw error("expected ':' after key \"\(key)\"") }
            index += 1
            skipWhitespace()
            let value = try parseValue()
            members[depth - 1].append((key, value))
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): index += 1; return .object(Self.finished(&members[depth - 1], exactSize: exactSize))
            default: throw error("expected ',' or '}' in object")
            }
        }
    }

    private mutating func parseArray() throws(JSONSyntaxError) -> JSONValue {
        try nest(); defer { depth -= 1 }
        index += 1
        skipWhitespace()
        if peek == UInt8(ascii: "]") { index += 1; return .array([]) }
        if elements.count < depth { elements.append(contentsOf: repeatElement([], count: depth - elements.count)) }
        defer { elements[depth - 1].removeAll(keepingCapacity: true) }
        while true {
            skipWhitespace()
            let element = try parseValue()
            elements[depth - 1].append(element)
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; return .array(Self.finished(&elements[depth - 1], exactSize: exactSize))
            default: throw error("expected ',' or ']' in array")
            }
        }
    }

    /// The list's elements as an array of its own: a copy of the exact size, or the list itself
    /// (nothing copied, nor retained and released), replaced by a new list as large.
    private static func finished<Element>(_ list: inout [Element], exactSize: Bool) -> [Element] {
        guard !exactSize else { return exactCopy(list) }
        var taken: [Element] = []
        taken.reserveCapacity(list.capacity)
        swap(&taken, &list)
        return taken
    }

    /// A new array of just `list.count` elements (`Array(list)` would share the list's storage).
    private static func exactCopy<Element>(_ list: [Element]) -> [Element] {
        list.withUnsafeBufferPointer { source in
            Array(unsafeUninitializedCapacity: source.count) { buffer, count in
                if let from = source.baseAddress { buffer.baseAddress!.initialize(from: from, count: source.count) }
                count = source.count
            }
        }
    }

    /// Most strings have no escapes: they are made from the bytes in place (ASCII needs no validation).
    private mutating func parseString() throws(JSONSyntaxError) -> String {
        index += 1
        let start = index
        var bits: UInt8 = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                if bits < 0x80 { return String(decoding: text, as: UTF8.self) }
                guard let string = String(validating: text, as: UTF8.self) else { throw error("string is not valid UTF-8") }
                return string
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            bits |= byte
            index += 1
        }
        return try parseEscapedString(from: start)
    }

    /// The rest of a string that has an escape (or a control character, or no end), byte by byte.
    private mutating func parseEscapedString(from start: Int) throws(JSONSyntaxError) -> String {
        var utf8 = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let string = String(validating: utf8, as: UTF8.self) else {
                    throw error("string is not valid UTF-8")
                }
                return string
            case UInt8(ascii: "\\"):
                index += 1
                try parseEscape(into: &utf8)
            case 0..<0x20:
                throw error("control character in string")
            default:
                utf8.append(byte)
                index += 1
            }
        }
        throw error("unterminated string")
    }

    private mutating func parseEscape(into utf8: inout [UInt8]) throws(JSONSyntaxError) {
        guard let byte = peek else { throw error("unterminated escape") }
        index += 1
        let simple: UInt8? = switch byte {
            case 0x22, 0x5C, 0x2F: byte
            case UInt8(ascii: "b"): 0x08
            case UInt8(ascii: "f"): 0x0C
            case UInt8(ascii: "n"): 0x0A
            case UInt8(ascii: "r"): 0x0D
            case UInt8(ascii: "t"): 0x09
            default: nil
        }
        if let simple { utf8.append(simple); return }
        guard byte == UInt8(ascii: "u") else { throw error("invalid escape \\\(describe(byte))") }
        var scalar = try hex4()
        if (0xD800..<0xDC00).contains(scalar) {
            guard peek == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                throw error("unpaired surrogate in \\u escape")
            }
            index += 2
            let low = try hex4()
            guard (0xDC00..<0xE000).contains(low) else { throw error("unpaired surrogate in \\u escape") }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        }
        guard let unicode = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
        utf8.append(contentsOf: Array(String(Character(unicode)).utf8))
    }

    private mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("truncated \\u escape") }
        var value: UInt32 = 0
        for byte in bytes[index..<index + 4] {
            guard let digit = hexDigit(byte) else { throw error("invalid hex digit in \\u escape") }
            value = value << 4 | digit
        }
        index += 4
        return value
    }

    private func hexDigit(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    private mutating func parseNumber() throws(JSONSyntaxError) -> String {
        let start = index
        if peek == UInt8(ascii: "-") { index += 1 }
        guard digits() > 0 else { throw error("invalid number") }
        if peek == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw error("invalid number: digits expected after '.'") }
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            index += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw error("invalid number: digits expected in exponent") }
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private mutating func digits() -> Int {
        let start = index
        while let byte = peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { index += 1 }
        return index - start
    }

    private mutating func literal(_ word: StaticString) throws(JSONSyntaxError) {
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        guard bytes.count - index >= expected.count, bytes[index..<index + expected.count].elementsEqual(expected) else {
            throw error("invalid literal, expected \(word)")
        }
        index += expected.count
    }

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = peek, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    private func describe(_ byte: UInt8) -> String {
        (0x21..<0x7F).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : String(format: "0x%02X", byte)
    }

    /// Line and column of the current position; columns count characters, not bytes.
    private func error(_ reason: String) -> JSONSyntaxError {
        let end = min(index, bytes.count)
        var line = 1, lineStart = 0
        for i in 0..<end where bytes[i] == 0x0A { line += 1; lineStart = i + 1 }
        let column = String(decoding: bytes[lineStart..<end], as: UTF8.self).count + 1
        return JSONSyntaxError(line: line, column: column, reason: reason)
    }
}

extension JSONValue {
    /// Pretty JSON with two-space indentation and keys in their stored order.
    public func serialized(indent: String = "") -> String {
        let inner = indent + "  "
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .number(let n): return n
        case .string(let s): return Self.quote(s)
        case .array(let elements):
            if elements.isEmpty { return "[]" }
            if elements.allSatisfy(\.isScalar) { return "[" + elements.map { $0.serialized() }.joined(separator: ", ") + "]" }
            return "[\n" + elements.map { inner + $0.serialized(indent: inner) }.joined(separator: ",\n") + "\n\(indent)]"
        case .object(let members):
            if members.isEmpty { return "{}" }
            return "{\n" + members.map { inner + Self.quote($0.key) + ": " + $0.value.serialized(indent: inner) }
                .joined(separator: ",\n") + "\n\(indent)}"
        }
    }

    /// Compact JSON, for signing. Built as bytes in one buffer: signing a transaction spends a good
    /// part of its non-ECDSA time here, and appending to a String cost more than the bytes themselves.
    public var compact: String {
        var out: [UInt8] = []
        out.reserveCapacity(1024)
        appendCompact(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    private func appendCompact(to out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let n): out.append(contentsOf: n.utf8)
        case .string(let s): Self.appendQuoted(s, to: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (i, element) in elements.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                element.appendCompact(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (i, member) in members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                Self.appendQuoted(member.key, to: &out)
                out.append(UInt8(ascii: ":"))
                member.value.appendCompact(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Most strings need no escaping: their bytes are copied whole.
    private static func appendQuoted(_ s: String, to out: inout [UInt8]) {
        let copied = s.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard noByteNeedsEscape(bytes) else { return false }
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: bytes)
            out.append(UInt8(ascii: "\""))
            return true
        } ?? false
        if !copied { out.append(contentsOf: quote(s).utf8) }
    }

    private static func needsNoEscape(_ byte: UInt8) -> Bool { byte >= 0x20 && byte != 0x22 && byte != 0x5C }

    /// Whether no byte needs escaping, eight at a time: a byte below 0x20, a quote or a backslash
    /// in a word shows as a high bit (the "has a zero byte" test of Bit Twiddling Hacks, exact for
    /// whether one exists). A signed transaction's 3.7 kB checked a byte at a time was the largest
    /// part of answering Get Transaction Info.
    static func noByteNeedsEscape(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let (ones, highs): (UInt64, UInt64) = (0x0101_0101_0101_0101, 0x8080_8080_8080_8080)
        func hasZeroByte(_ x: UInt64) -> Bool { (x &- ones) & ~x & highs != 0 }
        var i = 0
        while i + 8 <= bytes.count {
            let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
            let control = (word &- 0x20 &* ones) & ~word & highs != 0
            if control || hasZeroByte(word ^ (0x22 &* ones)) || hasZeroByte(word ^ (0x5C &* ones)) { return false }
            i += 8
        }
        while i < bytes.count {
            guard needsNoEscape(base[i]) else { return false }
            i += 1
        }
        return true
    }

    private var isScalar: Bool {
        switch self { case .array, .object: false; default: true }
    }

    static func quote(_ s: String) -> String {
        var out = ""
        appendQuoted(s, to: &out)
        return out
    }

    static func appendQuoted(_ s: String, to out: inout String) {
        out += "\""
        // Most strings need no escaping: copy them whole. (Checked over the contiguous bytes: iterating
        // the UTF-8 view was a fifth of a simulated year's time outside signing.)
        if s.utf8.withContiguousStorageIfAvailable(noByteNeedsEscape) ?? s.utf8.allSatisfy(needsNoEscape) {
            out += s
        } else {
            for scalar in s.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
                default: out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}
