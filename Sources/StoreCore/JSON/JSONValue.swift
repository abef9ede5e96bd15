import Foundation

/// A parsed JSON document that keeps object keys in order, so catalogs round-trip
/// readably and errors can name the exact field.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// Numbers keep their source text: prices are decimals and must not pass through `Double`.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([(key: String, value: JSONValue)])

    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case let (.bool(x), .bool(y)): x == y
        case let (.number(x), .number(y)): x == y || Decimal(string: x) == Decimal(string: y)
        case let (.string(x), .string(y)): x == y
        case let (.array(x), .array(y)): x == y
        case let (.object(x), .object(y)):
            x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: false
        }
    }

    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        // Lengths first: most keys differ in length, and a signed payload is read by some thirty keys.
        let length = key.utf8.count
        return members.first { $0.key.utf8.count == length && $0.key == key }?.value
    }

    public var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    public var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { a } else { nil } }
    public var objectValue: [(key: String, value: JSONValue)]? { if case .object(let o) = self { o } else { nil } }
    public var intValue: Int? { if case .number(let n) = self { Int(n) } else { nil } }
    public var doubleValue: Double? { if case .number(let n) = self { Double(n) } else { nil } }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(String(value)) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) { self = .object(elements.map { (key: $0.0, value: $0.1) }) }
    public init(nilLiteral: ()) { self = .null }
}
