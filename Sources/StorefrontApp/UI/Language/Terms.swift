import Foundation
import StoreCore

/// Prices, periods and offer terms in the customer's language: the amounts from Foundation's
/// formatters (`Product.format`), the period names from the ICU Foundation formats with
/// (`PeriodNames`), the sentence around them from the table.
extension StringTable {
    /// "$9.99/month", "9,99 €/Monat"; the plain price for anything but a subscription.
    func priceWithPeriod(_ p: Product) -> String {
        p.subscription.map { per($0.period, p.displayPrice, p) } ?? p.displayPrice
    }

    /// "1 week free, then 4,99 €/Monat": an offer followed by the regular price on the offer's plan.
    func offerText(_ p: Product, _ offer: SubscriptionOffer) -> String {
        let price = p.format(offer.price(in: p.storefront))
        let length = p.words(Period(offer.period.value * offer.periodCount, offer.period.unit))
        let terms = switch offer.paymentMode {
        case .freeTrial: self(.termsFree, ["length": length])
        case .payAsYouGo: self(.termsPayAsYouGo, ["price": price, "unit": unit(offer.period, p), "length": length])
        case .payUpFront: self(.termsPayUpFront, ["price": price, "length": length])
        case .oneTime: self(.termsOnce, ["price": price])
        }
        guard p.subscription != nil, offer.paymentMode != .oneTime else { return terms }
        return self(.termsThen, ["offer": terms, "regular": planText(p, offer.billingPlan) ?? priceWithPeriod(p)])
    }

    /// What a plan charges: "$29.99/year" up front, "$2.99/month, 12-month commitment" monthly; nil when not sold on it.
    func planText(_ p: Product, _ plan: BillingPlanType) -> String? {
        guard let terms = p.subscription, let billing = terms.billingPlan(plan) else { return nil }
        let price = p.format(billing.price(in: p.storefront, listed: p.price))
        let period = terms.billingPeriod(on: plan)
        guard plan == .monthly else { return per(period, price, p) }
        return self(.monthlyCommitment, ["price": price, "unit": unit(period, p),
                                         "months": "\(billing.billingPeriodsPerCommitment)"])
    }

    /// A price for one period: "¥800/月", "4,99 €/Monat".
    func per(_ period: Period, _ price: String, _ p: Product) -> String {
        self(.perPeriod, ["price": price, "unit": unit(period, p)])
    }

    /// What follows the "/": the unit for one ("month", "Monat", "月"), else the whole length ("3 months").
    func unit(_ period: Period, _ p: Product) -> String {
        period.value == 1 ? perUnit[period.unit] ?? PeriodNames.per(period, locale: p.locale) : PeriodNames.per(period, locale: p.locale)
    }
}

/// StoreKit's errors and product types in the customer's language (`StoreFailure.message` is the
/// English the command line prints).
extension StringTable {
    /// What the customer reads when a call fails: the error's localized description.
    func message(for failure: StoreFailure) -> String {
        switch failure {
        case .storeKit(let e):
            switch e {
            case .unknown: self(.errorUnknown)
            case .userCancelled: self(.errorUserCancelled)
            case .networkError: self(.errorNetwork)
            case .systemError: self(.errorSystem)
            case .notAvailableInStorefront: self(.errorNotAvailableInStorefront)
            case .notEntitled: self(.errorNotEntitled)
            case .unsupported: self(.errorUnsupported)
            }
        case .purchase(let e):
            switch e {
            case .invalidQuantity: self(.errorInvalidQuantity)
            case .productUnavailable: self(.errorProductUnavailable)
            case .purchaseNotAllowed: self(.errorPurchaseNotAllowed)
            case .ineligibleForOffer: self(.errorIneligibleForOffer)
            case .invalidOfferIdentifier: self(.errorInvalidOfferIdentifier)
            case .invalidOfferPrice: self(.errorInvalidOfferPrice)
            case .invalidOfferSignature: self(.errorInvalidOfferSignature)
            case .missingOfferParameters: self(.errorMissingOfferParameters)
            }
        case .verification(let e): self(.errorVerification, ["error": e.rawValue])
        case .refund(.duplicateRequest): self(.errorRefundDuplicate)
        case .refund(.failed): self(.errorRefundFailed)
        case .offerCode(let e):
            switch e {
            case .unknownCode: self(.errorCodeUnknown)
            case .usedUp: self(.errorCodeUsedUp)
            case .expired: self(.errorCodeExpired)
            case .notEligible: self(.errorCodeNotEligible)
            case .alreadyOwned: self(.errorCodeAlreadyOwned)
            case .notAvailableInStorefront: self(.errorCodeNotInStorefront)
            }
        }
    }

    /// "Auto-Renewable Subscription", "自動更新サブスクリプション".
    func name(of type: ProductType) -> String {
        switch type {
        case .consumable: self(.typeConsumable)
        case .nonConsumable: self(.typeNonConsumable)
        case .autoRenewable: self(.typeAutoRenewable)
        case .nonRenewing: self(.typeNonRenewing)
        }
    }
}
