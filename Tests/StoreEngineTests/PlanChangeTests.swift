import Foundation
import Testing
import StoreCore
@testable import StoreEngine

@Suite("Plan changes and proration (plain values)")
struct PlanChangeTests {
    /// Level 1 is the highest service level.
    let proMonthly = ("pro.monthly", SubscriptionTerms(groupID: "membership", level: 1, period: Period(1, .month)))
    let proYearly = ("pro.yearly", SubscriptionTerms(groupID: "membership", level: 1, period: Period(1, .year)))
    let plusMonthly = ("plus.monthly", SubscriptionTerms(groupID: "membership", level: 2, period: Period(1, .month)))
    let plusYearly = ("plus.yearly", SubscriptionTerms(groupID: "membership", level: 2, period: Period(1, .year)))

    @Test("an upgrade (to a higher service level) takes effect at once, whatever the period")
    func upgradeIsImmediate() {
        #expect(PlanChange(from: plusMonthly, to: proMonthly) == .immediate)
        #expect(PlanChange(from: plusMonthly, to: proYearly) == .immediate)
    }

    @Test("a downgrade (to a lower service level) takes effect at the next renewal")
    func downgradeAtRenewal() {
        #expect(PlanChange(from: proYearly, to: plusYearly) == .atRenewal)
        #expect(PlanChange(from: proMonthly, to: plusYearly) == .atRenewal)
    }

    @Test("a crossgrade takes effect at once with the same period, else at the next renewal")
    func crossgradeByPeriod() {
        let proMonthlyTwin = ("pro.monthly.family", proMonthly.1)
        #expect(PlanChange(from: proMonthly, to: proMonthlyTwin) == .immediate)
        #expect(PlanChange(from: proMonthly, to: proYearly) == .atRenewal)
        #expect(PlanChange(from: plusYearly, to: plusMonthly) == .atRenewal)
    }

    @Test("buying the product already subscribed to is no change")
    func sameProduct() {
        #expect(PlanChange(from: proMonthly, to: proMonthly) == .alreadySubscribed)
    }

    let start = Fixture.date("2027-01-01T00:00:00Z")
    var thirtyDays: Proration { Proration(start: start, end: Fixture.days(30, after: start)) }

    @Test("an upgrade refunds the unused part of the replaced transaction's price, to the nearest milliunit")
    func upgradeRefund() {
        #expect(thirtyDays.upgradeRefund(ofMilliunits: 9_990, at: Fixture.days(15, after: start)) == 4_995)
        #expect(thirtyDays.upgradeRefund(ofMilliunits: 10_000, at: Fixture.days(20, after: start)) == 3_333)
        #expect(thirtyDays.upgradeRefund(ofMilliunits: 1_000, at: Fixture.days(10, after: start)) == 667)
    }

    @Test("a prorated refund's revocationPercentage is the unused part in milliunits of a percent")
    func proratedRevocationPercentage() {
        #expect(thirtyDays.revocationPercentage(at: Fixture.days(22.5, after: start)) == 25_000)
        #expect(thirtyDays.revocationPercentage(at: start) == 100_000)
        #expect(thirtyDays.revocationPercentage(at: Fixture.days(10, after: start)) == 66_667, "rounded, as Apple's, not cut")
    }

    @Test("unused time is all of it before the period starts, none after it ends, none without a period")
    func unusedTimeBounds() {
        #expect(thirtyDays.unusedFraction(at: Fixture.days(-5, after: start)) == 1)
        #expect(thirtyDays.unusedFraction(at: Fixture.days(31, after: start)) == 0)
        #expect(Proration(start: start, end: nil).unusedFraction(at: start) == 0)
        #expect(Proration(start: start, end: start).unusedFraction(at: start) == 0)
    }
}
