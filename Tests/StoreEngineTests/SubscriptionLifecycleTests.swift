import Foundation
import Testing
import StoreCore
@testable import StoreEngine

@Suite("Subscription lifecycle and renewal info (plain values)")
struct SubscriptionLifecycleTests {
    let bought = Fixture.date("2027-01-15T09:00:00Z")

    func purchase(_ product: String = "pro.monthly", on date: Date? = nil, reason: TransactionPayload.Reason = .purchase,
                  original: Int64 = 7) -> TransactionPayload {
        let start = date ?? bought
        var payload = Fixture.payload(product: product, purchased: start, expires: Period(1, .month).advance(start))
        payload.subscriptionGroupID = "membership"
        payload.originalTransactionID = original
        payload.reason = reason
        return payload
    }

    @Test("a first purchase starts a subscription, subscribed until the transaction expires, renewing to the same product")
    func firstPurchaseStarts() throws {
        var record = try #require(SubscriptionRecord(startedBy: purchase()))
        record.take(purchase(), offer: nil)
        #expect(record.state == .subscribed)
        #expect(record.expirationDate == Fixture.date("2027-02-15T09:00:00Z"))
        #expect(record.autoRenewProductID == "pro.monthly")
        #expect(record.recentStartDate == bought)
        #expect(record.anchorDay == 15)
        #expect(SubscriptionRecord(startedBy: Fixture.payload(type: .nonConsumable)) == nil)
    }

    @Test("a renewal continues the run: start date, anniversary day and auto-renew choice stay; billing trouble is over")
    func renewalContinuesRun() throws {
        var record = try #require(SubscriptionRecord(startedBy: purchase()))
        record.take(purchase(), offer: nil)
        record.state = .inBillingRetryPeriod
        record.billingRetryEnd = Fixture.date("2027-04-15T09:00:00Z")
        record.willAutoRenew = false
        record.anchorDay = 31
        record.take(purchase(on: Fixture.date("2027-02-15T09:00:00Z"), reason: .renewal), offer: nil)
        #expect(record.state == .subscribed)
        #expect(record.billingRetryEnd == nil)
        #expect(record.recentStartDate == bought)
        #expect(record.anchorDay == 31)
        #expect(!record.willAutoRenew)
        #expect(record.expirationDate == Fixture.date("2027-03-15T09:00:00Z"))
    }

    @Test("coming back after lapsing starts a new run on the anniversary of the new purchase, renewing to what was bought")
    func comingBackStartsNewRun() throws {
        var record = try #require(SubscriptionRecord(startedBy: purchase()))
        record.state = .expired
        record.expirationReason = .autoRenewDisabled
        record.autoRenewProductID = "plus.monthly"
        let back = Fixture.date("2027-06-03T09:00:00Z")
        let offer = SubscriptionRecord.CarriedOffer(type: .winBack, id: "winback", period: Period(1, .month), priceMilliunits: 1_990, remainingPeriods: 2)
        record.take(purchase(on: back), offer: offer)
        #expect(record.state == .subscribed)
        #expect(record.expirationReason == nil)
        #expect(record.autoRenewProductID == "pro.monthly")
        #expect(record.recentStartDate == back)
        #expect(record.anchorDay == 3)
        #expect(record.offer == offer)
    }

    @Test("recentSubscriptionStartDate ignores lapses of paid service shorter than 60 days, and upgrades; a longer lapse starts it again")
    func recentStartIgnoresShortLapses() throws {
        var record = try #require(SubscriptionRecord(startedBy: purchase()))
        record.take(purchase(), offer: nil)
        record.state = .expired  // on 2027-02-15
        record.take(purchase(on: Fixture.date("2027-03-20T09:00:00Z")), offer: nil)
        #expect(record.recentStartDate == bought, "33 days without service")
        record.take(purchase("pro.yearly", on: Fixture.date("2027-04-01T09:00:00Z")), offer: nil)
        #expect(record.recentStartDate == bought, "an upgrade: no lapse at all")
        record.state = .expired  // on 2027-05-01
        let back = Fixture.date("2027-07-01T09:00:00Z")
        record.take(purchase(on: back), offer: nil)
        #expect(record.recentStartDate == back, "61 days without service")
        record.state = .revoked  // refunded: paid service ended then, however far off the expiry was
        let again = Fixture.date("2027-07-10T09:00:00Z")
        record.take(purchase(on: again), offer: nil)
        #expect(record.recentStartDate == again)
    }

    @Test("coming back ends any price increase of the lapsed run")
    func comingBackEndsPriceIncrease() throws {
        var record = try #require(SubscriptionRecord(startedBy: purchase()))
        record.priceIncrease = .declined
        record.state = .expired
        record.take(purchase(on: Fixture.date("2027-06-03T09:00:00Z")), offer: nil)
        #expect(record.priceIncrease == nil)
    }

    @Test("buying again in a group ends the customer's lapsed subscriptions there; a revoked one stays revoked")
    func buyingAgainEndsLapsed() {
        var retrying = Fixture.record(.inBillingRetryPeriod)
        retrying.originalID = 3
        #expect(retrying.ended(by: purchase())?.state == .expired)
        var revoked = Fixture.record(.revoked)
        revoked.originalID = 3
        #expect(revoked.ended(by: purchase())?.state == .revoked)
    }

    @Test("renewals, family sharing, the same subscription and active ones are not ended by a purchase")
    func whatBuyingAgainLeaves() {
        var lapsed = Fixture.record(.expired)
        lapsed.originalID = 3
        #expect(lapsed.ended(by: purchase(reason: .renewal)) == nil)
        var shared = purchase()
        shared.ownership = .familyShared
        #expect(lapsed.ended(by: shared) == nil)
        #expect(lapsed.ended(by: purchase(original: 3)) == nil)
        var sharedRecord = Fixture.record(.expired, familyShared: true)
        sharedRecord.originalID = 3
        #expect(sharedRecord.ended(by: purchase()) == nil)
        var active = Fixture.record(.inGracePeriod)
        active.originalID = 3
        #expect(active.ended(by: purchase()) == nil)
    }

    func info(_ record: SubscriptionRecord) -> RenewalInfoPayload {
        record.renewalInfo(next: (9_990, ["winback"]), currency: "USD", signedDate: bought, appTransactionID: "1")
    }

    @Test("renewal info of a lapsed subscription: its renewal date still (when it expired), its expiration reason and its eligible win-back offers")
    func lapsedRenewalInfo() {
        var record = Fixture.record(.expired)
        record.expirationReason = .billingError
        let payload = info(record)
        #expect(!payload.willAutoRenew)
        #expect(payload.renewalDate == record.expirationDate, "always present for an auto-renewable subscription, even expired")
        #expect(payload.expirationReason == .billingError)
        #expect(payload.eligibleWinBackOfferIDs == ["winback"])
    }

    @Test("renewal info of an active subscription: renews on its expiration date at the next product's price, no win-back")
    func activeRenewalInfo() {
        var record = Fixture.record(.subscribed, expires: Fixture.date("2027-03-01T10:00:00Z"))
        record.expirationReason = .autoRenewDisabled
        let payload = info(record)
        #expect(payload.willAutoRenew)
        #expect(payload.renewalDate == Fixture.date("2027-03-01T10:00:00Z"))
        #expect(payload.renewalPriceMilliunits == 9_990)
        #expect(payload.expirationReason == nil)
        #expect(payload.eligibleWinBackOfferIDs.isEmpty)
        #expect(!info(Fixture.record(.revoked)).willAutoRenew)
    }

    @Test("renewal info in grace period: in billing retry for a billing error, with the grace period's end; in billing retry alone, no grace date")
    func billingRenewalInfo() {
        var grace = Fixture.record(.inGracePeriod)
        grace.gracePeriodEnd = Fixture.date("2027-03-17T10:00:00Z")
        #expect(info(grace).isInBillingRetry)
        #expect(info(grace).expirationReason == .billingError, "read together with isInBillingRetry, as Apple's page says")
        #expect(info(grace).gracePeriodExpirationDate == Fixture.date("2027-03-17T10:00:00Z"))
        var retry = grace
        retry.state = .inBillingRetryPeriod
        #expect(info(retry).isInBillingRetry)
        #expect(info(retry).gracePeriodExpirationDate == nil)
        #expect(info(retry).expirationReason == .billingError)
    }

    @Test("a declined price increase is no longer pending (auto-renew is off instead); an agreed one is agreed")
    func priceIncreaseStatus() {
        var record = Fixture.record()
        record.priceIncrease = .declined
        #expect(info(record).priceIncreaseStatus == nil)
        record.priceIncrease = .agreed
        #expect(info(record).priceIncreaseStatus == .agreed)
        record.priceIncrease = nil
        #expect(info(record).priceIncreaseStatus == nil)
    }
}

@Suite("Subscription lifecycle: active and expired by hand (plain values)")
struct SubscriptionActivityTests {
    @Test("a subscription is active while subscribed, in grace period or in billing retry; not once expired or revoked")
    func activeStates() {
        #expect([SubscriptionState.subscribed, .inGracePeriod, .inBillingRetryPeriod, .expired, .revoked].map { Fixture.record($0).isActive }
                == [true, true, true, false, false])
    }

    @Test("expiring by hand ends the period now, keeps an earlier end and reason, else gives autoRenewDisabled")
    func expireByHand() {
        let now = Fixture.date("2027-02-10T00:00:00Z")
        var running = Fixture.record(expires: Fixture.date("2027-03-01T10:00:00Z"))
        running.expire(at: now)
        #expect(running.state == .expired)
        #expect(running.expirationDate == now)
        #expect(running.expirationReason == .autoRenewDisabled)
        #expect(!running.willAutoRenew)
        var failed = Fixture.record(.inBillingRetryPeriod, expires: Fixture.date("2027-02-01T10:00:00Z"))
        failed.expirationReason = .billingError
        failed.expire(at: now)
        #expect(failed.expirationDate == Fixture.date("2027-02-01T10:00:00Z"))
        #expect(failed.expirationReason == .billingError)
    }
}
