import Foundation
import StoreCore
import TerminalUI

/// `storefront catalog`: the catalog as the chosen storefront sells it, as a table or JSON.
enum CatalogCommand {
    static func run(_ options: CommandLineOptions) throws -> Int32 {
        let context = try StoreContext.resolve(options, catalogPath: options.files.first)
        let products = context.catalog.products(storefront: context.storefront.code, locale: context.locale)
        print(options.json ? json(products) : table(products, context: context))
        return 0
    }

    static func json(_ products: [Product]) -> String {
        JSONValue.array(products.map { p in
            var members: [(key: String, value: JSONValue)] = [
                ("id", .string(p.id)), ("type", .string(p.type.rawValue)), ("displayName", .string(p.displayName)),
                ("description", .string(p.description)), ("price", .string("\(p.price)")),
                ("displayPrice", .string(p.displayPrice)), ("currency", .string(p.currency)),
                ("familyShareable", .bool(p.isFamilyShareable)),
            ]
            if let terms = p.subscription {
                members += [("groupID", .string(terms.groupID)), ("groupLevel", .number(String(terms.level))),
                            ("period", .string(terms.period.iso))]
            }
            if let duration = p.duration { members.append(("duration", .string(duration.iso))) }
            return .object(members)
        }).serialized()
    }

    static func table(_ products: [Product], context: StoreContext) -> String {
        let header = "\(context.catalog.app.name) — storefront \(context.storefront.code) (\(context.storefront.currency)), locale \(context.locale)"
        let rows = products.map { p in
            [p.id, p.type.rawValue, p.displayName, p.priceWithPeriod, p.subscription.map { "\($0.groupID) level \($0.level)" } ?? ""]
        }
        return ([header, ""] + TextTable.render(header: ["ID", "TYPE", "NAME", "PRICE", "GROUP"], rows: rows)
            + ["", "\(products.count) products"]).joined(separator: "\n")
    }
}

/// Plain-text columns aligned by display width.
enum TextTable {
    static func render(header: [String], rows: [[String]]) -> [String] {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { DisplayWidth.of($0[column]) }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { $1 + String(repeating: " ", count: widths[$0] - DisplayWidth.of($1)) }
                .joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }
    }
}
