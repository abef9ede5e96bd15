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
                                                                         ("terms", .string($0.terms)), ("billingPlan", .string($0.plan.rawValue))]) })))
                }
                if !terms.billingPlans.isEmpty { members.append(("billingPlans", .array(terms.billingPlans.map { billingPlan($0, of: p, terms) }))) }
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

    /// A billing plan as `--json` gives it: what each billing period and the whole commitment cost.
    static func billingPlan(_ plan: BillingPlan, of p: Product, _ terms: SubscriptionTerms) -> JSONValue {
        let price = plan.price(in: p.storefront, listed: p.price), commitment = plan.commitmentPrice(in: p.storefront, listed: p.price)
        return .object([("type", .string(plan.type.rawValue)), ("billingPlanType", .string(plan.type.signedName)),
                        ("price", .string("\(price)")), ("displayPrice", .string(p.format(price))),
                        ("billingPeriod", .string(terms.billingPeriod(on: plan.type).iso)),
                        ("commitmentPrice", .string("\(commitment)")), ("commitmentDisplayPrice", .string(p.format(commitment))),
                        ("commitmentPeriod", .string(terms.period.iso)), ("enabled", .bool(plan.isEnabled))])
    }

    /// A subscription's introductory, promotional and win-back offers, as the store sells them, each on its billing plan.
    static func offers(_ p: Product) -> [(kind: String, id: String?, terms: String, plan: BillingPlanType)] {
        guard let terms = p.subscription else { return [] }
        return terms.introductoryOffers.map { ("introductory", nil, p.offerText($0), $0.billingPlan) }
            + terms.promotionalOffers.map { ("promotional", $0.id, p.offerText($0), $0.billingPlan) }
            + terms.winBackOffers.map { ("winBack", $0.id, p.offerText($0) + ($0.isEligible ? "" : " (not eligible)"), $0.billingPlan) }
    }

    /// Every product's billing plans: what each charges and what its commitment comes to.
    static func planRows(_ products: [Product]) -> [[String]] {
        products.flatMap { p in
            (p.subscription?.billingPlans ?? []).map { plan in
                [p.id, plan.type.rawValue, p.planText(plan.type) ?? p.format(plan.price(in: p.storefront, listed: p.price)),
                 p.format(plan.commitmentPrice(in: p.storefront, listed: p.price)), plan.isEnabled ? "yes" : "no (not sold)"]
            }
        }
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
        let plans = planRows(products)
        if !plans.isEmpty {
            lines += ["", "Billing plans"] + TextTable.render(header: ["PRODUCT", "PLAN", "PRICE", "COMMITMENT", "ENABLED"], rows: plans)
        }
        // A catalog with billing plans says which plan each offer is for.
        let offers = products.flatMap { p in self.offers(p).map { [p.id, $0.kind, $0.id ?? "", $0.terms] + (plans.isEmpty ? [] : [$0.plan.rawValue]) } }
        if !offers.isEmpty {
            lines += ["", "Offers"] + TextTable.render(header: ["PRODUCT", "TYPE", "ID", "TERMS"] + (plans.isEmpty ? [] : ["PLAN"]), rows: offers)
        }
        let codes = catalog.offerCodes.map { code in
            [code.code, code.referenceName, code.productID,
             CustomerEligibility.allCases.filter(code.eligibility.contains).map(\.rawValue).joined(separator: ","),
             code.offer.flatMap { offer in products.first { $0.id == code.productID }.map { $0.offerText(offer) } } ?? "the product, free"]
        }
        if !codes.isEmpty {
            lines += ["", "Offer codes (a code offer's reference name is accepted too)"]
                + TextTable.render(header: ["CODE", "REFERENCE NAME", "PRODUCT", "ELIGIBILITY", "OFFER"], rows: codes)
        }
        lines += paywall(catalog, locale: context.locale)
        if case .object(let settings) = CatalogFormat.encode(catalog.settings), !settings.isEmpty {
            lines += ["", "Settings: " + settings.map { "\($0.key) \($0.value.serialized())" }.joined(separator: ", ")]
        }
        return (lines + ["", Format.count(products.count, "product")]).joined(separator: "\n")
    }
}

extension CatalogCommand {
    /// What a paywall shows from the catalog: each group's marketing headline and text in the locale, and the policy links.
    static func paywall(_ catalog: Catalog, locale: String) -> [String] {
        let marketing = catalog.subscriptionGroups.compactMap { group in
            group.marketing(for: locale).map { "\(group.name(for: locale)) (\(group.id)): \($0.headline)" + ($0.text.isEmpty ? "" : " · " + $0.text) }
        }
        let links = [catalog.app.termsOfServiceURL.map { "Terms of Service: " + $0 }, catalog.app.privacyPolicyURL.map { "Privacy Policy: " + $0 }]
        let lines = marketing + links.compactMap { $0 }
        return lines.isEmpty ? [] : ["", "Paywall (storefront --paywall GROUP)"] + lines
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
