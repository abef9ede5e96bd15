import Foundation
import Testing
@testable import StoreCore
import StorefrontTestSupport

/// Catalogs read as they are parsed, product by product: the same catalogs, and the same errors, as
/// parsing the whole document first and then reading its tree.
@Suite("Catalogs read as parsed")
struct CatalogParsingTests {
    static let fixtures = Repo.sharedFixtures.appendingPathComponent("storekit")

    /// The bundled catalog and every `.storekit` fixture, by name.
    static let sources: [(name: String, data: Data)] = {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: fixtures.path)) ?? []).filter { $0.hasSuffix(".storekit") }.sorted()
        return [("catalog.json", FileManager.default.contents(atPath: Repo.catalogPath)!)]
            + names.map { ($0, FileManager.default.contents(atPath: fixtures.appendingPathComponent($0).path)!) }
    }()

    static func wholeTree(_ data: Data, file: String) throws -> Catalog {
        try CatalogLoader.decode(CatalogLoader.parse(data, file: file), file: file)
    }

    static func expectSame(_ data: Data, file: String) throws {
        let whole = try wholeTree(data, file: file)
        let parsed = try CatalogLoader.loadParsing(data: data, file: file)
        #expect(parsed == whole, "\(file)")
        #expect(parsed.warnings == whole.warnings && parsed.hasOnePrice == whole.hasOnePrice, "\(file)")
        #expect(CatalogFormat.encode(parsed).serialized() == CatalogFormat.encode(whole).serialized(), "\(file)")
    }

    @Test("the bundled catalog and every .storekit fixture read as parsed give the catalog the whole tree gives")
    func sameCatalogs() throws {
        #expect(Self.sources.count >= 5, "the .storekit fixtures are missing")
        var accepted = 0
        for (name, data) in Self.sources where (try? Self.wholeTree(data, file: name)) != nil {
            try Self.expectSame(data, file: name)
            accepted += 1
        }
        #expect(accepted >= 5)
    }

    @Test("members in any order, repeated, or products before the storefronts read the same", arguments: [
        ["app", "storefronts", "products", "subscriptionGroups", "offerCodes", "settings"],
        ["settings", "offerCodes", "subscriptionGroups", "products", "storefronts", "app"],
        ["storefronts", "products", "app", "subscriptionGroups", "settings", "offerCodes"],
        ["app", "storefronts", "subscriptionGroups", "products", "products", "storefronts", "settings", "offerCodes"],
    ])
    func memberOrder(_ order: [String]) throws {
        let bundled = try JSONParser.parse(Self.sources[0].data)
        var other = bundled
        other.set("products.0.id", "com.example.repeated")
        other.set("storefronts.0", "FRA")
        var seen: Set<String> = []
        let members = order.compactMap { key in
            (seen.insert(key).inserted ? bundled : other)[key].map { (key: key, value: $0) }
        }
        try Self.expectSame(Data(JSONValue.object(members).serialized().utf8), file: "reordered.json")
    }

    @Test("a document that fails read as parsed fails with the whole tree's error", arguments: [
        // A bad product, and a syntax error further on: the syntax error, as the whole file parses first.
        (#"{"app": {"name": "A", "bundleID": "a"}, "storefronts": ["USA"], "products": [{"id": "p"}], "settings": {,}}"#,
         CatalogError(file: "c.json", location: .position(line: 1, column: 105), message: "expected a quoted key")),
        // A bad product, and an unknown member after the products: the unknown member, as the root is checked first.
        (#"{"app": {"name": "A", "bundleID": "a"}, "storefronts": ["USA"], "products": [{"id": "p"}], "extra": 1}"#,
         CatalogError(file: "c.json", location: .field("extra"),
                      message: "unknown field (expected one of: $schema, app, format, offerCodes, products, settings, storefronts, subscriptionGroups)")),
        // A bad second product: its path.
        (#"{"app": {"name": "A", "bundleID": "a"}, "storefronts": ["USA"], "products": [\#(product("p")), \#(product("q", type: "gadget"))]}"#,
         CatalogError(file: "c.json", location: .field("products[1].type"), message: #"unknown type "gadget" (use consumable, nonConsumable or nonRenewing)"#)),
        // Two groups with one ID.
        (#"{"app": {"name": "A", "bundleID": "a"}, "storefronts": ["USA"], "subscriptionGroups": [\#(group("g", "s1")), \#(group("g", "s2"))]}"#,
         CatalogError(file: "c.json", location: .field("subscriptionGroups[1]"), message: #"duplicate subscription group "g""#)),
        // A subscription's offer code without its offer's terms.
        (#"{"app": {"name": "A", "bundleID": "a"}, "storefronts": ["USA"], "subscriptionGroups": [\#(group("g", "s1"))], "offerCodes": [{"code": "FREE", "product": "s1"}]}"#,
         CatalogError(file: "c.json", location: .field("offerCodes[0]"),
                      message: #"an auto-renewable subscription's offer code needs an "offer" (its free trial, pay as you go or pay up front terms)"#)),
        // Not an object.
        ("[1, 2]", CatalogError(file: "c.json", location: .file, message: "expected a JSON object at the top level, found an array")),
    ])
    func sameErrors(_ text: String, expected: CatalogError) {
        #expect(throws: expected) { try CatalogLoader.load(data: Data(text.utf8), file: "c.json") }
        #expect(throws: expected) { try Self.wholeTree(Data(text.utf8), file: "c.json") }
        #expect(throws: (any Error).self) { try CatalogLoader.loadParsing(data: Data(text.utf8), file: "c.json") }
    }

    static func product(_ id: String, type: String = "consumable") -> String {
        #"{"id": "\#(id)", "type": "\#(type)", "localizations": {"en_US": {"displayName": "A"}}, "prices": {"USA": "0.99"}}"#
    }

    static func group(_ id: String, _ subscription: String) -> String {
        #"{"id": "\#(id)", "subscriptions": [{"id": "\#(subscription)", "level": 1, "period": "P1M", "localizations": {"en_US": {"displayName": "S"}}, "prices": {"USA": "0.99"}}]}"#
    }
}

@Suite("JSON read piece by piece")
struct JSONPiecesTests {
    /// A value read with the piece-by-piece calls: containers member by member, the rest whole.
    static func pieces(_ parser: inout JSONParser) throws -> JSONValue {
        switch parser.peekValue() {
        case UInt8(ascii: "{"):
            try parser.startObject()
            var members: [(key: String, value: JSONValue)] = []
            while let key = try parser.nextKey() { members.append((key, try pieces(&parser))) }
            return .object(members)
        case UInt8(ascii: "["):
            try parser.startArray()
            var elements: [JSONValue] = []
            while try parser.nextElement() { elements.append(try pieces(&parser)) }
            return .array(elements)
        default:
            return try parser.value()
        }
    }

    static func readInPieces(_ text: String) throws -> JSONValue {
        try JSONParser.reading(Data(text.utf8)) { parser in
            parser.startDocument()
            let value = try pieces(&parser)
            try parser.endDocument()
            return value
        }
    }

    @Test("a document read piece by piece is the document parsed whole", arguments: [
        #"{"a": [1, 2, {"b": null}], "c": {}, "d": [], "e": "x\u00e9", "f": [[true, false]]}"#,
        "\u{FEFF}  [ ]  ", #"{ "a" : { "b" : [ { } ] } }"#, "42", #""text""#,
    ])
    func sameValues(_ text: String) throws {
        #expect(try Self.readInPieces(text) == JSONParser.parse(text))
    }

    @Test("a syntax error read piece by piece is the one parsing whole finds, at the same line and column", arguments: [
        #"{"a": 1,}"#, #"{"a": 1 "b": 2}"#, "[1,]", "[1 2]", "{\n  \"a\"\n}", "[\n  1,\n  {\"b\": [}\n]", #"{"a": 1} x"#, "{", "[", "",
        #"{1: 2}"#, "[" + String(repeating: "[", count: 200) + String(repeating: "]", count: 201),
        "{" + String(repeating: #""a":{"#, count: 128) + String(repeating: "}", count: 129),
    ])
    func sameErrors(_ text: String) {
        var whole: JSONSyntaxError?
        do { _ = try JSONParser.parse(text) } catch { whole = error }
        #expect(whole != nil, "\(text.prefix(40))")
        #expect(throws: whole!) { try Self.readInPieces(text) }
    }
}
