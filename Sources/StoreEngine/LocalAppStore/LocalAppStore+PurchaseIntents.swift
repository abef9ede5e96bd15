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
                let eligibility = OfferEligibility(history: try ledger.subscriptions(group: terms.groupID))
                guard eligibility.mayHave(winBack: winBack) else {
                    throw TestControlError("the App Store shows the win-back offer \(offerID) only to a lapsed subscriber of the group, "
                        + "and this customer is \(eligibility.customer == .new ? "new to it" : "subscribed"): expire the subscription first")
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

/// The app's own order and visibility for its promoted products on this device (StoreKit's
/// `Product.PromotionInfo`), overriding App Store Connect's.
public struct PromotionOverride: Sendable, Equatable {
    public enum Visibility: String, Sendable { case appStoreConnectDefault, visible, hidden }
    public let productID: String
    public var visibility: Visibility

    public init(productID: String, visibility: Visibility) {
        self.productID = productID
        self.visibility = visibility
    }
}

extension LocalAppStore {
    /// The promoted products in the app's order with their visibility; empty while the app set none.
    public func promotionOrder() -> [PromotionOverride] { promotions }

    /// Replaces the order (an empty one cancels the app's changes); each product named once, and known.
    public func setPromotionOrder(_ order: [PromotionOverride]) throws {
        if let unknown = order.first(where: { catalog.product($0.productID) == nil }) {
            throw TestControlError("unknown product \(unknown.productID): a promotion names a product of the catalog")
        }
        var seen = Set<String>()
        promotions = order.filter { seen.insert($0.productID).inserted }
    }

    /// Sets one product's visibility, adding it at the end of the order when it is not in it.
    public func setPromotionVisibility(_ visibility: PromotionOverride.Visibility, for productID: String) throws {
        guard catalog.product(productID) != nil else { throw TestControlError("unknown product \(productID)") }
        if let index = promotions.firstIndex(where: { $0.productID == productID }) {
            promotions[index].visibility = visibility
        } else {
            promotions.append(PromotionOverride(productID: productID, visibility: visibility))
        }
    }
}
