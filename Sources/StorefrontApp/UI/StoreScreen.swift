import Foundation
import StoreClient
import StoreCore
import StoreEngine
import TerminalUI

/// A line of a scrolling screen: text, its style, and which selectable item it belongs to.
struct ScreenLine: Sendable {
    var text: String
    var style: Style = .plain
    /// The index of the selectable item this line shows (selected items draw in reverse video).
    var item: Int?
    /// Right-aligned text (a price) on the same row.
    var trailing: String = ""
}

enum StoreScreen {
    private static let typeOrder: [ProductType] = [.consumable, .nonConsumable, .autoRenewable, .nonRenewing]

    /// The selectable products, grouped as the screen shows them and filtered by `/`.
    static func products(_ state: AppState) -> [Product] {
        let query = state.filter.text.lowercased()
        let shown = state.snapshot.products.filter { p in
            query.isEmpty || [p.displayName, p.description, p.id].contains { $0.lowercased().contains(query) }
        }
        let groups = uniqueGroups(shown)
        return typeOrder.flatMap { type in
            let ofType = shown.filter { $0.type == type }
            guard type == .autoRenewable else { return ofType }
            return groups.flatMap { g in
                ofType.filter { $0.subscription?.groupID == g }.sorted { $0.subscription!.level < $1.subscription!.level }
            }
        }
    }

    static func uniqueGroups(_ products: [Product]) -> [String] {
        var seen: [String] = []
        for p in products { if let g = p.subscription?.groupID, !seen.contains(g) { seen.append(g) } }
        return seen
    }

    static func lines(_ state: AppState) -> [ScreenLine] {
        let products = products(state)
        var lines: [ScreenLine] = []
        var heading: String?
        for (i, p) in products.enumerated() {
            let section = p.type == .autoRenewable ? "Subscriptions · \(p.groupName ?? "")" : p.type.title
            if section != heading {
                if heading != nil { lines.append(ScreenLine(text: "")) }
                lines.append(ScreenLine(text: section, style: .bold))
                heading = section
            }
            let mark = marks(p, state)
            lines.append(ScreenLine(text: "  " + p.displayName + (mark.isEmpty ? "" : "  " + mark), item: i,
                                    trailing: p.priceWithPeriod))
            lines.append(ScreenLine(text: "    " + p.description, style: .dim, item: i))
            if let intro = p.subscription?.introductoryOffer, state.snapshot.introEligibility[p.subscription!.groupID] == true {
                lines.append(ScreenLine(text: "    Intro offer: " + p.offerText(intro), style: Style(foreground: .green), item: i))
            }
        }
        if products.isEmpty {
            lines.append(ScreenLine(text: state.filter.text.isEmpty ? "No products." : "No products match “\(state.filter.text)”."))
        }
        return lines
    }

    /// What the customer owns of `product`, as the App Store shows it next to the price.
    static func marks(_ p: Product, _ state: AppState) -> String {
        let snap = state.snapshot
        var marks: [String] = []
        switch p.type {
        case .consumable:
            marks.append("Balance: \(snap.balances[p.id] ?? 0)")
        case .nonConsumable:
            if snap.entitlements.contains(p.id) { marks.append("✓ Owned") }
        case .autoRenewable:
            if let status = p.subscription.flatMap({ snap.effectiveStatus(group: $0.groupID) }),
               let t = status.transaction.payload, t.productID == p.id {
                switch status.state {
                case .subscribed: marks.append("✓ Subscribed until " + (t.expirationDate.map(Format.date) ?? "?"))
                case .inGracePeriod: marks.append("In grace period")
                case .inBillingRetryPeriod: marks.append("Billing retry")
                case .expired, .revoked: break
                }
            }
        case .nonRenewing:
            if snap.entitlements.contains(p.id) {
                let last = snap.history.compactMap(\.payload).first { $0.productID == p.id && !$0.isRevoked }
                let end = last.flatMap { t in p.duration?.advance(t.purchaseDate) }
                marks.append("✓ Active" + (end.map { " until " + Format.date($0) } ?? ""))
            }
        }
        for entry in state.ledger where entry.payload.productID == p.id {
            if entry.status == .pendingApproval { marks.append("Pending approval") }
            if entry.status == .interrupted { marks.append("Interrupted") }
        }
        return marks.joined(separator: " · ")
    }
}
