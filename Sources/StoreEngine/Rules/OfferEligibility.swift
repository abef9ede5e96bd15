import Foundation
import StoreCore

/// Which offer a subscription purchase gets, and who may have one, from the customer's history
/// in the product's subscription group.
struct OfferEligibility {
    /// The customer's subscriptions in the group, current and lapsed.
    var history: [SubscriptionRecord]

    /// Introductory offers: once per subscription group per customer, who is eligible until they have
    /// *received* one in the group (a lapsed subscriber who never had one is eligible again), and never
    /// while subscribed to the group (they are for new subscribers: StoreKit Testing answers false
    /// for another product of the group, and a crossgrade gets none).
    var isEligibleForIntroOffer: Bool { !history.contains { ($0.introOfferReceived ?? true) || (!$0.familyShared && $0.isActive) } }

    /// Who the customer is, as offer codes and win-back offers see it.
    var customer: CustomerEligibility {
        if history.isEmpty { return .new }
        return history.contains(where: \.isActive) ? .existing : .expired
    }

    /// Win-back offers are for lapsed subscribers of the group, and only while the offer is open to them.
    func mayHave(winBack offer: SubscriptionOffer) -> Bool { offer.isEligible && customer == .expired }

    /// The offer a purchase of `productID` gets: the promotional or win-back offer asked for, else
    /// the introductory offer when the customer is eligible, each only among the offers of the
    /// billing plan bought (`options.billingPlan`). `terms` is nil for a product that is
    /// not a subscription; `promotion` is what the promotional offer's signature says, nil when it
    /// does not verify. Throws in the order StoreKit checks.
    func offer(for productID: String, terms: SubscriptionTerms?, requested options: PurchaseOptions,
               promotion: SignedPromotion?) throws -> SubscriptionOffer? {
        // Offers are a subscription's: asked for on anything else, StoreKit buys it at its price (flutter's
        // plugin tests buy a consumable with a promotional offer under StoreKit Testing and expect success).
        guard let terms else { return nil }
        if let requested = options.promotionalOffer {
            guard let offer = terms.promotionalOffers.first(where: { $0.id == requested.id && $0.billingPlan == options.billingPlan }) else {
                throw StoreFailure.purchase(.invalidOfferIdentifier)
            }
            guard let signature = requested.signature, !signature.isEmpty else { throw StoreFailure.purchase(.missingOfferParameters) }
            guard let promotion, promotion.grants(offerID: requested.id, on: productID) else {
                throw StoreFailure.purchase(.invalidOfferSignature)
            }
            // Promotional offers are for existing or lapsed subscribers of the group.
            guard !history.isEmpty else { throw StoreFailure.purchase(.ineligibleForOffer) }
            return offer
        }
        if let winBackID = options.winBackOfferID {
            guard let offer = terms.winBackOffers.first(where: { $0.id == winBackID && $0.billingPlan == options.billingPlan }) else {
                throw StoreFailure.purchase(.invalidOfferIdentifier)
            }
            guard mayHave(winBack: offer) else { throw StoreFailure.purchase(.ineligibleForOffer) }
            return offer
        }
        return isEligibleForIntroOffer ? terms.introductoryOffer(on: options.billingPlan) : nil
    }
}

/// What a verified promotional offer signature says, and whether its nonce was used before.
struct SignedPromotion: Equatable {
    var productID: String?
    var offerID: String?
    var nonce: String
    var isNonceUsed: Bool

    /// A signature grants one offer on one product, once.
    func grants(offerID: String, on productID: String) -> Bool {
        self.productID == productID && self.offerID == offerID && !isNonceUsed
    }
}

/// What an offer charges and how long its first transaction lasts.
extension SubscriptionOffer {
    /// The first transaction's price: nothing for a code that grants a product outright, else the
    /// offer's price (one period's for pay as you go, the whole offer's for pay up front).
    func charge(in storefront: String) -> Decimal {
        paymentMode == .oneTime ? 0 : price(in: storefront)
    }

    /// The first transaction's length: one discounted period for pay as you go (each renewal is
    /// another), the whole offer otherwise.
    var firstPeriod: Period {
        paymentMode == .payAsYouGo ? period : duration
    }

    /// The whole offer's length, as signed data's `offerPeriod` gives it (1 month × 2 periods is `P2M`).
    var duration: Period {
        Period(period.value * periodCount, period.unit)
    }
}

extension SubscriptionRecord.CarriedOffer {
    /// Pay as you go discounts each of its `periodCount` periods: the renewals after a
    /// transaction's first period carry its offer on, at its price per item. Nil for other offers.
    init?(after payload: TransactionPayload, offer: SubscriptionOffer) {
        guard payload.offerPaymentMode == .payAsYouGo, let type = payload.offerType, offer.periodCount > 1 else { return nil }
        self.init(type: type, id: payload.offerID, period: offer.period,
                  priceMilliunits: payload.priceMilliunits / Int64(max(payload.quantity, 1)), remainingPeriods: offer.periodCount - 1)
    }

    /// An offer a subscriber redeems (a code, a promotional offer) for `productID`: it discounts the
    /// renewals to it from the next one on, each discounted period of pay as you go, or the whole
    /// offer at once (a free trial, pay up front).
    init(redeemed offer: SubscriptionOffer, for productID: String, storefront: String) {
        let payAsYouGo = offer.paymentMode == .payAsYouGo
        self.init(type: offer.type, id: offer.id, period: offer.firstPeriod,
                  priceMilliunits: LocalAppStore.milliunits(offer.charge(in: storefront)),
                  remainingPeriods: payAsYouGo ? offer.periodCount : 1, productID: productID)
    }
}
