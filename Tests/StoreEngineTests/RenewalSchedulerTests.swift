import Foundation
import Testing
import StorefrontTestSupport
import StoreCore
@testable import StoreEngine

@Suite("Renewal scheduler: what falls due on the store clock, and what a renewal buys (plain values)")
struct RenewalSchedulerTests {
    static let terms = RenewalTerms(catalog: Repo.catalog, appTransactionID: "1")
    static func scheduler(billingRetry: Bool = false) -> RenewalScheduler {
        RenewalScheduler(schedule: RenewalSchedule(rate: .realTime, billingRetryOnRenewal: billingRetry), terms: terms)
    }

    static func record(expires: Date, willAutoRenew: Bool = true) -> SubscriptionRecord {
        var record = Fixture.record(product: ID.proMonthly, expires: expires, willAutoRenew: willAutoRenew)
        record.groupID = ID.group
        return record
    }

    @Test("only subscriptions whose period ended are due")
    func due() {
        let now = Fixture.date("2027-03-01T10:00:00Z")
        let ended = Self.record(expires: Fixture.days(-1, after: now)), running = Self.record(expires: Fixture.days(1, after: now))
        #expect(Self.scheduler().due([ended, running], at: now) == [ended])
    }

    @Test("a subscription renews at the end of each period that ended, in order, until one is still running")
    func renewsEveryPeriodDue() throws {
        let start = Fixture.date("2027-01-01T10:00:00Z")
        var renewals: [Date] = []
        try Self.scheduler().process(Self.record(expires: start), until: Fixture.days(70, after: start), renew: { record, date in
            renewals.append(date)
            var next = record
            next.expirationDate = Period(1, .month).advance(date)
            return next
        }, change: { _, _ in Issue.record("no state change was due") })
        #expect(renewals.map(Fixture.day) == ["2027-01-01", "2027-02-01", "2027-03-01"])
    }

    @Test("with auto-renew off it expires and stays so; with billing retry on it fails to renew instead")
    func expiresOrFails() throws {
        let end = Fixture.date("2027-01-01T10:00:00Z")
        var changes: [(SubscriptionState, SubscriptionState)] = []
        let renew: (SubscriptionRecord, Date) throws -> SubscriptionRecord = { record, _ in Issue.record("no renewal was due"); return record }
        try Self.scheduler().process(Self.record(expires: end, willAutoRenew: false), until: Fixture.days(90, after: end),
                                     renew: renew, change: { changes.append(($1.state, $0.state)) })
        try Self.scheduler(billingRetry: true).process(Self.record(expires: end), until: Fixture.days(1, after: end),
                                                      renew: renew, change: { changes.append(($1.state, $0.state)) })
        #expect(changes.map { "\($0.0)→\($0.1)" } == ["subscribed→expired", "subscribed→inBillingRetryPeriod"])
    }

    @Test("a renewal charges where it was last bought, or an agreed price increase; an unanswered increase renews at the old price")
    func price() throws {
        let item = try #require(Repo.catalog.product(ID.proMonthly))
        let listed = try #require(item.price(in: "GBR", on: .upFront))
        var record = Self.record(expires: .now)
        #expect(Self.scheduler().price(of: record, to: item, on: .upFront, lastBoughtIn: "GBR", storefront: "USA") == listed)
        record.increasedPriceMilliunits = 12_000
        record.priceIncrease = .notYetResponded
        #expect(Self.scheduler().price(of: record, to: item, on: .upFront, lastBoughtIn: "GBR", storefront: "USA") == listed)
        record.priceIncrease = .agreed
        #expect(Self.scheduler().price(of: record, to: item, on: .upFront, lastBoughtIn: "GBR", storefront: "USA") == 12)
    }

    @Test("a renewal keeps the last transaction's owner and account token, runs one period, and uses up an agreed increase")
    func renewal() throws {
        let item = try #require(Repo.catalog.product(ID.proMonthly))
        let date = Fixture.date("2027-02-01T10:00:00Z")
        var last = Fixture.payload(product: ID.proMonthly)
        last.ownership = .familyShared
        last.appAccountToken = UUID()
        var record = Self.record(expires: date)
        record.priceIncrease = .agreed
        let new = Fixture.payload(product: ID.proMonthly, purchased: date)
        let (payload, next) = Self.scheduler().renewal(of: record, last: last, to: item, on: .upFront, payload: new, at: date)
        #expect(payload.ownership == .familyShared)
        #expect(payload.appAccountToken == last.appAccountToken)
        #expect(Fixture.day(payload.expirationDate) == "2027-03-01")
        #expect(payload.offerType == nil)
        #expect(next.priceIncrease == nil)
        #expect(next.anchorDay == 1)
    }
}
