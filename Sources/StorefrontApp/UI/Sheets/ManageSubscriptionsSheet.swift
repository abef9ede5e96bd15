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
        // Cancelling asks the store first what the developer offers (Retention Messaging; see `retention`).
        var items = [renewal.willAutoRenew
            ? MenuItem(label: "Cancel subscription (access until \(date))", effect: .command(.retentionOffer(group)))
            : MenuItem(label: "Turn auto-renew back on", effect: .command(.manage(group, .reenable)))]
        for plan in plans where plan.id != current.productID {
            let terms = plan.subscription!
            let when = switch PlanChangeKind(from: currentTerms, to: terms) {
            case .upgrade: "upgrade now"
            case .downgrade: "downgrade at renewal"
            case .crossgradeNow: "crossgrade now"
            case .crossgradeAtRenewal: "crossgrade at renewal"
            }
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

    /// "Cancel NAME? You keep access until DATE…": the question a cancel asks last.
    static func cancelQuestion(group: String, _ state: AppState) -> String {
        let snap = state.snapshot
        guard let status = snap.effectiveStatus(group: group), let current = status.transaction.payload else { return "Cancel the subscription?" }
        let date = Format.date(status.renewalInfo.payload?.renewalDate ?? current.expirationDate ?? snap.now)
        let name = state.product(current.productID)?.displayName ?? current.productID
        return "Cancel \(name)? You keep access until \(date); it will not renew after that."
    }

    /// After the store answered `retentionOffer`: the developer's message (its header, body and bullet
    /// points) with what the backend offers instead (another plan, a promotional offer), or, with no
    /// message, only the question.
    static func retention(_ offer: RetentionOffer?, group: String, _ state: inout AppState) {
        let question = cancelQuestion(group: group, state)
        let cancel = MenuItem(label: "Cancel subscription", effect: .command(.manage(group, .cancel)), confirmation: question,
                              yes: "Cancel Subscription", no: "Keep")
        guard let offer else {
            state.sheets.append(.confirm(title: "Manage Subscriptions", message: question, effect: cancel.effect,
                                         yes: "Cancel Subscription", no: "Keep"))
            return
        }
        var items = [MenuItem(label: "Keep my subscription", effect: .command(.refresh))]
        if let alternate = offer.alternateProductID, let product = state.product(alternate) {
            items.append(MenuItem(label: "Switch to \(product.displayName) · \(product.priceWithPeriod)",
                                  effect: .command(.manage(group, .switchTo(productID: alternate)))))
        }
        if let promotional = offer.promotionalOffer, let current = state.snapshot.effectiveStatus(group: group)?.transaction.payload?.productID {
            let terms = state.product(current).flatMap { product in product.subscription?.offer(id: promotional.offerID).map(product.offerText) }
            items.append(MenuItem(label: "Take the offer" + (terms.map { ": \($0)" } ?? ""),
                                  effect: .command(.buy(current, quantity: 1, offer: promotional.offerID, signature: .given(promotional.signature),
                                                        askToBuy: false, answer: .confirm))))
        }
        let message = offer.message
        let text = ([message.body] + message.bullets.map { "• " + $0 } + (message.imageAltText.map { ["[\($0)]"] } ?? [])).joined(separator: "  ")
        state.sheets.append(.menu(title: message.header, items: items + [cancel], note: text))
    }
}
