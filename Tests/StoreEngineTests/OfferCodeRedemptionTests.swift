import Foundation
import Testing
import StoreCore
@testable import StoreEngine

@Suite("Offer code redemption (plain values)")
struct OfferCodeRedemptionTests {
    let now = Fixture.date("2027-06-01T12:00:00Z")

    func redemption(_ code: OfferCode, redemptions: Int = 0, sold: Bool = true, customer: CustomerEligibility = .new,
                    owns: Bool = false, subscription: Bool = false) -> OfferCodeRedemption {
        OfferCodeRedemption(code: code, redemptions: redemptions, isSoldInStorefront: sold, customer: customer, alreadyOwns: owns,
                            isSubscription: subscription)
    }

    @Test("an active subscriber may redeem a code for existing subscribers: its offer starts at the next renewal")
    func existingSubscriberRedeemsForNextRenewal() {
        let offer = SubscriptionOffer(type: .code, paymentMode: .freeTrial, period: Period(1, .month))
        let forExisting = OfferCode(code: "STAY", productID: "plus.monthly", offer: offer, eligibility: [.existing])
        let subscriber = redemption(forExisting, customer: .existing, owns: true, subscription: true)
        #expect(subscriber.refusal(at: now) == nil)
        #expect(subscriber.startsAtNextRenewal)
        #expect(redemption(forExisting, customer: .new, subscription: true).refusal(at: now) == .notEligible)
        // Without an offer there is nothing to add to a subscription the customer has.
        let grant = OfferCode(code: "GRANT", productID: "plus.monthly", eligibility: [.existing])
        #expect(redemption(grant, customer: .existing, owns: true, subscription: true).refusal(at: now) == .alreadyOwned)
        #expect(!redemption(forExisting, customer: .expired, subscription: true).startsAtNextRenewal)
    }

    @Test("a code expires at its expiry date, not a second before")
    func expiry() {
        let code = OfferCode(code: "LAUNCH", productID: "gems", expires: now)
        #expect(redemption(code).refusal(at: now.addingTimeInterval(-1)) == nil)
        #expect(redemption(code).refusal(at: now) == .expired)
    }

    @Test("a code is used up once its redemptions reach the limit; without a limit it never is")
    func redemptionLimit() {
        let code = OfferCode(code: "ONESHOT", productID: "gems", redemptionLimit: 2)
        #expect(redemption(code, redemptions: 1).refusal(at: now) == nil)
        #expect(redemption(code, redemptions: 2).refusal(at: now) == .usedUp)
        #expect(redemption(OfferCode(code: "ALWAYS", productID: "gems"), redemptions: 10_000).refusal(at: now) == nil)
    }

    @Test("a code for a product not sold in the customer's storefront is refused")
    func storefront() {
        #expect(redemption(OfferCode(code: "X", productID: "gems"), sold: false).refusal(at: now) == .notAvailableInStorefront)
    }

    @Test("a code is only for the customers it names: new, existing or expired")
    func eligibility() {
        let forNew = OfferCode(code: "WELCOME", productID: "pro.monthly", eligibility: [.new])
        #expect(redemption(forNew, customer: .new).refusal(at: now) == nil)
        #expect(redemption(forNew, customer: .existing).refusal(at: now) == .notEligible)
        #expect(redemption(forNew, customer: .expired).refusal(at: now) == .notEligible)
        let forLapsed = OfferCode(code: "MISSYOU", productID: "pro.monthly", eligibility: [.expired])
        #expect(redemption(forLapsed, customer: .expired).refusal(at: now) == nil)
    }

    @Test("a code for what the customer already owns or is subscribed to is refused")
    func alreadyOwned() {
        #expect(redemption(OfferCode(code: "X", productID: "removeads"), customer: .existing, owns: true).refusal(at: now) == .alreadyOwned)
    }

    @Test("the checks go in the App Store's order: expired, used up, storefront, eligibility, ownership")
    func order() {
        let code = OfferCode(code: "ALL", productID: "gems", eligibility: [.new], redemptionLimit: 1, expires: now)
        #expect(redemption(code, redemptions: 1, sold: false, customer: .existing, owns: true).refusal(at: now) == .expired)
        let later = now.addingTimeInterval(-60)
        #expect(redemption(code, redemptions: 1, sold: false, customer: .existing, owns: true).refusal(at: later) == .usedUp)
        #expect(redemption(code, sold: false, customer: .existing, owns: true).refusal(at: later) == .notAvailableInStorefront)
        #expect(redemption(code, customer: .existing, owns: true).refusal(at: later) == .notEligible)
    }

    @Test("a code grants its offer under the code's reference name, reported as the offerIdentifier")
    func grantsItsOffer() {
        let half = SubscriptionOffer(type: .code, paymentMode: .payUpFront, period: Period(1, .year), prices: ["USA": 24.99])
        let offer = redemption(OfferCode(code: "HALF2027", referenceName: "Half off", productID: "pro.yearly", offer: half)).offer
        #expect(offer.id == "Half off")
        #expect(offer.paymentMode == .payUpFront)
        #expect(offer.period == Period(1, .year))
    }

    @Test("a code without an offer grants the product outright: a one-time offer at no charge")
    func grantsTheProduct() {
        let offer = redemption(OfferCode(code: "FREEGEMS", productID: "gems")).offer
        #expect(offer.type == .code)
        #expect(offer.paymentMode == .oneTime)
        #expect(offer.id == "FREEGEMS")
        #expect(offer.charge(in: "USA") == 0)
    }
}
