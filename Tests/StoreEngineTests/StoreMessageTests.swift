import Foundation
import StoreCore
import Testing
@testable import StoreEngine

/// `StoreMessage`: which message the App Store has for one subscription status, from plain values.
@Suite struct StoreMessageTests {
    static func info(priceIncrease: RenewalInfoPayload.PriceIncreaseStatus? = nil, winBacks: [String] = []) -> RenewalInfoPayload {
        RenewalInfoPayload(originalTransactionID: 7, productID: "pro.monthly", autoRenewProductID: "pro.monthly", willAutoRenew: true,
                           priceIncreaseStatus: priceIncrease, renewalDate: nil, currency: "USD", eligibleWinBackOfferIDs: winBacks,
                           signedDate: Fixture.date("2027-01-01T00:00:00Z"), appTransactionID: "1")
    }

    static func reason(_ state: SubscriptionState, _ info: RenewalInfoPayload = info(), shared: Bool = false,
                       offered: [String] = []) -> StoreMessage.Reason? {
        var t = Fixture.payload()
        if shared { t.ownership = .familyShared }
        return StoreMessage.for(state, transaction: t, renewalInfo: info, winBackOfferIDs: offered)?.reason
    }

    @Test func aPriceIncreaseAsksConsentOnlyWhileAccessLasts() {
        #expect(Self.reason(.subscribed, Self.info(priceIncrease: .notYetResponded)) == .priceIncreaseConsent)
        #expect(Self.reason(.inGracePeriod, Self.info(priceIncrease: .notYetResponded)) == .priceIncreaseConsent)
        #expect(Self.reason(.subscribed, Self.info(priceIncrease: .agreed)) == nil)
        #expect(Self.reason(.subscribed) == nil)
    }

    @Test func aBillingIssueIsShownInGraceAndInRetry() {
        #expect(Self.reason(.inBillingRetryPeriod) == .billingIssue)
        #expect(Self.reason(.inGracePeriod) == .billingIssue)
    }

    @Test func aWinBackOfferOnlyOnceExpiredAndOnlyOneTheProductHas() {
        #expect(Self.reason(.expired, Self.info(winBacks: ["back"]), offered: ["back"]) == .winBackOffer)
        #expect(Self.reason(.expired, Self.info(winBacks: ["gone"]), offered: ["back"]) == nil)
        #expect(Self.reason(.subscribed, Self.info(winBacks: ["back"]), offered: ["back"]) == nil)
        #expect(StoreMessage.for(.expired, transaction: Fixture.payload(), renewalInfo: Self.info(winBacks: ["x", "back"]),
                                 winBackOfferIDs: ["back"])?.winBackOfferID == "back")
    }

    @Test func aFamilyMembersSharedSubscriptionHasNoMessages() {
        #expect(Self.reason(.inBillingRetryPeriod, shared: true) == nil)
    }

    @Test func eachMessageIsNamedBySubscriptionAndWhatItIsAbout() {
        let t = Fixture.payload()
        let retry = StoreMessage.for(.inBillingRetryPeriod, transaction: t, renewalInfo: Self.info(), winBackOfferIDs: [])
        let began = Int64(t.originalPurchaseDate.timeIntervalSince1970 * 1000)
        #expect(retry?.key == "billingIssue:7@\(began):7" && retry?.productID == "pro.monthly" && retry?.transactionID == 7)
    }

    /// Xcode's test environment numbers transactions from 0 again after a clear: a message already given for
    /// subscription 0 must not hide the next subscription 0's.
    @Test func aSubscriptionWithTheIDOfOneClearedIsAnotherSubscriptionsMessage() {
        var before = Fixture.payload(), after = Fixture.payload()
        (before.transactionID, before.originalTransactionID, after.transactionID, after.originalTransactionID) = (0, 0, 0, 0)
        after.originalPurchaseDate = before.originalPurchaseDate.addingTimeInterval(60)
        let keys = [before, after].map { StoreMessage.for(.inBillingRetryPeriod, transaction: $0, renewalInfo: Self.info(), winBackOfferIDs: [])?.key }
        #expect(keys[0] != nil && keys[0] != keys[1])
    }
}
