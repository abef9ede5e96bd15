import Foundation
import StoreCore

/// A subscription's renewal state as its transactions arrive, and as StoreKit reports it.
extension SubscriptionRecord {
    /// A subscription started by its first transaction; nil for a transaction without a period.
    init?(startedBy payload: TransactionPayload) {
        guard let group = payload.subscriptionGroupID, let expires = payload.expirationDate else { return nil }
        self.init(originalID: payload.originalTransactionID, groupID: group, productID: payload.productID,
                  autoRenewProductID: payload.productID, latestTransactionID: payload.transactionID, expirationDate: expires,
                  state: .subscribed, recentStartDate: payload.purchaseDate)
    }

    /// Subscribed now, in billing grace or billing retry included: the customer has the
    /// subscription, even while the App Store cannot charge for it.
    var isActive: Bool { state.grantsAccess || state == .inBillingRetryPeriod }

    /// Takes a new transaction on the subscription (a purchase, a renewal, an upgrade): it is
    /// subscribed until the transaction expires, and billing trouble is over. A purchase starts a
    /// new run (its start date, the anniversary day, auto-renew on, `offer` the pay-as-you-go offer
    /// it begins); a renewal continues the run. A change of product, or coming back, renews to the new product.
    /// `lapseLimit`: the gap in paid service that starts `recentStartDate` again (Apple's "lapses of paid
    /// service shorter than 60 days" are ignored; an upgrade has none), in store time.
    mutating func take(_ payload: TransactionPayload, offer: CarriedOffer?, lapseLimit: TimeInterval = 60 * 86_400) {
        guard let expires = payload.expirationDate else { return }
        let (paidUntil, wasRevoked) = (expirationDate, state == .revoked)
        if productID != payload.productID || state != .subscribed { autoRenewProductID = payload.productID }
        // A price increase was for its product: another plan has its own price.
        if payload.productID != productID { increasedPriceMilliunits = nil }
        productID = payload.productID
        latestTransactionID = payload.transactionID
        expirationDate = expires
        state = .subscribed
        expirationReason = nil
        gracePeriodEnd = nil
        billingRetryEnd = nil
        familyShared = payload.ownership == .familyShared
        appAccountToken = payload.appAccountToken
        billingPlan = payload.billingPlanType
        if payload.offerType == .introductory { introOfferReceived = true }
        guard payload.reason == .purchase else { return }
        // A refund ended paid service when it was made, which the record does not keep: a run after one starts anew.
        if wasRevoked || payload.purchaseDate.timeIntervalSince(paidUntil) >= lapseLimit { recentStartDate = payload.purchaseDate }
        renewals = nil
        anchorDay = Period.day(of: payload.purchaseDate)
        willAutoRenew = true
        priceIncrease = nil
        self.offer = offer
    }

    /// This subscription, ended, when `payload` is the customer buying again in its group while it
    /// has lapsed (billing retry too; a revoked one stays revoked): the purchase starts the one
    /// that counts. Nil when it is unaffected: renewals, family sharing and active ones.
    func ended(by payload: TransactionPayload) -> SubscriptionRecord? {
        guard payload.reason != .renewal, payload.ownership == .purchased, payload.originalTransactionID != originalID,
              !familyShared, !state.grantsAccess else { return nil }
        var ended = self
        if state != .revoked { ended.state = .expired }
        return ended
    }

    /// Turns auto-renew on or off; turned back on after a declined price increase, the increase waits for
    /// consent again (renewal info must not say it renews while the schedule would expire it).
    mutating func setAutoRenew(_ enabled: Bool) {
        willAutoRenew = enabled
        if enabled, priceIncrease == .declined { priceIncrease = .notYetResponded }
    }

    /// Expires the subscription by hand (a test control): it ends now unless it already has, with
    /// the reason it had, else autoRenewDisabled, and will not renew.
    mutating func expire(at now: Date) {
        state = .expired
        expirationReason = expirationReason ?? .autoRenewDisabled
        willAutoRenew = false
        expirationDate = min(expirationDate, now)
    }

    /// What the next renewal charges: a price increase's new price while it is for the product renewed, else the catalog's.
    func renewalPrice(catalog: Int64?) -> Int64? {
        autoRenewProductID == productID && priceIncrease != .declined ? increasedPriceMilliunits ?? catalog : catalog
    }

    /// The new price a price increase asks consent for: a fifth more, in the currency's smallest unit
    /// (a cent; a yen), as a developer raising a price tier would.
    static func increased(_ milliunits: Int64, currency: String) -> Int64 {
        var step: Int64 = 1000
        for _ in 0..<min(3, PriceFormatter.fractionDigits(currency: currency)) { step /= 10 }
        let raised = milliunits * 6 / 5
        return (raised + step - 1) / step * step
    }

    /// What StoreKit reports of the subscription's renewal: a lapsed or revoked one will not renew; the
    /// renewal date is always there (in the past once expired); why it expired shows once lapsed, and a
    /// billing error while in billing retry; a lapsed one shows its win-back offers. `next` is the
    /// auto-renew product's price in the customer's storefront and its eligible win-back offers.
    func renewalInfo(next: (priceMilliunits: Int64?, winBackOfferIDs: [String]), currency: String,
                     signedDate: Date, appTransactionID: String) -> RenewalInfoPayload {
        let lapsed = state == .expired
        let isInBillingRetry = state.isInBillingRetry
        var info = RenewalInfoPayload(
            originalTransactionID: originalID, productID: productID, autoRenewProductID: autoRenewProductID,
            willAutoRenew: willAutoRenew && !lapsed && state != .revoked,
            expirationReason: lapsed ? expirationReason : isInBillingRetry ? .billingError : nil,
            isInBillingRetry: isInBillingRetry,
            gracePeriodExpirationDate: state == .inGracePeriod ? gracePeriodEnd : nil,
            priceIncreaseStatus: priceIncrease == .declined ? nil : priceIncrease.map { $0 == .agreed ? .agreed : .notYetResponded },
            renewalDate: expirationDate, recentSubscriptionStartDate: recentStartDate,
            renewalPriceMilliunits: renewalPrice(catalog: next.priceMilliunits), currency: currency,
            eligibleWinBackOfferIDs: lapsed ? next.winBackOfferIDs : [],
            signedDate: signedDate, appTransactionID: appTransactionID)
        info.appAccountToken = appAccountToken
        return info
    }
}
