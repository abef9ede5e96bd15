import Foundation

/// Loads a catalog from a file: Storefront's `catalog.json` format or Xcode's `.storekit`,
/// told apart by the keys present (never by extension or version number).
public enum CatalogLoader {
    public static func load(path: String) throws -> Catalog {
        try load(data: read(path), file: path == FileContents.standardInputPath ? FileContents.standardInputName : (path as NSString).lastPathComponent)
    }

    private static func read(_ path: String) throws(CatalogError) -> Data {
        do { return try FileContents.read(path) } catch { throw CatalogError(file: path, location: .file, message: error.description) }
    }

    /// Read as parsed, so a large catalog is never held whole as JSON values too; a document that
    /// fails so is read again whole, parsed first, then checked field by field in a fixed order, for
    /// the error that names where it is.
    public static func load(data: Data, file: String) throws -> Catalog {
        do {
            return try loadParsing(data: data, file: file)
        } catch {
            return try decode(parse(data, file: file), file: file)
        }
    }

    static func loadParsing(data: Data, file: String) throws -> Catalog {
        try JSONParser.reading(data) { try CatalogFormat.decodeParsing(&$0, file: file) }
    }

    static func parse(_ data: Data, file: String) throws -> JSONValue {
        do {
            return try JSONParser.parse(data)
        } catch {
            throw CatalogError(file: file, location: .position(line: error.line, column: error.column), message: error.reason)
        }
    }

    static func decode(_ json: JSONValue, file: String) throws -> Catalog {
        guard json.objectValue != nil else {
            throw CatalogError(file: file, location: .file, message: "expected a JSON object at the top level, found \(json.kindName)")
        }
        if isStoreKitConfiguration(json) {
            return try StoreKitImporter.catalog(from: json, file: file)
        }
        return try CatalogFormat.decode(json, file: file)
    }

    /// A `.storekit` file has `products`/`subscriptionGroups` written by Xcode and no `app` object.
    static func isStoreKitConfiguration(_ json: JSONValue) -> Bool {
        json["app"] == nil && (json["identifier"] != nil || json["nonRenewingSubscriptions"] != nil
            || json["version"]?["major"] != nil || json["settings"]?.objectValue?.contains { $0.key.hasPrefix("_") } == true)
    }
}
