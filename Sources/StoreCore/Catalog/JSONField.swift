import Foundation

/// A JSON value together with its path in the document, so every read can fail with a message that
/// names the field. Used by the catalog reader and the `.storekit` importer.
struct JSONField {
    let value: JSONValue
    let path: String
    let file: String

    init(_ value: JSONValue, path: String = "", file: String) {
        self.value = value
        self.path = path
        self.file = file
    }

    func error(_ message: String) -> CatalogError {
        CatalogError(file: file, location: path.isEmpty ? .file : .field(path), message: message)
    }

    private func childPath(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    func has(_ key: String) -> Bool {
        if let v = value[key], v != .null { return true }
        return false
    }

    func optional(_ key: String) -> JSONField? {
        guard let child = value[key], child != .null else { return nil }
        return JSONField(child, path: childPath(key), file: file)
    }

    func required(_ key: String) throws -> JSONField {
        guard let child = optional(key) else {
            throw CatalogError(file: file, location: .field(childPath(key)), message: "missing required field")
        }
        return child
    }

    func string() throws -> String {
        guard let s = value.stringValue else { throw error("expected a string, found \(value.kindName)") }
        return s
    }

    func nonEmptyString() throws -> String {
        let s = try string()
        guard !s.trimmingCharacters(in: .whitespaces).isEmpty else { throw error("must not be empty") }
        return s
    }

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
        return items.enumerated().map { JSONField($1, path: "\(path)[\($0)]", file: file) }
    }

    func object() throws -> [(key: String, field: JSONField)] {
        guard let members = value.objectValue else { throw error("expected an object, found \(value.kindName)") }
        return members.map { ($0.key, JSONField($0.value, path: childPath($0.key), file: file)) }
    }

    /// Rejects keys this format doesn't define, so a typo never silently drops data.
    func allowOnly(_ keys: Set<String>) throws {
        for (key, field) in try object() where !keys.contains(key) {
            throw field.error("unknown field (expected one of: \(keys.sorted().joined(separator: ", ")))")
        }
    }

    /// A price: a decimal string like "4.99", never negative.
    func decimal() throws -> Decimal {
        guard case .string(let text) = value else {
            if case .number = value { throw error("write prices as decimal strings (\"\(value.serialized())\") so they stay exact") }
            throw error("expected a price as a decimal string, found \(value.kindName)")
        }
        guard Self.isPrice(text), let d = Decimal(string: text, locale: Self.posix) else {
            throw error("\"\(text)\" is not a decimal price (write it like \"4.99\")")
        }
        return d
    }

    private static let posix = Locale(identifier: "en_US_POSIX")

    /// 1–12 digits, optionally a point and 1–6 digits. By hand: a regular expression per price
    /// dominated the load time of large catalogs.
    static func isPrice(_ text: String) -> Bool {
        let utf8 = Array(text.utf8)
        let point = utf8.firstIndex(of: UInt8(ascii: ".")) ?? utf8.count
        func digits(_ slice: ArraySlice<UInt8>) -> Bool { slice.allSatisfy { (48...57).contains($0) } }
        let whole = utf8[..<point], fraction = utf8[min(point + 1, utf8.count)...]
        return (1...12).contains(whole.count) && digits(whole)
            && (point == utf8.count || ((1...6).contains(fraction.count) && digits(fraction)))
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
