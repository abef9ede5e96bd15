/// Converts Xcode's `.storekit` configuration files (formats 1.0 to 6.3) into a `Catalog`.
enum StoreKitImporter {
    static func catalog(from json: JSONValue, file: String) throws -> Catalog {
        throw CatalogError(file: file, location: .file, message: ".storekit import is not implemented yet")
    }
}
