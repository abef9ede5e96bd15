import Foundation
import Testing
import StoreCore
@testable import StoreEngine

@Suite("Offer eligibility and pricing (plain values)")
struct OfferEligibilityTests {
    let trial = SubscriptionOffer(type: .introductory, paymentMode: .freeTrial, period: Period(1, .week))
    let comeBack = SubscriptionOffer(id: "comeback", type: .promotional, paymentMode: .payUpFront, period: Period(3, .month), prices: ["USA": 9.99])
    let winBack = SubscriptionOffer(id: "winback", type: .winBack, paymentMode: .payAsYouGo, period: Period(1, .month), periodCount: 3,
                                    prices: ["USA": 1.99])
    var terms: SubscriptionTerms {
        SubscriptionTerms(groupID: "membership", level: 1, period: Period(1, .month), introductoryOffer: trial,
                          promotionalOffers: [comeBack], winBackOffers: [winBack])
    }

    let new = OfferEligibility(history: [])
    let subscribed = OfferEligibility(history: [Fixture.record(.subscribed)])
    let lapsed = OfferEligibility(history: [Fixture.record(.expired)])

    func promotion(offer: String = "comeback", product: String = "pro.monthly", used: Bool = false) -> SignedPromotion {
        SignedPromotion(productID: product, offerID: offer, nonce: "n1", isNonceUsed: used)
    }

    func purchase(_ eligibility: OfferEligibility, _ options: PurchaseOptions = PurchaseOptions(),
                  promotion: SignedPromotion? = nil) throws -> SubscriptionOffer? {
        try eligibility.offer(for: "pro.monthly", terms: terms, requested: options, promotion: promotion)
    }

    /// A history whose subscription received an introductory offer.
    func hadIntro(_ state: SubscriptionState) -> OfferEligibility {
        var record = Fixture.record(state)
        record.introOfferReceived = true
        return OfferEligibility(history: [record])
    }

    @Test("an introductory offer is once per subscription group: a customer who received one in the group is not eligible")
    func introOncePerGroup() throws {
        #expect(new.isEligibleForIntroOffer)
        #expect(try purchase(new) == trial)
        #expect(!hadIntro(.expired).isEligibleForIntroOffer)
        #expect(try purchase(hadIntro(.expired)) == nil)
        #expect(try purchase(hadIntro(.subscribed)) == nil)
    }

    @Test("intro eligibility: a lapsed subscriber who never received an introductory offer in the group is eligible again")
    func introEligibleAfterLapseWithoutIntro() throws {
        #expect(lapsed.isEligibleForIntroOffer)
        #expect(try purchase(lapsed) == trial)
        var before = Fixture.record(.expired)
        before.introOfferReceived = nil  // a record written before the rule: counts as received
        #expect(!OfferEligibility(history: [before]).isEligibleForIntroOffer)
    }

    @Test("intro eligibility: none while subscribed to the group (billing retry too), a crossgrade gets none; a family member's subscription does not count")
    func noIntroWhileSubscribed() throws {
        var own = Fixture.record(.subscribed)
        own.introOfferReceived = false
        #expect(!OfferEligibility(history: [own]).isEligibleForIntroOffer)
        #expect(try purchase(OfferEligibility(history: [own])) == nil)
        own.state = .inBillingRetryPeriod
        #expect(!OfferEligibility(history: [own]).isEligibleForIntroOffer)
        var shared = Fixture.record(.subscribed)
        (shared.introOfferReceived, shared.familyShared) = (false, true)
        #expect(OfferEligibility(history: [shared]).isEligibleForIntroOffer)
    }

    @Test("the customer is new to a group, existing while subscribed (billing retry too), expired once lapsed")
    func customerKinds() {
        #expect(new.customer == .new)
        #expect(subscribed.customer == .existing)
        #expect(OfferEligibility(history: [Fixture.record(.inGracePeriod)]).customer == .existing)
        #expect(OfferEligibility(history: [Fixture.record(.inBillingRetryPeriod)]).customer == .existing)
        #expect(lapsed.customer == .expired)
        #expect(OfferEligibility(history: [Fixture.record(.revoked), Fixture.record(.subscribed)]).customer == .existing)
    }

    @Test("a promotional offer needs a known offer ID, then a signature, then one for this offer and product, unused")
    func promotionalChecks() throws {
        let signed = PurchaseOptions(promotionalOffer: ("comeback", "jws"))
        #expect(throws: StoreFailure.purchase(.invalidOfferIdentifier)) {
            try purchase(subscribed, PurchaseOptions(promotionalOffer: ("nope", nil)), promotion: promotion())
        }
        #expect(throws: StoreFailure.purchase(.missingOfferParameters)) {
            try purchase(subscribed, PurchaseOptions(promotionalOffer: ("comeback", "")), promotion: promotion())
        }
        #expect(throws: StoreFailure.purchase(.invalidOfferSignature)) { try purchase(subscribed, signed, promotion: nil) }
        #expect(throws: StoreFailure.purchase(.invalidOfferSignature)) { try purchase(subscribed, signed, promotion: promotion(offer: "other")) }
        #expect(throws: StoreFailure.purchase(.invalidOfferSignature)) { try purchase(subscribed, signed, promotion: promotion(product: "plus.monthly")) }
        #expect(throws: StoreFailure.purchase(.invalidOfferSignature)) { try purchase(subscribed, signed, promotion: promotion(used: true)) }
        #expect(try purchase(subscribed, signed, promotion: promotion()) == comeBack)
    }

    @Test("a promotional offer is for existing or lapsed subscribers of the group, never a new customer")
    func promotionalNeedsHistory() throws {
        let signed = PurchaseOptions(promotionalOffer: ("comeback", "jws"))
        #expect(throws: StoreFailure.purchase(.ineligibleForOffer)) { try purchase(new, signed, promotion: promotion()) }
        #expect(try purchase(lapsed, signed, promotion: promotion()) == comeBack)
    }

    @Test("a win-back offer is for lapsed subscribers only, while it is marked eligible")
    func winBackForLapsed() throws {
        let asked = PurchaseOptions(winBackOfferID: "winback")
        #expect(try purchase(lapsed, asked) == winBack)
        #expect(throws: StoreFailure.purchase(.ineligibleForOffer)) { try purchase(subscribed, asked) }
        #expect(throws: StoreFailure.purchase(.ineligibleForOffer)) { try purchase(new, asked) }
        #expect(throws: StoreFailure.purchase(.invalidOfferIdentifier)) { try purchase(lapsed, PurchaseOptions(winBackOfferID: "nope")) }
        var switchedOff = terms
        switchedOff.winBackOffers[0].isEligible = false
        #expect(throws: StoreFailure.purchase(.ineligibleForOffer)) {
            try lapsed.offer(for: "pro.monthly", terms: switchedOff, requested: asked, promotion: nil)
        }
    }

    @Test("an offer asked for on a product that is not a subscription is ignored: it is bought at its price")
    func noOffersOffSubscriptions() throws {
        #expect(try new.offer(for: "gems", terms: nil, requested: PurchaseOptions(winBackOfferID: "winback"), promotion: nil) == nil)
        #expect(try new.offer(for: "gems", terms: nil, requested: PurchaseOptions(promotionalOffer: ("promo_123", "jws")), promotion: nil) == nil)
        #expect(try new.offer(for: "gems", terms: nil, requested: PurchaseOptions(), promotion: nil) == nil)
    }

    @Test("an offer charges its price (one period's for pay as you go), nothing for a free trial or a code's outright grant")
    func offerCharges() {
        #expect(trial.charge(in: "USA") == 0)
        #expect(comeBack.charge(in: "USA") == Decimal(string: "9.99"))
        #expect(winBack.charge(in: "USA") == Decimal(string: "1.99"))
        let grant = SubscriptionOffer(type: .code, paymentMode: .oneTime, period: Period(1, .day), prices: ["USA": 5])
        #expect(grant.charge(in: "USA") == 0)
    }

    @Test("the first transaction of pay as you go lasts one period; pay up front and free trials the whole offer")
    func firstPeriods() {
        #expect(winBack.firstPeriod == Period(1, .month))
        #expect(SubscriptionOffer(type: .introductory, paymentMode: .payUpFront, period: Period(2, .month), periodCount: 3).firstPeriod
                == Period(6, .month))
        #expect(trial.firstPeriod == Period(1, .week))
    }

    @Test("pay as you go carries its offer on to the renewals after the first, at the first's price per item")
    func payAsYouGoCarriesOn() throws {
        var payload = Fixture.payload(priceMilliunits: 3_980, quantity: 2)
        payload.offerType = .winBack
        payload.offerID = "winback"
        payload.offerPaymentMode = .payAsYouGo
        payload.offerPeriod = Period(3, .month)
        let carried = try #require(SubscriptionRecord.CarriedOffer(after: payload, offer: winBack))
        #expect(carried == .init(type: .winBack, id: "winback", period: Period(1, .month), priceMilliunits: 1_990, remainingPeriods: 2))
        var single = winBack
        single.periodCount = 1
        #expect(SubscriptionRecord.CarriedOffer(after: payload, offer: single) == nil)
        payload.offerPaymentMode = .payUpFront
        #expect(SubscriptionRecord.CarriedOffer(after: payload, offer: winBack) == nil)
    }

    @Test("offerPeriod is the whole offer's duration: 1 month × 2 periods is P2M")
    func offerPeriodIsTheWholeDuration() {
        #expect(SubscriptionOffer(type: .introductory, paymentMode: .payAsYouGo, period: Period(1, .month), periodCount: 2).duration.iso == "P2M")
        #expect(winBack.duration == Period(3, .month))
        #expect(trial.duration == Period(1, .week))
    }

    @Test("an offer code a subscriber redeems discounts the renewals from the next one: each period of pay as you go, else the whole offer once")
    func redeemedCodeStartsAtNextRenewal() {
        var code = SubscriptionOffer(id: "Two Months", type: .code, paymentMode: .payAsYouGo, period: Period(1, .month), periodCount: 2,
                                     prices: ["USA": 1.99])
        #expect(SubscriptionRecord.CarriedOffer(redeemed: code, for: "pro", storefront: "USA")
                == .init(type: .code, id: "Two Months", period: Period(1, .month), priceMilliunits: 1_990, remainingPeriods: 2, productID: "pro"))
        code.paymentMode = .freeTrial
        #expect(SubscriptionRecord.CarriedOffer(redeemed: code, for: "pro", storefront: "USA")
                == .init(type: .code, id: "Two Months", period: Period(2, .month), priceMilliunits: 0, remainingPeriods: 1, productID: "pro"))
    }
}
