import Foundation

/// Reads and writes Storefront's own catalog format (`catalog.json`; docs/catalog.md documents it and
/// `catalog.schema.json` describes it). Reading validates everything, or fails naming the field.
public enum CatalogFormat {
    public static let subscriptionPeriods = ["P1W", "P1M", "P2M", "P3M", "P6M", "P1Y"]
    public static let offerPeriods = ["P3D", "P1W", "P2W", "P1M", "P2M", "P3M", "P6M", "P1Y"]

    public static func decode(_ json: JSONValue, file: String) throws -> Catalog {
        var reader = CatalogReader(file: file)
        return try reader.catalog(JSONField(json, file: file))
    }

    public static func encode(_ catalog: Catalog) -> JSONValue {
        CatalogWriter(catalog: catalog).root()
    }

    /// Settings alone, in the catalog's `settings` form (the store saves the QA panel's changes this way).
    public static func encode(_ settings: TestSettings) -> JSONValue {
        CatalogWriter(catalog: Catalog(app: AppInfo(name: "", bundleID: ""), storefronts: [], products: [])).settings(settings)
    }

    public static func decodeSettings(_ json: JSONValue, storefronts: [Storefront], file: String) throws -> TestSettings {
        var reader = CatalogReader(file: file)
        reader.storefronts = storefronts
        return try reader.settings(JSONField(json, path: "settings", file: file))
    }

    /// The JSON Schema of this format (a resource of this module), for editors and CI checks.
    public static var schema: JSONValue? {
        Bundle.module.url(forResource: "catalog.schema", withExtension: "json")
            .flatMap { try? Data(contentsOf: $0) }.flatMap { try? JSONParser.parse($0) }
    }
}


// MARK: - Reading as parsed

extension CatalogFormat {
    /// Reads a `catalog.json` (or, whole, a `.storekit` file) as it is parsed: once the app and the
    /// storefronts are read, each product and subscription group is decoded from its own small tree,
    /// which is then let go, so a large catalog never exists whole as JSON values. Its errors say
    /// little (no field, and a field's error before a syntax error later in the file): a document
    /// it refuses is to be read again whole for the error to show.
    static func decodeParsing(_ parser: inout JSONParser, file: String) throws -> Catalog {
        var reader = CatalogReader(file: file)
        reader.named = false
        var members: [(key: String, value: JSONValue)] = []
        var streamed = CatalogReader.Streamed()
        parser.startDocument()
        try parser.startObject()
        while let key = try parser.nextKey() {
            // With an app, the document is no .storekit file; with storefronts, prices can be read.
            let decodable = parser.peekValue() == UInt8(ascii: "[") && members.contains { $0.key == "app" } && !reader.storefronts.isEmpty
            if decodable, key == "products", streamed.products == nil {
                streamed.products = try elements(&parser) { try reader.product(reader.field($0)) }
                members.append((key, .array([])))
            } else if decodable, key == "subscriptionGroups", streamed.groups == nil {
                streamed.groups = try elements(&parser) { try reader.subscriptionGroup(reader.field($0)) }
                members.append((key, .array([])))
            } else {
                let value = try parser.value()
                if key == "storefronts", !members.contains(where: { $0.key == key }) {
                    reader.storefronts = try reader.field(value).array().map(reader.storefront)
                }
                members.append((key, value))
            }
        }
        try parser.endDocument()
        let root = JSONValue.object(members)
        if streamed.products == nil, streamed.groups == nil { return try CatalogLoader.decode(root, file: file) }
        return try reader.catalog(reader.field(root), streamed: &streamed)
    }

    private static func elements<T>(_ parser: inout JSONParser, _ decode: (JSONValue) throws -> T) throws -> [T] {
        var items: [T] = []
        try parser.startArray()
        while try parser.nextElement() { items.append(try decode(parser.value(transient: true))) }
        return items
    }
}

public enum Validation {
    static let languages = Set(Locale.LanguageCode.isoLanguageCodes.map(\.identifier))
    static let currencies = Set(Locale.Currency.isoCurrencies.map(\.identifier))

    public static func isLocale(_ identifier: String) -> Bool {
        // By bytes: Unicode character properties per locale were a tenth of a large catalog's load.
        let pieces = identifier.utf8.split { $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }
        func isLetterOrDigit(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
        guard !pieces.isEmpty, pieces.count <= 3, pieces.allSatisfy({ $0.allSatisfy(isLetterOrDigit) }) else { return false }
        return languages.contains(String(decoding: pieces[0].map { $0 | 0x20 }, as: UTF8.self))
    }

    public static func isCurrency(_ code: String) -> Bool { currencies.contains(code) }
}
