import Foundation
import StoreClient
import StoreCore
import StoreEngine
import TerminalUI

/// The catalog's products, grouped by type and subscription group: Enter buys, i shows details.
enum StoreScreen: ScreenView {
    static let bindings = KeyMap.move + [
        Binding(keys: [.enter], name: "Enter", label: "Buy", action: .activate),
        Binding(keys: [.character("i")], name: "i", label: "Details", action: .details),
        // Off the footer: at 80 columns it would push Quit off.
        Binding(keys: [.character("$")], name: "$", label: "Paywall", action: .paywall, footer: false),
    ]

    static func summary(_ state: AppState) -> String {
        "\(Format.count(state.snapshot.products.count, "product")) · \(state.snapshot.storefront.code) prices in \(state.snapshot.storefront.currency)"
    }

    static func itemCount(_ state: AppState) -> Int { products(state).count }

    static func detail(_ state: AppState) -> SheetState? {
        products(state)[safe: state.selected(.store)].map { .productDetail($0.id) }
    }

    static func perform(_ action: Action, _ state: inout AppState) -> [Effect] {
        guard let product = products(state)[safe: state.selected(.store)] else { return [] }
        switch action {
        case .activate: state.sheets.append(.payment(draft(for: product, state)))
        case .details: state.sheets.append(.productDetail(product.id))
        case .paywall:
            // A paywall sells one group's subscriptions: the selected row's, else the first group's.
            guard let group = product.subscription?.groupID ?? products(state).lazy.compactMap(\.subscription?.groupID).first else {
                state.status = "No subscriptions to sell: the catalog has no subscription group"
                return []
            }
            state.sheets.append(.paywall(PaywallSheet(groupID: group, style: state.paywallStyle)))
        default: break
        }
        return []
    }

    private static let typeOrder: [ProductType] = [.consumable, .nonConsumable, .autoRenewable, .nonRenewing]

    /// The selectable products, grouped as the screen shows them and filtered by `/`.
    static func products(_ state: AppState) -> [Product] { state.storeProducts }

    /// Arranged by position, copied once: a product is a few hundred bytes, and a catalog may hold 100,000.
    static func arrange(_ products: [Product], matching filter: String) -> [Product] {
        let query = filter.lowercased()
        let shown = products.indices.filter { matches(products[$0], query) }
        let byType = Dictionary(grouping: shown) { products[$0].type }
        let byGroup = Dictionary(grouping: byType[.autoRenewable] ?? []) { products[$0].subscription!.groupID }
        var groups: [String] = [], seen: Set<String> = []
        for i in shown { if let g = products[i].subscription?.groupID, seen.insert(g).inserted { groups.append(g) } }
        let order = typeOrder.flatMap { type in
            guard type == .autoRenewable else { return byType[type] ?? [] }
            return groups.flatMap { g in (byGroup[g] ?? []).sorted { products[$0].subscription!.level < products[$1].subscription!.level } }
        }
        return order.map { products[$0] }
    }

    /// Whether the filter's lowercased text is in a product's name, description, ID or group name.
    static func matches(_ p: Product, _ query: String) -> Bool {
        query.isEmpty || [p.displayName, p.description, p.id, p.groupName ?? ""].contains { $0.lowercased().contains(query) }
    }

    /// Group IDs in catalog order.
    static func uniqueGroups(_ products: [Product]) -> [String] {
        var seen: Set<String> = [], ordered: [String] = []
        for p in products { if let g = p.subscription?.groupID, seen.insert(g).inserted { ordered.append(g) } }
        return ordered
    }

    /// The screen's lines: only for the products that can share the `rows` with the selected one
    /// (a 10,000-product catalog renders as fast as a small one). The window starts with its
    /// section's heading, so the heading stays in view while scrolling.
    static func lines(_ state: AppState, width: Int, rows: Int) -> [ListView.Line] {
        let products = products(state)
        // Enough products either side of the selected one to fill the rows: each takes two lines at least.
        let reach = rows / 2 + 1
        let window = max(0, state.selected(.store) - reach)..<min(products.count, state.selected(.store) + reach + 1)
        var lines: [ListView.Line] = []
        var heading: String?
        let t = state.words
        for i in window {
            let p = products[i]
            let section = sectionTitle(p, t)
            if section != heading {
                if heading != nil { lines.append(ListView.Line("")) }
                lines.append(ListView.Line(section, style: .bold))
                heading = section
            }
            let (mark, meaning) = marks(p, state)
            lines.append(ListView.Line("  " + p.displayName + (mark.isEmpty ? "" : "  " + mark), style: meaning?.style ?? .plain,
                                       item: i, trailing: t.priceWithPeriod(p)))
            lines.append(ListView.Line(lazy: { "    " + p.description }, style: .dim, item: i))
            if let monthly = t.planText(p, .monthly) {
                lines.append(ListView.Line("    " + t(.orBilledMonthly, ["terms": monthly]), style: .dim, item: i))
            }
            if let intro = p.subscription?.introductoryOffer, state.snapshot.introEligibility[p.subscription!.groupID] == true {
                lines.append(ListView.Line(lazy: { "    " + t(.introLine, ["terms": t.offerText(p, intro)]) }, style: Meaning.good.style, item: i))
            }
            for offer in winBackOffers(p, state) {
                lines.append(ListView.Line(lazy: { "    " + t(.winBackRow, ["terms": t.offerText(p, offer)]) }, style: Meaning.good.style, item: i))
            }
        }
        if products.isEmpty {
            lines.append(ListView.Line(state.filterText(.store).isEmpty ? "No products." : "No products match “\(state.filterText(.store))”."))
        }
        return lines
    }

    /// The win-back offers a lapsed subscriber may take for `p`: those its group's renewal info names
    /// eligible (the App Store shows them on the product page).
    static func winBackOffers(_ p: Product, _ state: AppState) -> [SubscriptionOffer] {
        guard let terms = p.subscription, !terms.winBackOffers.isEmpty else { return [] }
        let eligible = Set(state.snapshot.subscriptionStatuses[terms.groupID]?.compactMap(\.renewalInfo.payload).flatMap(\.eligibleWinBackOfferIDs) ?? [])
        return terms.winBackOffers.filter { $0.id.map(eligible.contains) == true }
    }

    /// A section's heading: the product type, or a subscription group by name.
    static func sectionTitle(_ p: Product, _ t: StringTable) -> String {
        switch p.type {
        case .autoRenewable: t(.sectionSubscriptions, ["group": p.groupName ?? ""])
        case .consumable: t(.sectionConsumable)
        case .nonConsumable: t(.sectionNonConsumable)
        case .nonRenewing: t(.sectionNonRenewing)
        }
    }

    /// What the customer owns of `product`, as the App Store shows it next to the price, and what that means:
    /// owning is good; something waiting (approval, billing) wins over it.
    static func marks(_ p: Product, _ state: AppState) -> (text: String, meaning: Meaning?) {
        let snap = state.snapshot, t = state.words
        var marks: [String] = []
        var meaning: Meaning?
        switch p.type {
        case .consumable:
            marks.append(t(.balance, ["count": "\(snap.balances[p.id] ?? 0)"]))
        case .nonConsumable:
            if snap.entitlements.contains(p.id) { marks.append("✓ " + t(.owned)); meaning = .good }
        case .autoRenewable:
            if let status = p.subscription.flatMap({ snap.effectiveStatus(group: $0.groupID) }),
               let tx = status.transaction.payload, tx.productID == p.id {
                switch status.state {
                case .subscribed:
                    let date = tx.expirationDate.map { state.timeIsCompressed ? Format.dateTime($0, seconds: true) : Format.date($0) } ?? "?"
                    marks.append("✓ " + t(.subscribedUntil, ["date": date])); meaning = .good
                case .inGracePeriod: marks.append(t(.inGracePeriod)); meaning = .waiting
                case .inBillingRetryPeriod: marks.append(t(.inBillingRetry)); meaning = .waiting
                case .expired, .revoked: break
                }
            }
        case .nonRenewing:
            if snap.entitlements.contains(p.id) {
                marks.append("✓ " + (snap.nonRenewingEnds[p.id].map { t(.activeUntil, ["date": Format.date($0)]) } ?? t(.active)))
                meaning = .good
            }
        }
        for entry in state.waiting[p.id] ?? [] {
            if entry.status == .pendingApproval { marks.append(t(.pendingApproval)); meaning = .waiting }
            if entry.status == .interrupted { marks.append(t(.interrupted)); meaning = .waiting }
        }
        return (marks.joined(separator: " · "), meaning)
    }
}
