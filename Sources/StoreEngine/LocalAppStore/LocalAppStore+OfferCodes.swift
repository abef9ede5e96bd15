import Foundation
import StoreCore

/// The redeem sheet: offer codes.
extension LocalAppStore {

    public func redeem(offerCode: String) async throws {
        catchUp()
        try await simulateNetwork(.offerCodeRedeem, delay: true)
        guard let code = catalog.offerCode(offerCode), let item = catalog.product(code.productID) else {
            throw StoreFailure.offerCode(.unknownCode)
        }
        let redemption = try redemption(of: code, for: item)
        if let refusal = redemption.refusal(at: now()) { throw StoreFailure.offerCode(refusal) }
        // A code's offer is for one billing plan: the purchase is on that plan.
        let options = PurchaseOptions(billingPlan: redemption.offer.billingPlan)
        if redemption.startsAtNextRenewal, let change = try planChange(to: item) {
            // Within a group a code follows Manage Subscriptions' rules: an upgrade (or a crossgrade of the
            // same period) takes effect now, with the code's offer, and is delivered through updates.
            if change.kind == .immediate {
                _ = try applyChange(change, to: item, options: options, offer: redemption.offer, kind: .update, redeeming: code.code)
                return
            }
            // Else nothing is charged or delivered now: the subscription renews to the code's product, with its offer.
            var record = change.current
            record.offer = SubscriptionRecord.CarriedOffer(redeemed: redemption.offer, for: item.id, storefront: currentStorefront.code)
            record.autoRenewProductID = item.id
            record.willAutoRenew = true
            try ledger.db.transaction {
                try save(record, notifying: .offerRedeemedForNextRenewal(sameProduct: item.id == record.productID))
                try ledger.recordRedemption(code: code.code, transactionID: record.latestTransactionID)
            }
            return
        }
        let payload = try newPayload(item, price: item.price(in: currentStorefront.code, on: options.billingPlan) ?? 0,
                                     options: options, offer: redemption.offer)
        try commit(payload, kind: .update, redeeming: code.code)
    }

    /// Redeeming `code` (for `item`, its product) as this customer, now: whether the App Store lets them, and what it gives.
    func redemption(of code: OfferCode, for item: CatalogProduct) throws -> OfferCodeRedemption {
        try OfferCodeRedemption(code: code, redemptions: ledger.redemptionCount(code: code.code),
                                isSoldInStorefront: item.prices[currentStorefront.code] != nil,
                                customer: customer(of: item), alreadyOwns: owns(item), isSubscription: item.type == .autoRenewable)
    }

    /// Who the customer is for a product, as offer codes see it: for a subscription, from their
    /// history in its group; for anything else, new until they own it.
    func customer(of item: CatalogProduct) throws -> CustomerEligibility {
        guard let group = item.subscription?.groupID else {
            return try item.type != .consumable && ledger.ownsOneTimeProduct(item.id) ? .existing : .new
        }
        return try OfferEligibility(history: ledger.subscriptions(group: group)).customer
    }

    /// Whether the customer owns the non-consumable, or holds an active subscription in the group.
    func owns(_ item: CatalogProduct) throws -> Bool {
        switch item.type {
        case .nonConsumable: try ledger.ownsOneTimeProduct(item.id)
        case .autoRenewable: item.subscription.map { activeSubscription(group: $0.groupID) != nil } ?? false
        default: false
        }
    }
}
