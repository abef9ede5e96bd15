import Foundation

/// Everything the App Store knows about one app's in-app purchases: the validated, in-memory form
/// of `catalog.json` or an imported `.storekit` file.
public struct Catalog: Sendable, Equatable {
    public var app: AppInfo
    public var storefronts: [Storefront]
    /// All products in catalog order; subscriptions appear in their group's order.
    public var products: [CatalogProduct] { didSet { index = Self.positions(products.map(\.id)) } }
    public var subscriptionGroups: [SubscriptionGroup] { didSet { groupIndex = Self.positions(subscriptionGroups.map(\.id)) } }
    public var offerCodes: [OfferCode]
    public var settings: TestSettings
    /// What loading noticed and worked around, for the tester (a `.storekit` file's code collisions).
    public var warnings: [String] = []
    /// An Xcode `.storekit` file: each product has one price, which every storefront shows in its own
    /// currency (0.99 is ¥1 in Japan), as Xcode does; the storefront says so where the price is a surprise.
    public var hasOnePrice = false
    /// The promotional-offer key a `.storekit` file carries (`subscriptionOffersKeyPair`): Xcode checks the
    /// app's offer signatures against it, so the store accepts what it signs, under its (8-character) key ID.
    public var offerSigningKey: OfferSigningKey?

    public struct OfferSigningKey: Sendable, Equatable {
        public var keyID: String
        /// PKCS#8, as an App Store Connect `.p8`.
        public var privateKeyPEM: String
    }

    /// The one-line notice for a `.storekit` catalog's prices in a storefront of another currency than
    /// the file was priced in (taken as the first storefront's); nil when there is nothing to say.
    public func onePriceNotice(in storefront: Storefront) -> String? {
        guard hasOnePrice, let priced = storefronts.first, storefront.currency != priced.currency else { return nil }
        return "one price for every storefront, as Xcode shows a .storekit file: \(storefront.currency) amounts are the file's \(priced.currency) numbers"
    }

    public init(app: AppInfo, storefronts: [Storefront], products: [CatalogProduct],
                subscriptionGroups: [SubscriptionGroup] = [], offerCodes: [OfferCode] = [],
                settings: TestSettings = TestSettings()) {
        self.app = app
        self.storefronts = storefronts
        self.products = products
        self.subscriptionGroups = subscriptionGroups
        self.offerCodes = offerCodes
        self.settings = settings
        self.index = Self.positions(products.map(\.id))
        self.groupIndex = Self.positions(subscriptionGroups.map(\.id))
    }

    /// Where each product and group is, by ID (the first, if one is repeated).
    private var index: [String: Int]
    private var groupIndex: [String: Int]

    private static func positions(_ ids: [String]) -> [String: Int] {
        var index: [String: Int] = [:]
        index.reserveCapacity(ids.count)
        // Last to first, so the first of a repeated ID is the one kept.
        for position in ids.indices.reversed() { index[ids[position]] = position }
        return index
    }

    public static func == (a: Catalog, b: Catalog) -> Bool {
        a.app == b.app && a.storefronts == b.storefronts && a.products == b.products
            && a.subscriptionGroups == b.subscriptionGroups && a.offerCodes == b.offerCodes && a.settings == b.settings
    }

    /// No two products share an ID (the index kept one of each).
    var productIDsAreUnique: Bool { index.count == products.count }

    public func product(_ id: String) -> CatalogProduct? { index[id].map { products[$0] } }

    public func storefront(_ code: String) -> Storefront? { storefronts.first { $0.code == code.uppercased() } }

    public func group(_ id: String) -> SubscriptionGroup? { groupIndex[id].map { subscriptionGroups[$0] } }

    /// A group as a tester names it: by its ID, its reference name or one of its localized names.
    public func group(named name: String) -> SubscriptionGroup? {
        group(name) ?? subscriptionGroups.first { $0.referenceName == name || $0.localizedNames.values.contains(name) }
    }

    /// The products of a group, highest service level (1) first.
    public func subscriptions(inGroup id: String) -> [CatalogProduct] {
        products.filter { $0.subscription?.groupID == id }.sorted { $0.subscription!.level < $1.subscription!.level }
    }

    public func offerCode(_ code: String) -> OfferCode? {
        let wanted = OfferCode.normalize(code)
        // Xcode redeems a `.storekit` code offer by its reference name: that works too, when no code is spelled so.
        return offerCodes.first { OfferCode.normalize($0.code) == wanted }
            ?? offerCodes.first { OfferCode.normalize($0.referenceName) == wanted }
    }

    /// The locales the catalog has text for, in first-seen order.
    public var locales: [String] {
        var seen: [String] = []
        for product in products { for l in product.localizations where !seen.contains(l.locale) { seen.append(l.locale) } }
        return seen
    }
}

/// The app the products belong to.
public struct AppInfo: Hashable, Sendable {
    public var name: String
    public var bundleID: String
    /// What `AppTransaction` reports for the customer's first download.
    public var originalAppVersion: String
    public var appVersion: String
    public var originalPurchaseDate: Date?
    public var originalPlatform: String
    /// The app's Apple ID in App Store Connect (`appAppleId`): in AppTransaction, and required by
    /// Apple's verifier in Production.
    public var appAppleID: Int64?
    /// When the customer pre-ordered the app (`AppTransaction.preorderDate`); nil when they did not.
    public var preorderDate: Date?
    /// The App Store's identifier of the app version (`AppTransaction.appVersionID`, `versionExternalIdentifier` in the JWS).
    public var versionExternalIdentifier: Int64?
    /// The app's Info.plist `SKIncludeConsumableInAppPurchaseHistory` (iOS 18+): `Transaction.all` and
    /// `latest(for:)` keep finished consumables too. Off, StoreKit leaves them out unless refunded or revoked.
    public var includesConsumableHistory = false
    /// Where the app's Terms of Service (its license agreement) and Privacy Policy are read: the links a
    /// paywall shows (`subscriptionStorePolicyDestination`); nil: Apple's standard EULA, and no privacy link.
    public var termsOfServiceURL: String?
    public var privacyPolicyURL: String?
    /// The app's age rating as the App Store codes it (`AppStore.ageRatingCode`); nil: none to report.
    public var ageRatingCode: Int?

    public init(name: String, bundleID: String, originalAppVersion: String = "1.0", appVersion: String = "1.0",
                originalPurchaseDate: Date? = nil, originalPlatform: String = "iOS", appAppleID: Int64? = nil,
                preorderDate: Date? = nil, versionExternalIdentifier: Int64? = nil) {
        self.appAppleID = appAppleID
        self.preorderDate = preorderDate
        self.versionExternalIdentifier = versionExternalIdentifier
        self.name = name
        self.bundleID = bundleID
        self.originalAppVersion = originalAppVersion
        self.appVersion = appVersion
        self.originalPurchaseDate = originalPurchaseDate
        self.originalPlatform = originalPlatform
    }
}

/// A product's text in one locale.
public struct Localization: Hashable, Sendable {
    public var locale: String
    public var displayName: String
    public var description: String

    public init(locale: String, displayName: String, description: String) {
        self.locale = locale
        self.displayName = displayName
        self.description = description
    }
}

/// A product as the catalog defines it, for every storefront and locale at once.
/// `Product` is its view in one storefront and locale.
public struct CatalogProduct: Hashable, Sendable, Identifiable {
    public var id: String
    public var type: ProductType
    public var referenceName: String
    public var localizations: [Localization]
    public var isFamilyShareable: Bool
    /// Price per storefront code; a storefront missing here does not sell the product.
    public var prices: [String: Decimal]
    /// For auto-renewable subscriptions.
    public var subscription: SubscriptionTerms?
    /// For non-renewing subscriptions: how long one purchase lasts (the app computes the end).
    public var duration: Period?

    public init(id: String, type: ProductType, referenceName: String, localizations: [Localization],
                isFamilyShareable: Bool = false, prices: [String: Decimal],
                subscription: SubscriptionTerms? = nil, duration: Period? = nil) {
        self.id = id
        self.type = type
        self.referenceName = referenceName
        self.localizations = localizations
        self.isFamilyShareable = isFamilyShareable
        self.prices = prices
        self.subscription = subscription
        self.duration = duration
    }
}

extension CatalogProduct {
    /// What one billing period costs in a storefront on a billing plan (a subscription's month on the
    /// monthly plan); nil when the product is not sold there, or not on that plan.
    public func price(in storefront: String, on plan: BillingPlanType) -> Decimal? {
        guard let listed = prices[storefront] else { return nil }
        guard let terms = subscription else { return plan == .upFront ? listed : nil }
        return terms.billingPlan(plan)?.price(in: storefront, listed: listed)
    }
}

/// An auto-renewable subscription's place in its group and its offers.
public struct SubscriptionTerms: Hashable, Sendable {
    public var groupID: String
    /// Service level: 1 is the highest.
    public var level: Int
    public var period: Period
    /// At most one per billing plan: each plan has its own introductory offer.
    public var introductoryOffers: [SubscriptionOffer]
    public var promotionalOffers: [SubscriptionOffer]
    public var winBackOffers: [SubscriptionOffer]
    /// How the customer may pay (`.storekit` 5.0+ `billingPlans`); empty: up front only, as before billing plans.
    public var billingPlans: [BillingPlan]

    public init(groupID: String, level: Int, period: Period, introductoryOffer: SubscriptionOffer? = nil,
                promotionalOffers: [SubscriptionOffer] = [], winBackOffers: [SubscriptionOffer] = [],
                billingPlans: [BillingPlan] = []) {
        self.groupID = groupID
        self.level = level
        self.period = period
        self.introductoryOffers = introductoryOffer.map { [$0] } ?? []
        self.promotionalOffers = promotionalOffers
        self.winBackOffers = winBackOffers
        self.billingPlans = billingPlans
    }

    /// The up-front plan's introductory offer (the one customers get when they choose no plan).
    public var introductoryOffer: SubscriptionOffer? {
        get { introductoryOffer(on: .upFront) }
        set { introductoryOffers = introductoryOffers.filter { $0.billingPlan != .upFront } + (newValue.map { [$0] } ?? []) }
    }

    public func introductoryOffer(on plan: BillingPlanType) -> SubscriptionOffer? {
        introductoryOffers.first { $0.billingPlan == plan }
    }

    public func offer(id: String) -> SubscriptionOffer? {
        (promotionalOffers + winBackOffers).first { $0.id == id }
    }

    /// The plan a customer may buy, nil when it is not sold: a subscription without billing plans
    /// is sold up front only; with plans, each enabled one.
    public func billingPlan(_ type: BillingPlanType) -> BillingPlan? {
        guard !billingPlans.isEmpty else { return type == .upFront ? BillingPlan(type: .upFront) : nil }
        return billingPlans.first { $0.type == type && $0.isEnabled }
    }

    /// How long one transaction on a plan lasts: a month on the monthly plan, the subscription's period up front.
    public func billingPeriod(on plan: BillingPlanType) -> Period {
        plan == .monthly ? Period(1, .month) : period
    }
}

/// StoreKit's `Product.SubscriptionInfo.BillingPlanType`, and signed data's `billingPlanType`.
public enum BillingPlanType: String, CaseIterable, Sendable {
    /// The whole period paid at once: StoreKit's default.
    case upFront
    /// Monthly payments for a 12-month commitment (a yearly subscription only).
    case monthly

    /// The `billingPlanType` / `renewalBillingPlanType` of signed data and `.storekit` files.
    public var signedName: String { self == .upFront ? "BILLED_UPFRONT" : "MONTHLY" }

    public init?(signedName: String) {
        guard let plan = Self.allCases.first(where: { $0.signedName == signedName }) else { return nil }
        self = plan
    }
}

/// One way to pay for a subscription (`Product.SubscriptionInfo.PricingTerms`): what each billing
/// period charges and what the whole commitment comes to.
public struct BillingPlan: Hashable, Sendable {
    public var type: BillingPlanType
    /// Per storefront: each billing period's charge (a month's on the monthly plan); empty: the product's price.
    public var prices: [String: Decimal]
    /// Per storefront: the whole commitment's price; empty: the billing price for every period of the commitment.
    public var commitmentPrices: [String: Decimal]
    /// A disabled plan is not sold (Xcode's `isEnabled`).
    public var isEnabled: Bool

    public init(type: BillingPlanType, prices: [String: Decimal] = [:], commitmentPrices: [String: Decimal] = [:], isEnabled: Bool = true) {
        self.type = type
        self.prices = prices
        self.commitmentPrices = commitmentPrices
        self.isEnabled = isEnabled
    }

    /// The monthly plan commits to 12 payments; up front, the one payment is the commitment.
    public var billingPeriodsPerCommitment: Int { type == .monthly ? 12 : 1 }

    /// One billing period's charge in a storefront; `listed` is the product's price there.
    public func price(in storefront: String, listed: Decimal) -> Decimal { prices[storefront] ?? listed }

    public func commitmentPrice(in storefront: String, listed: Decimal) -> Decimal {
        commitmentPrices[storefront] ?? price(in: storefront, listed: listed) * Decimal(billingPeriodsPerCommitment)
    }
}

/// StoreKit's `Product.SubscriptionOffer.OfferType`, and the `offerType` numbers of signed transactions.
public enum OfferType: String, CaseIterable, Sendable {
    case introductory, promotional, code, winBack

    public var signedValue: Int {
        switch self { case .introductory: 1; case .promotional: 2; case .code: 3; case .winBack: 4 }
    }
}

/// StoreKit's `PaymentMode` (plus `oneTime`, which code offers for non-subscriptions use).
public enum PaymentMode: String, CaseIterable, Sendable {
    case freeTrial, payAsYouGo, payUpFront, oneTime

    /// The `offerDiscountType` of signed transactions.
    public var signedName: String {
        switch self {
        case .freeTrial: "FREE_TRIAL"
        case .payAsYouGo: "PAY_AS_YOU_GO"
        case .payUpFront: "PAY_UP_FRONT"
        case .oneTime: "ONE_TIME"
        }
    }
}

/// An introductory, promotional, win-back or code offer on a subscription.
public struct SubscriptionOffer: Hashable, Sendable {
    /// Promotional and win-back offers have an ID; introductory offers don't.
    public var id: String?
    public var type: OfferType
    public var paymentMode: PaymentMode
    /// For pay as you go, the length of one discounted period; otherwise the whole offer's period.
    public var period: Period
    public var periodCount: Int
    /// Price per storefront (per period for pay as you go; the total for pay up front; empty for a free trial).
    public var prices: [String: Decimal]
    /// Win-back offers: eligibility switched by hand, as `.storekit`'s `isEligible`.
    public var isEligible: Bool
    /// The billing plan the offer is for: offered only to a purchase on that plan (up front unless the catalog says).
    public var billingPlan: BillingPlanType

    public init(id: String? = nil, type: OfferType, paymentMode: PaymentMode, period: Period, periodCount: Int = 1,
                prices: [String: Decimal] = [:], isEligible: Bool = true, billingPlan: BillingPlanType = .upFront) {
        self.billingPlan = billingPlan
        self.id = id
        self.type = type
        self.paymentMode = paymentMode
        self.period = period
        self.periodCount = periodCount
        self.prices = prices
        self.isEligible = isEligible
    }

    public func price(in storefront: String) -> Decimal {
        paymentMode == .freeTrial ? 0 : (prices[storefront] ?? 0)
    }
}

/// A group of auto-renewable subscriptions; a customer holds at most one of them at a time.
public struct SubscriptionGroup: Hashable, Sendable, Identifiable {
    public var id: String
    public var referenceName: String
    /// Localized group names by locale, in catalog order.
    public var localizedNames: [String: String]
    /// What a paywall shows above the group's plans, by locale.
    public var marketing: [String: GroupMarketing]

    public init(id: String, referenceName: String, localizedNames: [String: String] = [:], marketing: [String: GroupMarketing] = [:]) {
        self.id = id
        self.referenceName = referenceName
        self.localizedNames = localizedNames
        self.marketing = marketing
    }

    public func name(for locale: String) -> String {
        LocaleMatch.best(locale, among: Array(localizedNames.keys)).flatMap { localizedNames[$0] } ?? referenceName
    }

    /// The marketing content for a locale, by the same fallback as every text, then English, then the
    /// first locale by name (a dictionary has no order of its own); nil when the group has none.
    public func marketing(for locale: String) -> GroupMarketing? {
        let locales = marketing.keys.sorted()
        return (LocaleMatch.best(locale, among: locales) ?? LocaleMatch.best("en", among: locales) ?? locales.first).flatMap { marketing[$0] }
    }
}

/// A subscription group's marketing content in one locale: the header a `SubscriptionStoreView` shows
/// above the plans (`.storekit` files keep a group's `description` per locale, which is imported as `text`).
public struct GroupMarketing: Hashable, Sendable {
    public var headline: String
    public var text: String
    /// One line each, shown as a list.
    public var features: [String]

    public init(headline: String, text: String = "", features: [String] = []) {
        self.headline = headline
        self.text = text
        self.features = features
    }
}

/// Who may redeem an offer code.
public enum CustomerEligibility: String, CaseIterable, Sendable {
    /// Never subscribed in the product's group (for non-subscriptions: doesn't own the product).
    case new
    /// Subscribed now.
    case existing
    /// Subscribed before, lapsed now.
    case expired
}

/// A one-time code that grants a product, or an offer on a subscription.
public struct OfferCode: Hashable, Sendable {
    public var code: String
    public var referenceName: String
    public var productID: String
    /// For subscriptions: the discounted offer; nil grants the product at no charge (`oneTime` for non-subscriptions).
    public var offer: SubscriptionOffer?
    public var eligibility: Set<CustomerEligibility>
    /// Total redemptions allowed; nil is unlimited.
    public var redemptionLimit: Int?
    public var expires: Date?

    public init(code: String, referenceName: String? = nil, productID: String, offer: SubscriptionOffer? = nil,
                eligibility: Set<CustomerEligibility> = Set(CustomerEligibility.allCases),
                redemptionLimit: Int? = nil, expires: Date? = nil) {
        self.code = code
        self.referenceName = referenceName ?? code
        self.productID = productID
        self.offer = offer
        self.eligibility = eligibility
        self.redemptionLimit = redemptionLimit
        self.expires = expires
    }

    /// Codes are case-insensitive and ignore surrounding spaces.
    public static func normalize(_ code: String) -> String {
        code.trimmingCharacters(in: .whitespacesAndNewlines).uppercased()
    }
}
