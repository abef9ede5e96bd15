import Foundation
import Testing
import StoreCore
@testable import StoreEngine

@Suite("Subscription controls: which subscription a tester acts on, and what each control makes of it (plain values)")
struct SubscriptionControlsTests {
    @Test("a control acts on the customer's own subscription in the group, a family member's only when theirs alone is for the product")
    func target() throws {
        let own = Fixture.record(product: "pro.monthly"), family = Fixture.record(product: "plus.monthly", familyShared: true)
        #expect(try SubscriptionControls.target("pro.yearly", own: own, inGroup: [own, family], active: false) == own)
        #expect(try SubscriptionControls.target("plus.monthly", own: own, inGroup: [own, family], active: false) == family)
        #expect(try SubscriptionControls.target("plus.monthly", own: nil, inGroup: [family], active: false) == family)
        #expect(throws: TestControlError("no subscription in pro.yearly's group")) {
            try SubscriptionControls.target("pro.yearly", own: nil, inGroup: [], active: false)
        }
        #expect(throws: TestControlError("the subscription to pro.monthly is expired: buy it again first")) {
            try SubscriptionControls.target("pro.monthly", own: Fixture.record(.expired), inGroup: [], active: true)
        }
    }

    @Test("auto-renew switches only to what it is not")
    func autoRenew() throws {
        #expect(try SubscriptionControls.autoRenew(Fixture.record(), enabled: false).willAutoRenew == false)
        #expect(throws: TestControlError("auto-renew is already on for pro.monthly")) {
            try SubscriptionControls.autoRenew(Fixture.record(), enabled: true)
        }
    }

    @Test("a price increase asks a fifth more; asked again while it waits, it is the same increase; its answer is recorded")
    func priceIncrease() throws {
        let asked = try SubscriptionControls.priceIncreaseRequested(Fixture.record(), listed: 9_990, currency: "USD")
        #expect(asked.priceIncrease == .notYetResponded)
        #expect(asked.increasedPriceMilliunits == SubscriptionRecord.increased(9_990, currency: "USD"))
        #expect(try SubscriptionControls.priceIncreaseRequested(asked, listed: 12_990, currency: "USD") == asked)
        #expect(try SubscriptionControls.priceIncreaseAnswered(asked, agree: true).priceIncrease == .agreed)
        let declined = try SubscriptionControls.priceIncreaseAnswered(asked, agree: false)
        #expect(declined.priceIncrease == .declined && !declined.willAutoRenew)
        // Auto-renew turned back on: the increase waits for consent again, as renewal info then says.
        #expect(try SubscriptionControls.autoRenew(declined, enabled: true).priceIncrease == .notYetResponded)
        #expect(throws: TestControlError("no price increase is waiting for consent")) {
            try SubscriptionControls.priceIncreaseAnswered(Fixture.record(), agree: true)
        }
    }

    @Test("a declined increase asked again starts from the increased price it declined")
    func increaseAfterDecline() throws {
        var declined = try SubscriptionControls.priceIncreaseRequested(Fixture.record(), listed: 9_990, currency: "USD")
        declined = try SubscriptionControls.priceIncreaseAnswered(declined, agree: false)
        let again = try SubscriptionControls.priceIncreaseRequested(declined, listed: 9_990, currency: "USD")
        #expect(again.increasedPriceMilliunits == SubscriptionRecord.increased(SubscriptionRecord.increased(9_990, currency: "USD"), currency: "USD"))
    }

    @Test("a billing issue resolves only in billing retry or grace")
    func billingIssue() throws {
        #expect(try SubscriptionControls.billingIssue(Fixture.record(.inGracePeriod), productID: "pro.monthly").state == .inGracePeriod)
        #expect(throws: TestControlError("pro.monthly is not in billing retry")) {
            try SubscriptionControls.billingIssue(Fixture.record(), productID: "pro.monthly")
        }
    }
}
