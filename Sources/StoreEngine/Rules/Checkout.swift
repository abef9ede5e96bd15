import Foundation
import StoreCore

/// How many of a product one purchase buys, and whether the purchase waits before completing.
enum Checkout {
    /// StoreKit sells up to 10 of a consumable or a non-renewing subscription at once, and one of anything else.
    static func allowedQuantities(of type: ProductType) -> ClosedRange<Int> { 1...type.maximumQuantity }

    /// What a purchase waits for: a parent's approval (Ask to Buy, on for the session, or simulated by
    /// the purchase in the Sandbox, as `simulatesAskToBuyInSandbox` says: Xcode's test environment ignores
    /// it), else the customer resolving an interruption; nil completes it at once.
    static func hold(_ settings: TestSettings, _ options: PurchaseOptions) -> LedgerEntry.Status? {
        let simulated = options.simulatesAskToBuy && settings.environment == .sandbox
        return settings.askToBuy || simulated ? .pendingApproval : settings.interruptedPurchases ? .interrupted : nil
    }

    /// A held purchase as it completes at `now`: its period (or offer period) starts then, not
    /// when it was asked for. A resubscription keeps its group's original purchase date.
    static func completed(_ held: TransactionPayload, at now: Date) -> TransactionPayload {
        var payload = held
        payload.purchaseDate = now
        if held.originalTransactionID == held.transactionID { payload.originalPurchaseDate = now }
        if let end = held.expirationDate { payload.expirationDate = now.addingTimeInterval(end.timeIntervalSince(held.purchaseDate)) }
        if let end = held.commitment?.expiresDate { payload.commitment?.expiresDate = now.addingTimeInterval(end.timeIntervalSince(held.purchaseDate)) }
        return payload
    }
}
