import Foundation

/// Loads a catalog from a file: Storefront's `catalog.json` format or Xcode's `.storekit`,
/// told apart by the keys present (never by extension or version number).
public enum CatalogLoader {
    public static func load(path: String) throws -> Catalog {
        let name = (path as NSString).lastPathComponent
        // The file's bytes are let go once parsed, before the catalog is built from the parsed values.
        return try decode(parse(read(path), file: name), file: name)
    }

    private static func read(_ path: String) throws(CatalogError) -> Data {
        do { return try FileContents.read(path) } catch { throw CatalogError(file: path, location: .file, message: error.description) }
    }

    public static func load(data: Data, file: String) throws -> Catalog {
        try decode(parse(data, file: file), file: file)
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
