import Foundation
import StoreCore

/// A store event as the App Store's notifications see it. `notification` is the pure rule that
/// names it: the type and subtype Apple sends for it, or nil when Apple sends none.
enum StoreEvent: Equatable {
    /// A completed transaction: a purchase, a renewal, an upgrade, a redeemed offer. `previous`: the
    /// state of the subscription it continues, before it (nil: a new subscription or no subscription).
    case transaction(ProductType, isRenewal: Bool, offer: OfferType?, previous: SubscriptionState?, upgrade: Bool)
    /// The customer changed the product their subscription renews to, from the next renewal.
    case renewalPreferenceChanged(backToCurrent: Bool)
    /// An offer code redeemed by a subscriber, for their next renewal: `sameProduct` unless it changes plan.
    case offerRedeemedForNextRenewal(sameProduct: Bool)
    case autoRenewChanged(enabled: Bool)
    /// The renewal state moved on: a failed renewal, a grace period or billing retry ending, an expiry.
    case stateChanged(from: SubscriptionState, to: SubscriptionState, reason: RenewalInfoPayload.ExpirationReason?)
    case priceIncreaseRequested, priceIncreaseAccepted
    case refundRequested(ProductType)
    case refunded, refundDeclined, refundReversed, familySharingRevoked
    case renewalExtended, test
    /// A mass renewal-date extension: done for all (its `summary`), or failed for one subscription.
    case renewalExtensionSummary, renewalExtensionFailed

    var notification: (type: NotificationType, subtype: NotificationSubtype?)? {
        switch self {
        case .transaction(let type, let isRenewal, let offer, let previous, let upgrade):
            Self.classify(type, isRenewal: isRenewal, offer: offer, previous: previous, upgrade: upgrade)
        case .renewalPreferenceChanged(let backToCurrent):
            // Apple: DOWNGRADE for a change at the next renewal; no subtype when it goes back to the current product.
            (.didChangeRenewalPref, backToCurrent ? nil : .downgrade)
        case .offerRedeemedForNextRenewal(let sameProduct):
            (.offerRedeemed, sameProduct ? nil : .downgrade)
        case .autoRenewChanged(let enabled):
            (.didChangeRenewalStatus, enabled ? .autoRenewEnabled : .autoRenewDisabled)
        case .stateChanged(let from, let to, let reason):
            Self.classify(from: from, to: to, reason: reason)
        case .priceIncreaseRequested: (.priceIncrease, .pending)
        case .priceIncreaseAccepted: (.priceIncrease, .accepted)
        case .refundRequested(let type):
            // Apple asks for consumption information only for consumables and auto-renewable subscriptions.
            type == .consumable || type == .autoRenewable ? (.consumptionRequest, nil) : nil
        case .refunded: (.refund, nil)
        case .refundDeclined: (.refundDeclined, nil)
        case .refundReversed: (.refundReversed, nil)
        case .familySharingRevoked: (.revoke, nil)
        case .renewalExtended: (.renewalExtended, nil)
        case .renewalExtensionSummary: (.renewalExtension, .summary)
        case .renewalExtensionFailed: (.renewalExtension, .failure)
        case .test: (.test, nil)
        }
    }

    private static func classify(_ type: ProductType, isRenewal: Bool, offer: OfferType?, previous: SubscriptionState?,
                                 upgrade: Bool) -> (type: NotificationType, subtype: NotificationSubtype?) {
        guard type == .autoRenewable else { return (.oneTimeCharge, nil) }
        if isRenewal {
            let recovering = previous?.isInBillingRetry == true
            return (.didRenew, recovering ? .billingRecovery : nil)
        }
        if upgrade {
            // A promotional or offer-code offer taken with the upgrade is a redeemed offer.
            let redeemed = offer.map { $0 != .introductory } ?? false
            return (redeemed ? .offerRedeemed : .didChangeRenewalPref, .upgrade)
        }
        // Whatever the offer: Apple sends OFFER_REDEEMED for an active subscription only (since January 2024), and
        // "redeems an offer code to subscribe for the first time" or after the subscription expired is SUBSCRIBED.
        return (.subscribed, previous == nil ? .initialBuy : .resubscribe)
    }

    private static func classify(from: SubscriptionState, to: SubscriptionState,
                                 reason: RenewalInfoPayload.ExpirationReason?) -> (type: NotificationType, subtype: NotificationSubtype?)? {
        switch (from, to) {
        case (.subscribed, .inGracePeriod): (.didFailToRenew, .gracePeriod)
        case (.subscribed, .inBillingRetryPeriod): (.didFailToRenew, nil)
        case (.inGracePeriod, .inBillingRetryPeriod): (.gracePeriodExpired, nil)
        case (.subscribed, .expired), (.inGracePeriod, .expired), (.inBillingRetryPeriod, .expired):
            (.expired, reason.flatMap(expiredSubtype))
        default: nil
        }
    }

    /// Apple: "A notification without a subtype indicates that the subscription expired for some other reason."
    private static func expiredSubtype(_ reason: RenewalInfoPayload.ExpirationReason) -> NotificationSubtype? {
        switch reason {
        case .autoRenewDisabled: .voluntary
        case .billingError: .billingRetry
        case .didNotConsentToPriceIncrease: .priceIncrease
        case .productUnavailable: .productNotForSale
        default: nil
        }
    }
}
