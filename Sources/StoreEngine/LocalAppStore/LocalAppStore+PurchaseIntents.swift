import StoreCore

/// A purchase the customer began outside the app (a promoted In-App Purchase tapped on the App Store, a
/// win-back offer redeemed there), for the app to complete: StoreKit's `PurchaseIntent`.
public struct PurchaseIntentRequest: Sendable, Equatable {
    public let productID: String
    /// A promotional or win-back offer of the subscription, when the customer chose one.
    public let offerID: String?

    public init(productID: String, offerID: String?) {
        self.productID = productID
        self.offerID = offerID
    }
}

extension LocalAppStore {
    /// The customer taps a product's promotion on the App Store: the app receives it through
    /// `PurchaseIntent.intents`. Held until an app on this store takes it, as the system holds it for an
    /// app launching; in memory only (a reset, or the store closing, drops it).
    public func sendPurchaseIntent(productID: String, offerID: String?) throws {
        guard let item = catalog.product(productID) else { throw TestControlError("unknown product \(productID)") }
        guard item.price(in: currentStorefront.code, on: .upFront) != nil else {
            throw TestControlError("\(productID) is not sold in the storefront \(currentStorefront.code): the App Store there does not show it")
        }
        if let offerID {
            guard let terms = item.subscription else {
                throw TestControlError("\(productID) is not an auto-renewable subscription: only a subscription's promotion carries an offer")
            }
            let offers = terms.promotionalOffers + terms.winBackOffers
            guard offers.contains(where: { $0.id == offerID }) else {
                let known = offers.compactMap(\.id)
                throw TestControlError("\(productID) has no promotional or win-back offer \(offerID)"
                    + (known.isEmpty ? " (it has none)" : " (it has \(known.joined(separator: ", ")))"))
            }
            if let winBack = terms.winBackOffers.first(where: { $0.id == offerID }) {
                let customer = try OfferEligibility(history: ledger.subscriptions(group: terms.groupID)).customer
                guard winBack.isEligible, customer == .expired else {
                    throw TestControlError("the App Store shows the win-back offer \(offerID) only to a lapsed subscriber of the group, "
                        + "and this customer is \(customer == .new ? "new to it" : "subscribed"): expire the subscription first")
                }
            }
        }
        pendingPurchaseIntents.append(PurchaseIntentRequest(productID: productID, offerID: offerID))
    }

    /// The purchase intents sent since the last call, oldest first; each is handed out once.
    public func takePurchaseIntents() -> [PurchaseIntentRequest] {
        defer { pendingPurchaseIntents = [] }
        return pendingPurchaseIntents
    }

    public func returnPurchaseIntents(_ intents: [PurchaseIntentRequest]) {
        pendingPurchaseIntents.insert(contentsOf: intents, at: 0)
    }
}
