import Foundation

/// A product as StoreKit's `Product` presents it: localized for one storefront and locale.
public struct Product: Hashable, Sendable, Identifiable {
    public var id: String
    public var type: ProductType
    public var displayName: String
    public var description: String
    public var price: Decimal
    /// Formatted when shown, not when the products load: a catalog may hold 100,000 of them.
    public var displayPrice: String { format(price) }
    public var currency: String
    public var locale: String
    public var storefront: String
    public var isFamilyShareable: Bool
    public var subscription: SubscriptionTerms?
    /// The subscription group's localized name.
    public var groupName: String?
    /// Non-renewing subscriptions: how long a purchase lasts.
    public var duration: Period?

    /// Formats another amount (an offer price) the way this product's price is formatted.
    public func format(_ amount: Decimal) -> String {
        PriceFormatter.displayPrice(amount, currency: currency, locale: locale)
    }
}

extension Catalog {
    /// `Product.products(for:)`: the products sold in the storefront, in catalog order; IDs that
    /// don't exist or aren't sold there are left out, never an error.
    public func products(for ids: [String]? = nil, storefront code: String, locale: String) -> [Product] {
        let wanted = ids.map(Set.init)
        var localizer = Localizer(catalog: self, storefront: code, locale: locale)
        var sold: [Product] = []
        sold.reserveCapacity(wanted?.count ?? products.count)  // growing by doubling reallocates 100,000 products 17 times
        for item in products where wanted?.contains(item.id) ?? true {
            if let product = localizer.product(item) { sold.append(product) }
        }
        return sold
    }

    /// One product in a storefront and locale; nil when the storefront doesn't sell it.
    public func localized(_ item: CatalogProduct, storefront code: String, locale: String) -> Product? {
        var localizer = Localizer(catalog: self, storefront: code, locale: locale)
        return localizer.product(item)
    }
}

/// Localizes products for one storefront and locale, choosing each group's name and each list of
/// locales' best match once: the products of a large catalog share a few of each.
private struct Localizer {
    let catalog: Catalog
    let code: String
    let storefront: Storefront?
    let locale: String
    private var groupNames: [String: String] = [:]
    private var matches: [[String]: String?] = [:]

    init(catalog: Catalog, storefront code: String, locale: String) {
        self.catalog = catalog
        self.code = code
        self.storefront = catalog.storefront(code)
        self.locale = locale
    }

    mutating func product(_ item: CatalogProduct) -> Product? {
        guard let price = item.prices[code], let storefront else { return nil }
        let text = item.localization(matching: match(item.localizations.map(\.locale)), requested: locale)
        return Product(
            id: item.id, type: item.type, displayName: text.displayName, description: text.description,
            price: price, currency: storefront.currency, locale: locale, storefront: code, isFamilyShareable: item.isFamilyShareable,
            subscription: item.subscription, groupName: item.subscription.flatMap { groupName($0.groupID) },
            duration: item.duration)
    }

    private mutating func match(_ locales: [String]) -> String? {
        if let known = matches[locales] { return known }
        let match = LocaleMatch.best(locale, among: locales)
        matches[locales] = match
        return match
    }

    private mutating func groupName(_ id: String) -> String? {
        if let known = groupNames[id] { return known }
        guard let name = catalog.group(id)?.name(for: locale) else { return nil }
        groupNames[id] = name
        return name
    }
}

extension CatalogProduct {
    /// The text for a locale, falling back `zh_CN` → `zh_Hans` → the first localization → the reference name.
    public func localization(for locale: String) -> Localization {
        localization(matching: LocaleMatch.best(locale, among: localizations.map(\.locale)), requested: locale)
    }

    /// The text of the locale `LocaleMatch` chose, else the first localization, else the reference name.
    func localization(matching match: String?, requested locale: String) -> Localization {
        if let match, let text = localizations.first(where: { $0.locale == match }) { return text }
        return localizations.first ?? Localization(locale: locale, displayName: referenceName, description: "")
    }
}

extension Product {
    /// "1 week free, then $9.99/month": the App Store's wording for an offer followed by the regular price.
    /// Periods are in the product's locale ("9,99 €/Monat"); the sentence around them is the tool's.
    /// An offer for the monthly plan is followed by the monthly price.
    public func offerText(_ offer: SubscriptionOffer) -> String {
        let then = subscription == nil ? "" : ", then " + (planText(offer.billingPlan) ?? priceWithPeriod)
        let price = format(offer.price(in: storefront))
        let length = words(Period(offer.period.value * offer.periodCount, offer.period.unit))
        switch offer.paymentMode {
        case .freeTrial: return "\(length) free" + then
        case .payAsYouGo: return "\(price)/\(PeriodNames.per(offer.period, locale: locale)) for \(length)" + then
        case .payUpFront: return "\(price) for \(length)" + then
        case .oneTime: return "\(price) once"
        }
    }

    /// "$9.99/month" ("9,99 €/Monat") for subscriptions, the plain display price otherwise.
    public var priceWithPeriod: String {
        subscription.map { "\(displayPrice)/\(PeriodNames.per($0.period, locale: locale))" } ?? displayPrice
    }

    /// One billing period's charge on a plan; nil when the product is not sold on it.
    public func billingPrice(on plan: BillingPlanType) -> Decimal? {
        subscription?.billingPlan(plan)?.price(in: storefront, listed: price)
    }

    /// What a plan charges, as the App Store shows it: "$29.99/year" up front, "$2.99/month, 12-month
    /// commitment" monthly; nil when the product is not sold on the plan.
    public func planText(_ plan: BillingPlanType) -> String? {
        guard let terms = subscription, let billing = terms.billingPlan(plan) else { return nil }
        let each = "\(format(billing.price(in: storefront, listed: price)))/\(PeriodNames.per(terms.billingPeriod(on: plan), locale: locale))"
        return plan == .monthly ? "\(each), \(billing.billingPeriodsPerCommitment)-month commitment" : each
    }

    /// The whole commitment's price on a plan, formatted ("$35.88"); nil when not sold on it.
    public func commitmentText(_ plan: BillingPlanType) -> String? {
        subscription?.billingPlan(plan).map { format($0.commitmentPrice(in: storefront, listed: price)) }
    }

    /// A length of time in the product's locale: "3 months", "3 Monate".
    public func words(_ period: Period) -> String { PeriodNames.duration(period, locale: locale) }
}
