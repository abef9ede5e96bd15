import Foundation
import StoreCore

/// The tester's controls over a subscription (expire, auto-renew, price increases, billing issues):
/// which subscription one acts on, what it makes of the record, and when it refuses.
enum SubscriptionControls {
    /// The subscription a control for `productID` acts on: the customer's own in the group (`own`; a
    /// product of the group names it, whichever plan is current), a family member's when only theirs
    /// is for `productID`. `active`: the control needs a subscription that has not ended, and says so when it has.
    static func target(_ productID: String, own: SubscriptionRecord?, inGroup records: [SubscriptionRecord],
                       active: Bool) throws -> SubscriptionRecord {
        let familyOnly = records.filter { $0.familyShared && $0.productID == productID }
        guard let record = own.flatMap({ $0.productID == productID || familyOnly.isEmpty ? $0 : nil }) ?? familyOnly.last else {
            throw TestControlError("no subscription in \(productID)'s group")
        }
        if active, !record.isActive {
            throw TestControlError("the subscription to \(record.productID) is \(record.state.rawValue): buy it again first")
        }
        return record
    }

    static func autoRenew(_ record: SubscriptionRecord, enabled: Bool) throws -> SubscriptionRecord {
        guard record.willAutoRenew != enabled else {
            throw TestControlError("auto-renew is already \(enabled ? "on" : "off") for \(record.productID)")
        }
        var record = record
        record.setAutoRenew(enabled)
        return record
    }

    /// A price increase waiting for consent, over the price the subscription renews at (`listed`: the
    /// catalog's, where it was last bought, in `currency`). Asked again while one waits, it is the same
    /// increase asked again (Apple's test session may be asked repeatedly).
    static func priceIncreaseRequested(_ record: SubscriptionRecord, listed: Int64?, currency: String) throws -> SubscriptionRecord {
        guard record.priceIncrease != .notYetResponded else { return record }
        var record = record
        record.priceIncrease = .notYetResponded
        record.increasedPriceMilliunits = SubscriptionRecord.increased(record.renewalPrice(catalog: listed) ?? 0, currency: currency)
        return record
    }

    /// Declining turns auto-renew off at once, as StoreKit does: access runs to the period's end,
    /// then the subscription expires with didNotConsentToPriceIncrease.
    static func priceIncreaseAnswered(_ record: SubscriptionRecord, agree: Bool) throws -> SubscriptionRecord {
        guard record.priceIncrease == .notYetResponded else { throw TestControlError("no price increase is waiting for consent") }
        var record = record
        record.priceIncrease = agree ? .agreed : .declined
        if !agree { record.willAutoRenew = false }
        return record
    }

    /// What `SKTestSession.forceRenewalOfSubscription` renews: the subscription with auto-renew turned
    /// back on and no price increase pending (an agreed one is charged by this renewal, then done).
    static func forcedRenewal(_ record: SubscriptionRecord) -> SubscriptionRecord {
        var record = record
        record.willAutoRenew = true
        if record.priceIncrease != .agreed { (record.priceIncrease, record.increasedPriceMilliunits) = (nil, nil) }
        return record
    }

    /// A billing issue resolves by renewing now, while the subscription is in billing retry or grace.
    static func billingIssue(_ record: SubscriptionRecord, productID: String) throws -> SubscriptionRecord {
        guard record.state.isInBillingRetry else {
            throw TestControlError("\(productID) is not in billing retry")
        }
        return record
    }
}
