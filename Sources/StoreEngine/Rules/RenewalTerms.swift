import Foundation
import StoreCore

/// What a subscription renews to, as the catalog defines it: the billing plan, the offer it carries,
/// and the renewal info that says so. A value, so a catch-up builds renewal info on the signing core.
struct RenewalTerms: Sendable {
    let catalog: Catalog
    /// The app's install (`AppTransaction`), which every renewal info names.
    let appTransactionID: String

    /// The catalog's definition of an offer a subscription carries to its next renewals.
    func offerDefinition(_ carried: SubscriptionRecord.CarriedOffer, productID: String, plan: BillingPlanType?) -> SubscriptionOffer? {
        offerDefinition(type: carried.type, id: carried.id, productID: productID, plan: plan ?? .upFront)
    }

    /// An offer by its type and ID; an introductory offer is the billing plan's own.
    func offerDefinition(type: OfferType, id: String?, productID: String, plan: BillingPlanType) -> SubscriptionOffer? {
        let terms = catalog.product(productID)?.subscription
        switch type {
        case .introductory: return terms?.introductoryOffer(on: plan)
        case .promotional: return terms?.promotionalOffers.first { $0.id == id }
        case .winBack: return terms?.winBackOffers.first { $0.id == id }
        case .code: return catalog.offerCodes.first { $0.productID == productID && $0.referenceName == id }?.offer
        }
    }

    /// The pay-as-you-go offer a transaction begins, to carry on to its renewals.
    func carriedOffer(_ payload: TransactionPayload) -> SubscriptionRecord.CarriedOffer? {
        guard let type = payload.offerType, let offer = offerDefinition(type: type, id: payload.offerID, productID: payload.productID,
                                                                        plan: payload.billingPlanType ?? .upFront) else {
            return nil
        }
        return SubscriptionRecord.CarriedOffer(after: payload, offer: offer)
    }

    /// The billing plan a subscription renews on: its own while the product it renews to sells that
    /// plan, else up front; nil when that product has no billing plans.
    func renewalPlan(_ record: SubscriptionRecord, to item: CatalogProduct?) -> BillingPlanType? {
        guard let terms = item?.subscription, !terms.billingPlans.isEmpty else { return nil }
        return record.billingPlan.flatMap { terms.billingPlan($0)?.type } ?? .upFront
    }

    /// The subscription's renewal info in `storefront` and `environment`, signed at `date`.
    func renewalInfo(_ record: SubscriptionRecord, storefront: Storefront, environment: StoreEnvironment, at date: Date) -> RenewalInfoPayload {
        let next = catalog.product(record.autoRenewProductID)
        let plan = renewalPlan(record, to: next)
        var info = record.renewalInfo(next: (next?.price(in: storefront.code, on: plan ?? .upFront).map(LocalAppStore.milliunits),
                                             next?.subscription?.winBackOffers.filter(\.isEligible).compactMap(\.id) ?? []),
                                      currency: storefront.currency, signedDate: date, appTransactionID: appTransactionID)
        info.environment = environment.rawValue
        info.renewalBillingPlanType = plan
        // The next period's offer, when one discounts it (intro period 2 of 3, a redeemed code, …), and its price.
        if let offer = record.offer, info.willAutoRenew, let definition = offerDefinition(offer, productID: record.autoRenewProductID, plan: plan) {
            info.offerType = offer.type
            info.offerID = offer.id
            info.offerPaymentMode = definition.paymentMode
            info.offerPeriod = definition.duration
            info.renewalPriceMilliunits = offer.priceMilliunits
        }
        return info
    }
}
