import Foundation
import Testing
import StoreCore
@testable import StoreEngine

@Suite("Renewal schedule (plain values)")
struct RenewalScheduleTests {
    let schedule = RenewalSchedule(rate: .realTime)
    let end = Fixture.date("2027-03-01T10:00:00Z")

    @Test("a subscription is due when its period ends, not a second before")
    func dueAtPeriodEnd() {
        let record = Fixture.record(expires: end)
        #expect(!schedule.isDue(record, at: end.addingTimeInterval(-1)))
        #expect(schedule.isDue(record, at: end))
        #expect(schedule.step(record, period: Period(1, .month), at: end.addingTimeInterval(-1)) == nil)
    }

    @Test("with auto-renew on, the renewal starts when the period ended, however late the store looks")
    func renewalStartsAtPeriodEnd() {
        let step = schedule.step(Fixture.record(expires: end), period: Period(1, .month), at: Fixture.days(45, after: end))
        #expect(step == .renew(at: end))
    }

    @Test("with auto-renew off, the subscription expires at period end with expirationReason autoRenewDisabled")
    func autoRenewOffExpires() {
        var expired = Fixture.record(.expired, expires: end, willAutoRenew: false)
        expired.expirationReason = .autoRenewDisabled
        #expect(schedule.step(Fixture.record(expires: end, willAutoRenew: false), period: nil, at: end) == .change(expired, settled: true))
    }

    @Test("a declined price increase expires the subscription with didNotConsentToPriceIncrease, auto-renew or not")
    func declinedPriceIncreaseExpires() {
        var record = Fixture.record(expires: end)
        record.priceIncrease = .declined
        guard case .change(let next, _)? = schedule.step(record, period: nil, at: end) else { Issue.record("no change"); return }
        #expect(next.state == .expired)
        #expect(next.expirationReason == .didNotConsentToPriceIncrease)
    }

    @Test("a failed renewal without grace period enters billing retry for 60 days")
    func billingRetryLastsSixtyDays() {
        let failing = RenewalSchedule(rate: .realTime, billingRetryOnRenewal: true)
        guard case .change(let next, let settled)? = failing.step(Fixture.record(expires: end), period: Period(1, .month), at: end) else {
            Issue.record("no change"); return
        }
        #expect(next.state == .inBillingRetryPeriod)
        #expect(next.billingRetryEnd == Fixture.date("2027-04-30T10:00:00Z"))
        #expect(next.gracePeriodEnd == nil)
        #expect(settled)
    }

    @Test("billing grace period lasts 16 days, 6 for a weekly subscription, inside the 60 days of retry")
    func gracePeriodLength() {
        let failing = RenewalSchedule(rate: .realTime, billingRetryOnRenewal: true, gracePeriod: true)
        for (period, graceEnd) in [(Period(1, .month), "2027-03-17T10:00:00Z"), (Period(1, .week), "2027-03-07T10:00:00Z"),
                                   (Period(1, .year), "2027-03-17T10:00:00Z")] {
            guard case .change(let next, _)? = failing.step(Fixture.record(expires: end), period: period, at: end) else {
                Issue.record("no change for \(period)"); continue
            }
            #expect(next.state == .inGracePeriod)
            #expect(next.gracePeriodEnd == Fixture.date(graceEnd), "\(period)")
            #expect(next.billingRetryEnd == Fixture.date("2027-04-30T10:00:00Z"))
        }
    }

    @Test("when the grace period ends, billing retry goes on and the same catch-up looks again")
    func graceEndsIntoBillingRetry() {
        var record = Fixture.record(.inGracePeriod, expires: end)
        record.gracePeriodEnd = Fixture.days(16, after: end)
        #expect(!schedule.isDue(record, at: Fixture.days(15, after: end)))
        var retrying = record
        retrying.state = .inBillingRetryPeriod
        #expect(schedule.step(record, period: nil, at: Fixture.days(16, after: end)) == .change(retrying, settled: false))
    }

    @Test("when billing retry ends unresolved, the subscription expires with expirationReason billingError")
    func billingRetryEndsInBillingError() {
        var record = Fixture.record(.inBillingRetryPeriod, expires: end)
        record.billingRetryEnd = Fixture.days(60, after: end)
        #expect(!schedule.isDue(record, at: Fixture.days(59, after: end)))
        var expired = record
        expired.state = .expired
        expired.expirationReason = .billingError
        #expect(schedule.step(record, period: nil, at: Fixture.days(60, after: end)) == .change(expired, settled: true))
    }

    @Test("expired and revoked subscriptions never come due")
    func lapsedNeverDue() {
        let later = Fixture.days(1000, after: end)
        #expect(!schedule.isDue(Fixture.record(.expired, expires: end), at: later))
        #expect(!schedule.isDue(Fixture.record(.revoked, expires: end), at: later))
    }

    @Test("monthly renewals fall on the anniversary day, or the month's last day when it has none (Jan 31 → Feb 28 → Mar 31)")
    func anniversaryDay() {
        var record = Fixture.record(expires: Fixture.date("2027-01-31T10:00:00Z"))
        record.anchorDay = 31
        var ends: [String?] = []
        var date = record.expirationDate
        for _ in 0..<3 {
            let renewal = schedule.renewal(of: record, to: record.productID, period: Period(1, .month), at: date)
            #expect(renewal.anchorDay == 31)
            ends.append(Fixture.day(renewal.expirationDate))
            date = renewal.expirationDate
            record.anchorDay = renewal.anchorDay
        }
        #expect(ends == ["2027-02-28", "2027-03-31", "2027-04-30"])
    }

    @Test("a renewal off the anniversary day (after a trial's weeks) starts a new run on its own day")
    func brokenRunStartsAnew() {
        var record = Fixture.record()
        record.anchorDay = 27
        let renewal = schedule.renewal(of: record, to: record.productID, period: Period(1, .month), at: Fixture.date("2027-02-03T10:00:00Z"))
        #expect(renewal.anchorDay == 3)
        #expect(Fixture.day(renewal.expirationDate) == "2027-03-03")
    }

    @Test("under monthlyRenewalEveryThirtySeconds periods last Xcode's table: weekly 10 s, monthly 30 s, 2 months 1 min, quarterly 1 min 30 s, 6 months 3 min, yearly 6 min")
    func compressedDurationsFollowXcodesTable() {
        let fast = RenewalSchedule(rate: .monthlyRenewalEveryThirtySeconds)
        let start = Fixture.date("2027-01-31T21:54:32Z")
        let seconds = [(1, Period.Unit.week), (1, .month), (2, .month), (3, .month), (6, .month), (1, .year)].map {
            fast.end(of: Period($0, $1), from: start).timeIntervalSince(start)
        }
        #expect(seconds == [10, 30, 60, 90, 180, 360])
    }

    /// Week, month, 2, 3 and 6 months, year, in minutes, under `rate`.
    func minutes(_ rate: TimeRate) -> [Double] {
        let schedule = RenewalSchedule(rate: rate), start = Fixture.date("2027-01-31T21:54:32Z")
        return [(1, Period.Unit.week), (1, .month), (2, .month), (3, .month), (6, .month), (1, .year)].map {
            schedule.end(of: Period($0, $1), from: start).timeIntervalSince(start) / 60
        }
    }

    @Test("sandbox renewal rates follow Apple's sandbox table: every 3, 5 (weekly 3 min), 30 (weekly 10 min) or 60 minutes (weekly 15 min)")
    func sandboxRenewalRatesFollowApplesTable() {
        #expect(minutes(.sandboxMonthlyEveryThreeMinutes) == [3, 3, 6, 9, 18, 36])
        #expect(minutes(.sandboxMonthlyEveryFiveMinutes) == [3, 5, 10, 15, 30, 60])
        #expect(minutes(.sandboxMonthlyEveryThirtyMinutes) == [10, 30, 60, 90, 180, 360])
        #expect(minutes(.sandboxMonthlyEveryHour) == [15, 60, 120, 180, 360, 720])
        // Xcode's rates of the same names keep Apple's weekly durations too.
        #expect(minutes(.monthlyRenewalEveryFiveMinutes) == minutes(.sandboxMonthlyEveryFiveMinutes))
        #expect(minutes(.monthlyRenewalEveryHour) == minutes(.sandboxMonthlyEveryHour))
    }

    @Test("sandbox renewal rates: after 12 renewals auto-renew turns off and the subscription expires; Xcode's rates renew on")
    func sandboxStopsAfterTwelveRenewals() {
        var record = Fixture.record(expires: end)
        record.renewals = 12
        var expired = record
        (expired.state, expired.willAutoRenew, expired.expirationReason) = (.expired, false, .autoRenewDisabled)
        #expect(RenewalSchedule(rate: .sandboxMonthlyEveryFiveMinutes).step(record, period: Period(1, .month), at: end) == .change(expired, settled: true))
        #expect(RenewalSchedule(rate: .monthlyRenewalEveryFiveMinutes).step(record, period: Period(1, .month), at: end) == .renew(at: end))
        record.renewals = 11
        #expect(RenewalSchedule(rate: .sandboxMonthlyEveryFiveMinutes).step(record, period: Period(1, .month), at: end) == .renew(at: end))
    }

    @Test("under a oneRenewalEvery… rate every period lasts one interval, a yearly plan and a 3-day trial alike")
    func oneRenewalEveryCompressesEveryPeriodToTheInterval() {
        let fast = RenewalSchedule(rate: .oneRenewalEveryTenSeconds)
        let start = Fixture.date("2027-01-01T00:00:00Z")
        for period in [Period(1, .year), Period(3, .day), Period(1, .week)] {
            #expect(fast.end(of: period, from: start) == start.addingTimeInterval(10), "\(period)")
        }
        let renewal = fast.renewal(of: Fixture.record(), to: "pro.monthly", period: Period(1, .year), at: start)
        #expect(renewal.expirationDate == start.addingTimeInterval(10))
    }

    @Test("under \"1 second is 1 day\" a month lasts its calendar days in seconds: 30 s from Oct 31 or Nov 1, 31 s from Dec 1")
    func dayRatesCountCalendarDays() {
        let start = Fixture.date("2027-10-31T21:54:32Z")
        #expect(RenewalSchedule(rate: .oneSecondIsOneDay).end(of: Period(1, .month), from: start) == start.addingTimeInterval(30))
        let november = Fixture.date("2027-11-01T00:00:00Z")
        #expect(RenewalSchedule(rate: .oneSecondIsOneDay).end(of: Period(1, .month), from: november) == november.addingTimeInterval(30))
        let december = Fixture.date("2027-12-01T00:00:00Z")
        #expect(RenewalSchedule(rate: .oneSecondIsOneDay).end(of: Period(1, .month), from: december) == december.addingTimeInterval(31))
    }

    @Test("under a time rate grace lasts 15 s (9 s weekly) and billing retry 1 min, as Xcode's table for a 30-second month")
    func compressedGraceAndBillingRetry() {
        let failing = RenewalSchedule(rate: .monthlyRenewalEveryThirtySeconds, billingRetryOnRenewal: true, gracePeriod: true)
        let end = Fixture.date("2027-03-01T10:00:00Z")
        for (period, grace) in [(Period(1, .month), 15.0), (Period(1, .week), 9)] {
            guard case .change(let next, _)? = failing.step(Fixture.record(expires: end), period: period, at: end) else {
                Issue.record("no step for \(period)")
                continue
            }
            #expect(next.gracePeriodEnd == end.addingTimeInterval(grace), "\(period)")
            #expect(next.billingRetryEnd == end.addingTimeInterval(60))
        }
    }

    @Test("notification retries are compressed by the time rate: the last, 72 h after, comes 3 s after under a 30-second month")
    func notificationRetriesCompressed() throws {
        let start = Fixture.date("2027-03-01T10:00:00Z")
        let last = try #require(RetrySchedule.nextAttempt(afterFailures: 5, lastAt: start, rate: .monthlyRenewalEveryThirtySeconds))
        #expect(abs(last.timeIntervalSince(start) - 3) < 0.001)
        #expect(abs((RetrySchedule.nextAttempt(afterFailures: 5, lastAt: start)?.timeIntervalSince(start) ?? 0) - 72 * 3600) < 0.001)
    }

    @Test("real time keeps the calendar: a month ends on the anniversary day")
    func realTimeKeepsTheCalendar() {
        let start = Fixture.date("2027-01-31T10:00:00Z")
        #expect(Fixture.day(RenewalSchedule(rate: .realTime).end(of: Period(1, .month), from: start, anchorDay: 31)) == "2027-02-28")
    }

    @Test("a pay-as-you-go offer discounts each renewal, for its own period, until its periods run out")
    func payAsYouGoRenewals() {
        var record = Fixture.record()
        let offer = SubscriptionRecord.CarriedOffer(type: .introductory, id: nil, period: Period(1, .week), priceMilliunits: 990, remainingPeriods: 2)
        record.offer = offer
        let start = Fixture.date("2027-01-01T00:00:00Z")
        let first = schedule.renewal(of: record, to: record.productID, period: Period(1, .month), at: start)
        #expect(first.discount == offer)
        #expect(first.offerLeft?.remainingPeriods == 1)
        #expect(first.expirationDate == Fixture.days(7, after: start))
        record.offer = first.offerLeft
        let last = schedule.renewal(of: record, to: record.productID, period: Period(1, .month), at: first.expirationDate)
        #expect(last.discount?.priceMilliunits == 990)
        #expect(last.offerLeft == nil)
    }

    @Test("a renewal to another product (a downgrade taking effect) ends the offer and runs the new product's period")
    func planChangeEndsOffer() {
        var record = Fixture.record()
        record.offer = .init(type: .introductory, id: nil, period: Period(1, .week), priceMilliunits: 990, remainingPeriods: 2)
        let start = Fixture.date("2027-01-01T00:00:00Z")
        let renewal = schedule.renewal(of: record, to: "plus.yearly", period: Period(1, .year), at: start)
        #expect(renewal.discount == nil)
        #expect(renewal.offerLeft == nil)
        #expect(Fixture.day(renewal.expirationDate) == "2028-01-01")
    }

    @Test("an offer code redeemed by a subscriber discounts the renewal to the code's product")
    func redeemedCodeDiscountsRenewalToItsProduct() {
        var record = Fixture.record()
        record.offer = .init(type: .code, id: "Plus Trial", period: Period(1, .month), priceMilliunits: 0, remainingPeriods: 1)
        let start = Fixture.date("2027-01-01T00:00:00Z")
        let renewal = schedule.renewal(of: record, to: "plus.monthly", period: Period(1, .month), at: start)
        #expect(renewal.discount?.priceMilliunits == 0)
        #expect(renewal.offerLeft == nil)
    }
}
