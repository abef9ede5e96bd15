import Foundation

/// A JSON value together with its path in the document, so every read can fail with a message that
/// names the field. Used by the catalog reader and the `.storekit` importer.
struct JSONField {
    let value: JSONValue
    let file: String
    /// The path is spelled only when an error needs it: a large catalog has millions of fields.
    private let parent: String
    private let step: Step
    /// False for a reading whose errors are never shown (one that is done again when it fails):
    /// then no path is spelled at all, and errors name no field.
    private let named: Bool

    private enum Step {
        case none
        case key(String)
        case index(Int)
    }

    init(_ value: JSONValue, path: String = "", file: String, named: Bool = true) {
        self.init(value, parent: named ? path : "", step: .none, file: file, named: named)
    }

    private init(_ value: JSONValue, parent: String, step: Step, file: String, named: Bool) {
        self.value = value
        self.parent = parent
        self.step = step
        self.file = file
        self.named = named
    }

    var path: String {
        switch step {
        case .none: parent
        case .key(let key): parent.isEmpty ? key : "\(parent).\(key)"
        case .index(let index): "\(parent)[\(index)]"
        }
    }

    func error(_ message: String) -> CatalogError {
        let path = path
        return CatalogError(file: file, location: path.isEmpty ? .file : .field(path), message: message)
    }

    private func child(_ value: JSONValue, key: String) -> JSONField {
        named ? JSONField(value, parent: path, step: .key(key), file: file, named: true) : unnamed(value)
    }

    private func unnamed(_ value: JSONValue) -> JSONField { JSONField(value, parent: "", step: .none, file: file, named: false) }

    func optional(_ key: String) -> JSONField? {
        // Matched, not compared with `==`: this is the most frequent read of a large catalog.
        guard let child = value[key] else { return nil }
        if case .null = child { return nil }
        return self.child(child, key: key)
    }

    func required(_ key: String) throws -> JSONField {
        guard let child = optional(key) else {
            throw child(.null, key: key).error("missing required field")
        }
        return child
    }

    func string() throws -> String {
        guard let s = value.stringValue else { throw error("expected a string, found \(value.kindName)") }
        return s
    }

    func nonEmptyString() throws -> String {
        let s = try string()
        guard s.unicodeScalars.contains(where: { !Self.isWhitespace($0) }) else { throw error("must not be empty") }
        return s
    }

    /// `CharacterSet.whitespaces` (spaces and tab), without building the set for the common ASCII case.
    private static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII ? scalar == " " || scalar == "\t" : whitespaces.contains(scalar)
    }

    private static let whitespaces = CharacterSet.whitespaces

    func bool() throws -> Bool {
        guard let b = value.boolValue else { throw error("expected true or false, found \(value.kindName)") }
        return b
    }

    func int(in range: ClosedRange<Int> = Int.min...Int.max) throws -> Int {
        guard case .number(let text) = value, let n = Int(text) else {
            throw error("expected a whole number, found \(value.kindName == "a number" ? "\(value.serialized())" : value.kindName)")
        }
        guard range.contains(n) else { throw error("\(n) is out of range \(range.lowerBound)…\(range.upperBound)") }
        return n
    }

    func double() throws -> Double {
        guard let d = value.doubleValue, d.isFinite else { throw error("expected a number, found \(value.kindName)") }
        return d
    }

    func array() throws -> [JSONField] {
        guard let items = value.arrayValue else { throw error("expected an array, found \(value.kindName)") }
        guard named else { return items.map(unnamed) }
        let path = path
        // Elements are spelled at once: each is usually an object whose fields ask for its path.
        return items.enumerated().map { JSONField($1, parent: "\(path)[\($0)]", step: .none, file: file, named: true) }
    }

    func object() throws -> [(key: String, field: JSONField)] {
        try mapMembers { ($0, $1) }
    }

    /// What `read` makes of each member, without a list of the fields first (a large catalog's
    /// localizations spent a third of their time making and freeing one).
    func mapMembers<T>(_ read: (_ key: String, _ field: JSONField) throws -> T) throws -> [T] {
        guard let members = value.objectValue else { throw error("expected an object, found \(value.kindName)") }
        guard named else { return try members.map { try read($0.key, unnamed($0.value)) } }
        // Members are spelled at once too: those read this way are objects (localizations) or rare.
        let path = path
        return try members.map {
            try read($0.key, JSONField($0.value, parent: path.isEmpty ? $0.key : "\(path).\($0.key)", step: .none, file: file, named: true))
        }
    }

    /// Rejects keys this format doesn't define, so a typo never silently drops data.
    /// A list, not a set: a literal set is hashed on every call, and these lists are short.
    func allowOnly(_ keys: [String]) throws {
        guard let members = value.objectValue else { throw error("expected an object, found \(value.kindName)") }
        // By index: iterating the members copied (retained and released) every value.
        for i in members.indices where !keys.contains(members[i].key) {
            throw child(members[i].value, key: members[i].key).error("unknown field (expected one of: \(keys.sorted().joined(separator: ", ")))")
        }
    }

    /// A price: a decimal string like "4.99", never negative.
    func decimal() throws -> Decimal {
        guard case .string(let text) = value else {
            if case .number = value { throw error("write prices as decimal strings (\"\(value.serialized())\") so they stay exact") }
            throw error("expected a price as a decimal string, found \(value.kindName)")
        }
        guard let d = Self.price(text) else {
            throw error("\"\(text.prefix(40))\" is not a decimal price: write 1–\(Self.priceDigits.whole) digits, "
                        + "optionally a point and 1–\(Self.priceDigits.fraction) digits, like \"4.99\"")
        }
        return d
    }

    private static let posix = Locale(identifier: "en_US_POSIX")
    /// The most digits a price may have before and after its point (18 in all fit a `UInt64`).
    static let priceDigits = (whole: 12, fraction: 6)

    /// A price's text as a `Decimal`; nil unless it is 1–12 digits, optionally a point and 1–6
    /// digits. By hand: a regular expression, then Foundation's locale-aware parsing, per price
    /// dominated the load time of large catalogs. At most 18 digits fit a `UInt64` exactly; the
    /// `Decimal` is built as `Decimal(string:)` builds it (trailing zeros dropped: "1.50" is 15e-1).
    static func price(_ text: String) -> Decimal? {
        var significand: UInt64 = 0, whole = 0, fraction = 0, seenPoint = false
        for byte in text.utf8 {
            if byte == UInt8(ascii: "."), !seenPoint {
                seenPoint = true
                continue
            }
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            if seenPoint { fraction += 1 } else { whole += 1 }
            // Counted before the digit is added, so the significand never overflows.
            guard whole <= priceDigits.whole, fraction <= priceDigits.fraction else { return nil }
            significand = significand * 10 + UInt64(byte - UInt8(ascii: "0"))
        }
        guard whole >= 1, seenPoint ? fraction >= 1 : true else { return nil }
        // Zero keeps its exponent in `Decimal(string:)` ("0.00" is 0e-2): rare enough to ask Foundation.
        guard significand > 0 else { return Decimal(string: text, locale: posix) }
        var exponent = -fraction
        while significand % 10 == 0 { significand /= 10; exponent += 1 }
        return Decimal(sign: .plus, exponent: exponent, significand: Decimal(significand))
    }

    func period(allowed: [String]? = nil) throws -> Period {
        let text = try string()
        guard let period = Period(iso: text), allowed.map({ $0.contains(period.iso) }) ?? true else {
            let list = allowed?.joined(separator: ", ") ?? "P3D, P1W, P1M, P1Y…"
            throw error("\"\(text)\" is not a valid period (use one of \(list))")
        }
        return period
    }

    func date() throws -> Date {
        let text = try string()
        let formats: [Date.ISO8601FormatStyle] = [.iso8601, Date.ISO8601FormatStyle().year().month().day()]
        for format in formats { if let d = try? format.parse(text) { return d } }
        throw error("\"\(text)\" is not a date (use ISO 8601, like \"2027-01-31\" or \"2027-01-31T12:00:00Z\")")
    }
}
