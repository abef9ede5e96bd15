import Foundation
import StoreCore
import TerminalUI

/// `storefront catalog`: the catalog as the chosen storefront sells it, as a table or JSON.
enum CatalogCommand {
    static func run(_ options: CommandLineOptions) throws -> Int32 {
        let context = try StoreContext.resolve(options, catalogPath: options.files.first)
        let products = context.catalog.products(storefront: context.storefront.code, locale: context.locale)
        print(options.json ? json(products, catalog: context.catalog, locale: context.locale) : table(products, context: context))
        return 0
    }

    static func json(_ products: [Product], catalog: Catalog, locale: String) -> String {
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
                if let group = catalog.group(terms.groupID) { members.append(("groupName", .string(group.name(for: locale)))) }
                let offers = self.offers(p)
                if !offers.isEmpty {
                    members.append(("offers", .array(offers.map { .object([("type", .string($0.kind)), ("id", $0.id.map(JSONValue.string) ?? .null),
                                                                         ("terms", .string($0.terms))]) })))
                }
            }
            if let duration = p.duration { members.append(("duration", .string(duration.iso))) }
            let codes = catalog.offerCodes.filter { $0.productID == p.id }
            if !codes.isEmpty {
                members.append(("offerCodes", .array(codes.map { code in
                    .object([("code", .string(code.code)), ("referenceName", .string(code.referenceName)),
                             ("eligibility", .array(CustomerEligibility.allCases.filter(code.eligibility.contains).map { .string($0.rawValue) })),
                             ("offer", code.offer.map { .string(p.offerText($0)) } ?? .string("the product, free"))])
                })))
            }
            return .object(members)
        }).serialized()
    }

    /// A subscription's introductory, promotional and win-back offers, as the store sells them.
    static func offers(_ p: Product) -> [(kind: String, id: String?, terms: String)] {
        guard let terms = p.subscription else { return [] }
        return (terms.introductoryOffer.map { [("introductory", nil, p.offerText($0))] } ?? [])
            + terms.promotionalOffers.map { ("promotional", $0.id, p.offerText($0)) }
            + terms.winBackOffers.map { ("winBack", $0.id, p.offerText($0) + ($0.isEligible ? "" : " (not eligible)")) }
    }

    static func table(_ products: [Product], context: StoreContext) -> String {
        let catalog = context.catalog
        let header = "\(catalog.app.name) — storefront \(context.storefront.code) (\(context.storefront.currency)), locale \(context.locale)"
        let rows = products.map { p in
            [p.id, p.type.rawValue, p.displayName, p.priceWithPeriod, p.subscription.map { terms in
                "\(catalog.group(terms.groupID)?.name(for: context.locale) ?? terms.groupID) (\(terms.groupID)) level \(terms.level)"
            } ?? ""]
        }
        let notice = catalog.onePriceNotice(in: context.storefront).map { ["Note: " + $0] } ?? []
        var lines = [header] + notice + [""] + TextTable.render(header: ["ID", "TYPE", "NAME", "PRICE", "GROUP"], rows: rows)
        let offers = products.flatMap { p in self.offers(p).map { [p.id, $0.kind, $0.id ?? "", $0.terms] } }
        if !offers.isEmpty { lines += ["", "Offers"] + TextTable.render(header: ["PRODUCT", "TYPE", "ID", "TERMS"], rows: offers) }
        let codes = catalog.offerCodes.map { code in
            [code.code, code.referenceName, code.productID,
             CustomerEligibility.allCases.filter(code.eligibility.contains).map(\.rawValue).joined(separator: ","),
             code.offer.flatMap { offer in products.first { $0.id == code.productID }.map { $0.offerText(offer) } } ?? "the product, free"]
        }
        if !codes.isEmpty {
            lines += ["", "Offer codes (a code offer's reference name is accepted too)"]
                + TextTable.render(header: ["CODE", "REFERENCE NAME", "PRODUCT", "ELIGIBILITY", "OFFER"], rows: codes)
        }
        if case .object(let settings) = CatalogFormat.encode(catalog.settings), !settings.isEmpty {
            lines += ["", "Settings: " + settings.map { "\($0.key) \($0.value.serialized())" }.joined(separator: ", ")]
        }
        return (lines + ["", "\(products.count) products"]).joined(separator: "\n")
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
