import StoreCore

/// StoreKit's messages (`Message.messages`): what the App Store asks a subscriber about over the running app.
/// One rule for the storefront's message sheet and the `StoreKit` library's `Message.messages`.
public struct StoreMessage: Sendable, Equatable {
    public enum Reason: String, Sendable { case priceIncreaseConsent, billingIssue, winBackOffer }

    public var reason: Reason
    /// Names the message, so each is shown once: the subscription, and the renewal or offer it is about.
    public var key: String
    public var productID: String
    public var transactionID: Int64
    public var winBackOfferID: String?

    /// The message for one of the customer's subscription statuses; nil when the App Store has none:
    /// a price increase waiting for consent while access lasts, a billing issue (grace or retry), or,
    /// once expired, a win-back offer the product has and the customer is eligible for. Never for a
    /// family member's shared subscription (the organizer answers those).
    public static func `for`(_ state: SubscriptionState, transaction t: TransactionPayload, renewalInfo info: RenewalInfoPayload,
                             winBackOfferIDs: [String]) -> StoreMessage? {
        guard t.ownership == .purchased else { return nil }
        func message(_ reason: Reason, _ key: String, offer: String? = nil) -> StoreMessage {
            StoreMessage(reason: reason, key: key, productID: t.productID, transactionID: t.transactionID, winBackOfferID: offer)
        }
        // The subscription: its original transaction, and when it began (Xcode's IDs start again after a clear).
        let subscription = "\(t.originalTransactionID)@\(Int64(t.originalPurchaseDate.timeIntervalSince1970 * 1000))"
        if info.priceIncreaseStatus == .notYetResponded, state.grantsAccess {
            return message(.priceIncreaseConsent, "priceIncrease:\(subscription)")
        }
        if state.isInBillingRetry {
            return message(.billingIssue, "billingIssue:\(subscription):\(t.transactionID)")
        }
        if state == .expired, let offerID = info.eligibleWinBackOfferIDs.first(where: winBackOfferIDs.contains) {
            return message(.winBackOffer, "winBack:\(subscription):\(offerID)", offer: offerID)
        }
        return nil
    }
}
