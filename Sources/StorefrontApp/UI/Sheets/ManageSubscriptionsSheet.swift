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
        let t = state.words
        guard let status = snap.effectiveStatus(group: group), status.state.grantsAccess || status.state == .inBillingRetryPeriod,
              let current = status.transaction.payload, let renewal = status.renewalInfo.payload,
              let currentTerms = state.product(current.productID)?.subscription else {
            return .message(title: t(.manageTitle), text: t(.noActiveSubscription, ["group": groupName]))
        }
        let date = Format.date(renewal.renewalDate ?? current.expirationDate ?? snap.now)
        let name = state.product(current.productID)?.displayName ?? current.productID
        // Cancelling asks the store first what the developer offers (Retention Messaging; see `retention`).
        var items = [renewal.willAutoRenew
            ? MenuItem(label: t(.cancelUntil, ["date": date]), effect: .command(.retentionOffer(group)))
            : MenuItem(label: t(.turnAutoRenewOn), effect: .command(.manage(group, .reenable)))]
        for plan in plans where plan.id != current.productID {
            let terms = plan.subscription!
            let when: Phrase = switch PlanChangeKind(from: currentTerms, to: terms) {
            case .upgrade: .upgradeNow
            case .downgrade: .downgradeAtRenewal
            case .crossgradeNow: .crossgradeNow
            case .crossgradeAtRenewal: .crossgradeAtRenewal
            }
            // As iOS asks: the price, and when the change takes effect.
            let price = t.priceWithPeriod(plan)
            let question = when == .upgradeNow || when == .crossgradeNow
                ? t(.switchNowQuestion, ["plan": plan.displayName, "price": price, "charge": plan.displayPrice, "current": name])
                : t(.switchLaterQuestion, ["plan": plan.displayName, "price": price, "date": date, "current": name])
            items.append(MenuItem(label: "\(plan.displayName) · \(price) · \(t(when))",
                                  effect: .command(.manage(group, .switchTo(productID: plan.id))), confirmation: question,
                                  yes: t(.switchButton), no: t(.keepNamed, ["name": name])))
        }
        let next = renewal.autoRenewProductID == current.productID ? nil : state.product(renewal.autoRenewProductID)?.displayName ?? renewal.autoRenewProductID
        let phrase: Phrase = switch (renewal.willAutoRenew, next != nil) {
        case (true, false): .noteRenews
        case (true, true): .noteRenewsThen
        case (false, false): .noteExpires
        case (false, true): .noteExpiresThen
        }
        let note = t(phrase, ["group": groupName, "name": name, "next": next ?? "", "date": date])
        return .menu(title: t(.manageTitle), items: items, selected: 0, note: note)
    }

    /// "Cancel NAME? You keep access until DATE…": the question a cancel asks last.
    static func cancelQuestion(group: String, _ state: AppState) -> String {
        let snap = state.snapshot
        guard let status = snap.effectiveStatus(group: group), let current = status.transaction.payload else { return state.words(.cancelQuestionPlain) }
        let date = Format.date(status.renewalInfo.payload?.renewalDate ?? current.expirationDate ?? snap.now)
        let name = state.product(current.productID)?.displayName ?? current.productID
        return state.words(.cancelQuestion, ["name": name, "date": date])
    }

    /// After the store answered `retentionOffer`: the developer's message (its header, body and bullet
    /// points) with what the backend offers instead (another plan, a promotional offer), or, with no
    /// message, only the question.
    static func retention(_ offer: RetentionOffer?, group: String, _ state: inout AppState) {
        let question = cancelQuestion(group: group, state), t = state.words
        let cancel = MenuItem(label: t(.cancelSubscription), effect: .command(.manage(group, .cancel)), confirmation: question,
                              yes: t(.cancelSubscriptionButton), no: t(.keepButton))
        guard let offer else {
            state.sheets.append(.confirm(title: t(.manageTitle), message: question, effect: cancel.effect,
                                         yes: t(.cancelSubscriptionButton), no: t(.keepButton)))
            return
        }
        var items = [MenuItem(label: t(.keepMySubscription), effect: .command(.refresh))]
        if let alternate = offer.alternateProductID, let product = state.product(alternate) {
            items.append(MenuItem(label: t(.switchToLine, ["name": product.displayName, "price": t.priceWithPeriod(product)]),
                                  effect: .command(.manage(group, .switchTo(productID: alternate)))))
        }
        if let promotional = offer.promotionalOffer, let current = state.snapshot.effectiveStatus(group: group)?.transaction.payload?.productID {
            let terms = state.product(current).flatMap { product in product.subscription?.offer(id: promotional.offerID).map { t.offerText(product, $0) } }
            items.append(MenuItem(label: terms.map { t(.takeOfferTerms, ["terms": $0]) } ?? t(.takeOffer),
                                  effect: .command(.buy(current, quantity: 1, offer: promotional.offerID, signature: .given(promotional.signature),
                                                        askToBuy: false, answer: .confirm))))
        }
        let message = offer.message
        let text = ([message.body] + message.bullets.map { "• " + $0 } + (message.imageAltText.map { ["[\($0)]"] } ?? [])).joined(separator: "  ")
        state.sheets.append(.menu(title: message.header, items: items + [cancel], note: text))
    }
}
