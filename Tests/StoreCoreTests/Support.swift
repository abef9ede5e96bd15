import Foundation
@testable import StoreCore
import StorefrontTestSupport

/// The bundled catalog's JSON, edited by a closure, then loaded: the way to test each validation error.
func loadEdited(_ edit: (inout JSONValue) -> Void) throws -> Catalog {
    var json = try JSONParser.parse(Data(contentsOf: URL(fileURLWithPath: Repo.catalogPath)))
    edit(&json)
    return try CatalogLoader.load(data: Data(json.serialized().utf8), file: "catalog.json")
}

func catalogError(_ edit: (inout JSONValue) -> Void) -> CatalogError? {
    do { _ = try loadEdited(edit); return nil } catch { return error as? CatalogError }
}

extension JSONValue {
    /// Sets a value at a path like `subscriptionGroups.0.subscriptions.2.period`.
    mutating func set(_ path: String, _ newValue: JSONValue?) {
        set(path.split(separator: ".").map(String.init)[...], newValue)
    }

    private mutating func set(_ path: ArraySlice<String>, _ newValue: JSONValue?) {
        guard let head = path.first else { if let v = newValue { self = v }; return }
        switch self {
        case .object(var members):
            if let i = members.firstIndex(where: { $0.key == head }) {
                if path.count == 1 && newValue == nil { members.remove(at: i) } else { members[i].value.set(path.dropFirst(), newValue) }
            } else if path.count == 1, let v = newValue {
                members.append((head, v))
            }
            self = .object(members)
        case .array(var items):
            if let i = Int(head), items.indices.contains(i) {
                if path.count == 1 && newValue == nil { items.remove(at: i) } else { items[i].set(path.dropFirst(), newValue) }
            } else if head == "+", let v = newValue { items.append(v) }
            self = .array(items)
        default: break
        }
    }
}
