import Foundation
import Testing
import StoreCore
@testable import StoreEngine

/// The pure rule naming each store event's App Store Server Notification V2, one test per Apple rule.
@Suite("Notification types and subtypes (StoreEvent)")
struct NotificationClassifierTests {
    func named(_ event: StoreEvent) -> String? {
        event.notification.map { [$0.type.rawValue, $0.subtype?.rawValue].compactMap { $0 }.joined(separator: " ") }
    }

    func purchase(_ previous: SubscriptionState?, offer: OfferType? = nil, upgrade: Bool = false, renewal: Bool = false) -> StoreEvent {
        .transaction(.autoRenewable, isRenewal: renewal, offer: offer, previous: previous, upgrade: upgrade)
    }

    @Test("a first subscription in a group is SUBSCRIBED INITIAL_BUY, with an introductory offer too")
    func initialBuy() {
        #expect(named(purchase(nil)) == "SUBSCRIBED INITIAL_BUY")
        #expect(named(purchase(nil, offer: .introductory)) == "SUBSCRIBED INITIAL_BUY")
    }

    @Test("buying again after the subscription lapsed or was revoked is SUBSCRIBED RESUBSCRIBE")
    func resubscribe() {
        #expect(named(purchase(.expired)) == "SUBSCRIBED RESUBSCRIBE")
        #expect(named(purchase(.revoked)) == "SUBSCRIBED RESUBSCRIBE")
    }

    @Test("a renewal is DID_RENEW; one that ends billing retry or grace is DID_RENEW BILLING_RECOVERY")
    func renewals() {
        #expect(named(purchase(.subscribed, renewal: true)) == "DID_RENEW")
        #expect(named(purchase(.inBillingRetryPeriod, renewal: true)) == "DID_RENEW BILLING_RECOVERY")
        #expect(named(purchase(.inGracePeriod, renewal: true)) == "DID_RENEW BILLING_RECOVERY")
    }

    @Test("an upgrade or same-duration crossgrade takes effect now: DID_CHANGE_RENEWAL_PREF UPGRADE")
    func upgrade() {
        #expect(named(purchase(.expired, upgrade: true)) == "DID_CHANGE_RENEWAL_PREF UPGRADE")
    }

    @Test("a downgrade or other-duration crossgrade waits for the renewal: DID_CHANGE_RENEWAL_PREF DOWNGRADE; going back, no subtype")
    func downgrade() {
        #expect(named(.renewalPreferenceChanged(backToCurrent: false)) == "DID_CHANGE_RENEWAL_PREF DOWNGRADE")
        #expect(named(.renewalPreferenceChanged(backToCurrent: true)) == "DID_CHANGE_RENEWAL_PREF")
    }

    @Test("an offer that starts a subscription or brings a lapsed one back is SUBSCRIBED: OFFER_REDEEMED is for active subscriptions only")
    func offerStartingASubscriptionIsSubscribed() {
        #expect(named(purchase(nil, offer: .promotional)) == "SUBSCRIBED INITIAL_BUY")
        #expect(named(purchase(nil, offer: .code)) == "SUBSCRIBED INITIAL_BUY")
        #expect(named(purchase(.expired, offer: .winBack)) == "SUBSCRIBED RESUBSCRIBE")
        #expect(named(purchase(.expired, offer: .promotional)) == "SUBSCRIBED RESUBSCRIBE")
    }

    @Test("a subscriber's promotional or code offer is OFFER_REDEEMED: UPGRADE now, none or DOWNGRADE for the next renewal")
    func offerRedeemed() {
        #expect(named(purchase(.subscribed, offer: .code, upgrade: true)) == "OFFER_REDEEMED UPGRADE")
        #expect(named(purchase(.subscribed, offer: .promotional, upgrade: true)) == "OFFER_REDEEMED UPGRADE")
        #expect(named(.offerRedeemedForNextRenewal(sameProduct: true)) == "OFFER_REDEEMED")
        #expect(named(.offerRedeemedForNextRenewal(sameProduct: false)) == "OFFER_REDEEMED DOWNGRADE")
    }

    @Test("turning auto-renew on or off is DID_CHANGE_RENEWAL_STATUS AUTO_RENEW_ENABLED or AUTO_RENEW_DISABLED")
    func renewalStatus() {
        #expect(named(.autoRenewChanged(enabled: true)) == "DID_CHANGE_RENEWAL_STATUS AUTO_RENEW_ENABLED")
        #expect(named(.autoRenewChanged(enabled: false)) == "DID_CHANGE_RENEWAL_STATUS AUTO_RENEW_DISABLED")
    }

    @Test("a failed renewal is DID_FAIL_TO_RENEW, GRACE_PERIOD when grace begins; grace ending is GRACE_PERIOD_EXPIRED")
    func billingTrouble() {
        #expect(named(.stateChanged(from: .subscribed, to: .inBillingRetryPeriod, reason: nil)) == "DID_FAIL_TO_RENEW")
        #expect(named(.stateChanged(from: .subscribed, to: .inGracePeriod, reason: nil)) == "DID_FAIL_TO_RENEW GRACE_PERIOD")
        #expect(named(.stateChanged(from: .inGracePeriod, to: .inBillingRetryPeriod, reason: nil)) == "GRACE_PERIOD_EXPIRED")
    }

    @Test("an expiry is EXPIRED with its reason: VOLUNTARY, BILLING_RETRY, PRICE_INCREASE, PRODUCT_NOT_FOR_SALE")
    func expired() {
        #expect(named(.stateChanged(from: .subscribed, to: .expired, reason: .autoRenewDisabled)) == "EXPIRED VOLUNTARY")
        #expect(named(.stateChanged(from: .inBillingRetryPeriod, to: .expired, reason: .billingError)) == "EXPIRED BILLING_RETRY")
        #expect(named(.stateChanged(from: .subscribed, to: .expired, reason: .didNotConsentToPriceIncrease)) == "EXPIRED PRICE_INCREASE")
        #expect(named(.stateChanged(from: .subscribed, to: .expired, reason: .productUnavailable)) == "EXPIRED PRODUCT_NOT_FOR_SALE")
    }

    @Test("an expiry for another reason is EXPIRED with no subtype")
    func expiredForAnotherReasonHasNoSubtype() {
        #expect(named(.stateChanged(from: .subscribed, to: .expired, reason: .unknown)) == "EXPIRED")
        #expect(named(.stateChanged(from: .inGracePeriod, to: .expired, reason: nil)) == "EXPIRED")
    }

    @Test("a subscription that was not active makes no notification when it changes state")
    func noNotificationForEndedSubscriptions() {
        #expect(named(.stateChanged(from: .expired, to: .expired, reason: .autoRenewDisabled)) == nil)
        #expect(named(.stateChanged(from: .revoked, to: .expired, reason: nil)) == nil)
    }

    @Test("a price increase is PRICE_INCREASE PENDING until the customer consents, then PRICE_INCREASE ACCEPTED")
    func priceIncrease() {
        #expect(named(.priceIncreaseRequested) == "PRICE_INCREASE PENDING")
        #expect(named(.priceIncreaseAccepted) == "PRICE_INCREASE ACCEPTED")
    }

    @Test("consumables, non-consumables and non-renewing subscriptions are ONE_TIME_CHARGE")
    func oneTimeCharge() {
        for type in [ProductType.consumable, .nonConsumable, .nonRenewing] {
            #expect(named(.transaction(type, isRenewal: false, offer: nil, previous: nil, upgrade: false)) == "ONE_TIME_CHARGE")
        }
    }

    @Test("a refund request for a consumable or auto-renewable subscription is CONSUMPTION_REQUEST; for others, none")
    func consumptionRequest() {
        #expect(named(.refundRequested(.consumable)) == "CONSUMPTION_REQUEST")
        #expect(named(.refundRequested(.autoRenewable)) == "CONSUMPTION_REQUEST")
        #expect(named(.refundRequested(.nonConsumable)) == nil)
    }

    @Test("refunds, their decline and reversal, family revocation, extensions and tests have their own types")
    func plainTypes() {
        #expect(named(.refunded) == "REFUND")
        #expect(named(.refundDeclined) == "REFUND_DECLINED")
        #expect(named(.refundReversed) == "REFUND_REVERSED")
        #expect(named(.familySharingRevoked) == "REVOKE")
        #expect(named(.renewalExtended) == "RENEWAL_EXTENDED")
        #expect(named(.test) == "TEST")
    }

    @Test("the App Store retries after 1, 12, 24, 48 and 72 hours, then gives up")
    func retrySchedule() {
        let start = Date(timeIntervalSince1970: 0)
        let hours = (1...5).map { RetrySchedule.nextAttempt(afterFailures: $0, lastAt: start)!.timeIntervalSince1970 / 3600 }
        #expect(hours == [1, 12, 24, 48, 72])
        #expect(RetrySchedule.nextAttempt(afterFailures: 6, lastAt: start) == nil)
    }
}
