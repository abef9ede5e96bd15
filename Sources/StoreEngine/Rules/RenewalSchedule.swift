import Foundation
import StoreCore

/// When subscriptions renew, slip into grace or billing retry, and expire, on the store clock.
/// The store applies each step to its ledger; the rules themselves need no store. Under a time rate
/// the store clock keeps wall-clock time and the durations are compressed, as in Xcode.
struct RenewalSchedule: Equatable {
    var rate: TimeRate
    /// The tester's switches: renewals fail and enter billing retry, after a grace period if on.
    var billingRetryOnRenewal = false
    var gracePeriod = false


    /// When a subscription (or offer) period starting at `start` ends: its compressed duration
    /// under a time rate (`TimeRate.duration`), else on the calendar's anniversary, on `anchorDay`.
    /// The rate is the one in force at `start`: a new rate applies from the next period.
    func end(of period: Period, from start: Date, anchorDay: Int? = nil) -> Date {
        if let seconds = rate.duration(of: period, from: start) { return start.addingTimeInterval(seconds) }
        return anchorDay.map { period.advance(start, anchorDay: $0) } ?? period.advance(start)
    }

    /// What happens next to a subscription.
    enum Step: Equatable {
        /// Its period ended and it renews: a new transaction starting at `date`.
        case renew(at: Date)
        /// It moves to a new state. `settled`: the catch-up leaves it there; entering billing
        /// retry stops even if the retry has ended too (the next catch-up expires it).
        case change(SubscriptionRecord, settled: Bool)
    }

    /// Whether the subscription's period, grace period or billing retry has ended by `now`.
    func isDue(_ record: SubscriptionRecord, at now: Date) -> Bool {
        Self.dueDate(record).map { $0 <= now } ?? false
    }

    /// When the subscription's period, grace period or billing retry ends (`step` has something to
    /// do from then on, whatever the tester's switches); nil when it has ended for good.
    static func dueDate(_ record: SubscriptionRecord) -> Date? {
        switch record.state {
        case .subscribed: record.expirationDate
        case .inGracePeriod: record.gracePeriodEnd ?? .distantPast
        case .inBillingRetryPeriod: record.billingRetryEnd ?? .distantPast
        default: nil
        }
    }

    /// The next step for a subscription whose period, grace period or billing retry has ended by
    /// `now`; nil when nothing is due. `period` is the subscribed product's (it sets the grace period).
    func step(_ record: SubscriptionRecord, period: Period?, at now: Date) -> Step? {
        var next = record
        switch record.state {
        case .subscribed where record.expirationDate <= now:
            if let limit = rate.renewalLimit, (record.renewals ?? 0) >= limit {
                // The sandbox renews 12 times, then auto-renew turns off and the subscription expires.
                next.state = .expired
                next.willAutoRenew = false
                next.expirationReason = .autoRenewDisabled
            } else if !record.willAutoRenew || record.priceIncrease == .declined {
                next.state = .expired
                next.expirationReason = record.priceIncrease == .declined ? .didNotConsentToPriceIncrease : .autoRenewDisabled
            } else if billingRetryOnRenewal {
                next.state = gracePeriod ? .inGracePeriod : .inBillingRetryPeriod
                next.gracePeriodEnd = gracePeriod ? gracePeriodEnd(after: record.expirationDate, period: period) : nil
                next.billingRetryEnd = BillingRetry.end(after: record.expirationDate, rate: rate)
            } else {
                return .renew(at: record.expirationDate)
            }
            return .change(next, settled: true)
        case .inGracePeriod where (record.gracePeriodEnd ?? now) <= now:
            next.state = .inBillingRetryPeriod
            return .change(next, settled: false)
        case .inBillingRetryPeriod where (record.billingRetryEnd ?? now) <= now:
            next.state = .expired
            next.expirationReason = .billingError
            return .change(next, settled: true)
        default:
            return nil
        }
    }

    /// Billing grace period: 6 days for a weekly subscription, 16 days for any longer one (compressed under a time rate).
    func gracePeriodEnd(after expiration: Date, period: Period?) -> Date {
        expiration.addingTimeInterval(rate.gracePeriod(weekly: period == Period(1, .week)))
    }

    /// What one renewal at `date` buys.
    struct Renewal: Equatable {
        var expirationDate: Date
        /// The day of the month later renewals fall on.
        var anchorDay: Int
        /// The pay-as-you-go offer discounting this renewal, if any.
        var discount: SubscriptionRecord.CarriedOffer?
        /// What is left of that offer for the renewals after this one.
        var offerLeft: SubscriptionRecord.CarriedOffer?
    }

    /// A renewal at `date` to `productID` (whose period is `period`): it ends on the anniversary
    /// day (see `Period.advance(_:anchorDay:)`), and a carried offer discounts it, for its own
    /// period, while periods of it are left, when it is for that product (an offer a subscriber
    /// redeemed is for the product it renews to; an offer code kept before offers named theirs, too).
    func renewal(of record: SubscriptionRecord, to productID: String, period: Period, at date: Date) -> Renewal {
        let anchorDay = Period.anchorDay(record.anchorDay, at: date)
        guard let discount = record.offer, discount.remainingPeriods > 0,
              productID == discount.productID ?? (discount.type == .code ? productID : record.productID) else {
            return Renewal(expirationDate: end(of: period, from: date, anchorDay: anchorDay), anchorDay: anchorDay)
        }
        var left = discount
        left.remainingPeriods -= 1
        return Renewal(expirationDate: end(of: discount.period, from: date, anchorDay: anchorDay), anchorDay: anchorDay,
                       discount: discount, offerLeft: left.remainingPeriods > 0 ? left : nil)
    }

}

/// How long the App Store retries billing before a subscription expires: 60 days, compressed under
/// a time rate. Public so the storefront's log can say when a retry ends.
public enum BillingRetry {
    public static let days = 60

    public static func end(after expiration: Date, rate: TimeRate) -> Date {
        expiration.addingTimeInterval(rate.compressed(Double(days) * 86_400))
    }
}
