import Foundation
import StoreCore

/// Redeeming an offer code: whether the App Store lets this customer have it now, and the offer
/// it grants. (Codes are looked up case-insensitively, spaces trimmed: `Catalog.offerCode(_:)`.)
struct OfferCodeRedemption: Equatable {
    var code: OfferCode
    /// How many times the code has been redeemed, by anyone.
    var redemptions: Int
    /// Whether the code's product has a price in the customer's storefront.
    var isSoldInStorefront: Bool
    /// Who the customer is for the code's product: new, existing (owns it, or subscribed now in its
    /// group, billing retry included), or expired (lapsed from the group).
    var customer: CustomerEligibility
    /// Owns the non-consumable, or holds an active subscription in the group.
    var alreadyOwns: Bool
    /// Whether the code's product is an auto-renewable subscription.
    var isSubscription = false

    /// Why the redemption is refused at `now`, in the order the App Store checks; nil when it may go ahead.
    /// A subscriber may redeem a code with an offer for existing customers (see `startsAtNextRenewal`).
    func refusal(at now: Date) -> OfferCodeError? {
        if let expires = code.expires, now >= expires { return .expired }
        if let limit = code.redemptionLimit, redemptions >= limit { return .usedUp }
        if !isSoldInStorefront { return .notAvailableInStorefront }
        if !code.eligibility.contains(customer) { return .notEligible }
        if alreadyOwns, !startsAtNextRenewal { return .alreadyOwned }
        return nil
    }

    /// An active subscriber's code does not cut the current period short: its offer applies from
    /// the next renewal (renewal info shows it meanwhile). A code without an offer has nothing to add.
    var startsAtNextRenewal: Bool {
        isSubscription && customer == .existing && code.offer != nil
    }

    /// What the code grants: its offer, or the product outright (a one-time grant at no charge).
    /// Apple reports an offer code's reference name as the transaction's offerIdentifier.
    var offer: SubscriptionOffer {
        var offer = code.offer ?? SubscriptionOffer(type: .code, paymentMode: .oneTime, period: Period(1, .day))
        offer.id = code.referenceName
        return offer
    }
}
