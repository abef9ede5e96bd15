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
        let subtype: NotificationSubtype = upgrade ? .upgrade : previous == nil ? .initialBuy : .resubscribe
        // Promotional, win-back and offer-code offers are redeemed offers; an introductory offer is a subscription.
        let redeemed = offer.map { $0 != .introductory } ?? false
        if redeemed { return (.offerRedeemed, subtype) }
        return upgrade ? (.didChangeRenewalPref, .upgrade) : (.subscribed, subtype)
    }

    private static func classify(from: SubscriptionState, to: SubscriptionState,
                                 reason: RenewalInfoPayload.ExpirationReason?) -> (type: NotificationType, subtype: NotificationSubtype?)? {
        switch (from, to) {
        case (.subscribed, .inGracePeriod): (.didFailToRenew, .gracePeriod)
        case (.subscribed, .inBillingRetryPeriod): (.didFailToRenew, nil)
        case (.inGracePeriod, .inBillingRetryPeriod): (.gracePeriodExpired, nil)
        case (.subscribed, .expired), (.inGracePeriod, .expired), (.inBillingRetryPeriod, .expired):
            (.expired, reason.map(expiredSubtype) ?? .voluntary)
        default: nil
        }
    }

    private static func expiredSubtype(_ reason: RenewalInfoPayload.ExpirationReason) -> NotificationSubtype {
        switch reason {
        case .autoRenewDisabled: .voluntary
        case .billingError: .billingRetry
        case .didNotConsentToPriceIncrease: .priceIncrease
        case .productUnavailable: .productNotForSale
        default: .voluntary
        }
    }
}
