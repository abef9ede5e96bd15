import Foundation
import StoreClient
import StoreCore
import StoreEngine

/// `Transaction.beginRefundRequest(for:in:)`: the customer picks a reason and confirms; Esc is `userCancelled`.
enum RefundRequestSheet {
    /// The reasons the App Store's refund sheet offers.
    static let reasons = ["I didn't mean to buy this", "A child or family member bought it", "It doesn't work or isn't what I expected",
                          "I didn't receive it", "Other"]

    static func sheet(for transaction: TransactionPayload, _ state: AppState) -> SheetState {
        guard !transaction.isRevoked else {
            return .message(title: "Request a Refund", text: "This purchase was already refunded.")
        }
        let name = state.product(transaction.productID)?.displayName ?? transaction.productID
        let price = PriceFormatter.displayPrice(transaction.price, currency: transaction.currency, locale: state.snapshot.locale)
        return .menu(title: "Request a Refund", items: reasons.map { MenuItem(label: $0, effect: .command(.requestRefund(.id(transaction.transactionID), reason: $0))) },
                     selected: 0, note: "\(name) · \(price) · #\(transaction.transactionID). Why are you requesting a refund?",
                     cancelled: "Refund request cancelled (userCancelled)")
    }
}

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
        var items = [renewal.willAutoRenew
            ? MenuItem(label: "Cancel subscription (access until \(date))", effect: .command(.manage(group, .cancel)))
            : MenuItem(label: "Turn auto-renew back on", effect: .command(.manage(group, .reenable)))]
        for plan in plans where plan.id != current.productID {
            let terms = plan.subscription!
            let when: String
            if terms.level < currentTerms.level { when = "upgrade now" }
            else if terms.level > currentTerms.level { when = "downgrade at renewal" }
            else { when = terms.period == currentTerms.period ? "crossgrade now" : "crossgrade at renewal" }
            items.append(MenuItem(label: "\(plan.displayName) · \(plan.priceWithPeriod) · \(when)", effect: .command(.manage(group, .switchTo(productID: plan.id)))))
        }
        let name = state.product(current.productID)?.displayName ?? current.productID
        let next = renewal.autoRenewProductID != current.productID ? ", then \(state.product(renewal.autoRenewProductID)?.displayName ?? renewal.autoRenewProductID)" : ""
        let note = "\(groupName): \(name)\(next). " + (renewal.willAutoRenew ? "Renews \(date)." : "Expires \(date).")
        return .menu(title: "Manage Subscriptions", items: items, selected: 0, note: note)
    }
}

/// The app's own `AppTransaction`, for business-model migrations ("bought before 2.0 → premium").
enum AppInfoSheet {
    static func lines(_ state: AppState) -> [String] {
        guard let app = state.snapshot.appTransaction else { return ["No AppTransaction: the App Transaction API failed or is not loaded."] }
        guard let p = app.payload else { return ["AppTransaction failed verification: \(app.error?.rawValue ?? "?")"] }
        return [
            "Bundle ID: \(p.bundleID)",
            "App version: \(p.appVersion)",
            "Original app version: \(p.originalAppVersion)",
            "Original purchase: \(Format.date(p.originalPurchaseDate))",
            "Original platform: \(p.originalPlatform)",
            "App transaction ID: \(p.appTransactionID)",
            "Environment: \(p.environment)",
            "Verification: \(app.error?.rawValue ?? "verified")",
        ]
    }
}
