import Foundation
import StoreClient
import StoreCore
import StoreEngine

/// `AppStore.showManageSubscriptions(in:)`: cancel, re-enable, or switch plans, with when each takes effect.
enum ManageSubscriptionsSheet {
    static func sheet(group: String, _ state: AppState) -> SheetState {
        let snap = state.snapshot
        let plans = snap.products.filter { $0.subscription?.groupID == group }.sorted { $0.subscription!.level < $1.subscription!.level }
        let groupName = plans.first?.groupName ?? group
        guard let status = snap.effectiveStatus(group: group), status.state.grantsAccess || status.state == .inBillingRetryPeriod,
              let current = status.transaction.payload, let renewal = status.renewalInfo.payload,
              let currentTerms = state.product(current.productID)?.subscription else {
            return .message(title: "Manage Subscriptions", text: "You have no active subscription in \(groupName). Buy one in the Store (1).")
        }
        let date = Format.date(renewal.renewalDate ?? current.expirationDate ?? snap.now)
        let name = state.product(current.productID)?.displayName ?? current.productID
        var items = [renewal.willAutoRenew
            ? MenuItem(label: "Cancel subscription (access until \(date))", effect: .command(.manage(group, .cancel)),
                       confirmation: "Cancel \(name)? You keep access until \(date); it will not renew after that.",
                       yes: "Cancel Subscription", no: "Keep")
            : MenuItem(label: "Turn auto-renew back on", effect: .command(.manage(group, .reenable)))]
        for plan in plans where plan.id != current.productID {
            let terms = plan.subscription!
            let when: String
            if terms.level < currentTerms.level { when = "upgrade now" }
            else if terms.level > currentTerms.level { when = "downgrade at renewal" }
            else { when = terms.period == currentTerms.period ? "crossgrade now" : "crossgrade at renewal" }
            // As iOS asks: the price, and when the change takes effect.
            let question = when.hasSuffix("now")
                ? "Switch to \(plan.displayName) for \(plan.priceWithPeriod)? It starts now: you pay \(plan.displayPrice) today and get back the unused part of \(name)."
                : "Switch to \(plan.displayName) for \(plan.priceWithPeriod)? It starts on \(date), when \(name) would renew; nothing changes until then."
            items.append(MenuItem(label: "\(plan.displayName) · \(plan.priceWithPeriod) · \(when)",
                                  effect: .command(.manage(group, .switchTo(productID: plan.id))), confirmation: question,
                                  yes: "Switch", no: "Keep \(name)"))
        }
        let next = renewal.autoRenewProductID != current.productID ? ", then \(state.product(renewal.autoRenewProductID)?.displayName ?? renewal.autoRenewProductID)" : ""
        let note = "\(groupName): \(name)\(next). " + (renewal.willAutoRenew ? "Renews \(date)." : "Expires \(date).")
        return .menu(title: "Manage Subscriptions", items: items, selected: 0, note: note)
    }
}
