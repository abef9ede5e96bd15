import Foundation

/// Reads Storefront's own catalog format, validating every field or failing with the one at fault.
struct CatalogReader {
    let file: String
    /// Whether errors name their field (see `JSONField.named`).
    var named = true
    var storefronts: [Storefront] = []
    private let seen = Seen()

    /// What reading has checked already: a large catalog's products share a few locales and price
    /// points, so each is validated once and each price list is one dictionary that they share.
    private final class Seen {
        var locales: Set<String> = []
        var prices: [PriceText: [String: Decimal]] = [:]
    }

    /// A price list as written (storefront codes and price texts, in order), to find one read before.
    private struct PriceText: Hashable {
        let members: [(key: String, value: JSONValue)]

        /// The prices alone (the storefront codes are usually the same list, and `==` compares them),
        /// folded into one number by FNV-1a: hashing each price text was a tenth of a large catalog's load.
        func hash(into hasher: inout Hasher) {
            var hash: UInt64 = 0xCBF2_9CE4_8422_2325
            for member in members {
                if case .string(var text) = member.value {
                    text.withUTF8 { for byte in $0 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 } }
                }
                hash = (hash ^ 0xFF) &* 0x100_0000_01B3
            }
            hasher.combine(hash)
        }

        /// Lists with a value that is not a string are never kept (reading them fails), so none equals one.
        static func == (a: PriceText, b: PriceText) -> Bool {
            guard a.members.count == b.members.count else { return false }
            for (x, y) in zip(a.members, b.members) {
                guard x.key == y.key, case .string(let p) = x.value, case .string(let q) = y.value, p == q else { return false }
            }
            return true
        }
    }

    init(file: String) { self.file = file }

    func field(_ value: JSONValue) -> JSONField { JSONField(value, file: file, named: named) }

    /// Products and subscription groups decoded while the document was parsed (the root then holds
    /// an empty array in their place).
    struct Streamed {
        var products: [CatalogProduct]?
        var groups: [(SubscriptionGroup, [CatalogProduct])]?
    }

    mutating func catalog(_ root: JSONField) throws -> Catalog {
        var none = Streamed()
        return try catalog(root, streamed: &none)
    }

    /// `streamed` is taken, so the products are appended to in place rather than copied.
    mutating func catalog(_ root: JSONField, streamed: inout Streamed) throws -> Catalog {
        try root.allowOnly(["$schema", "format", "app", "storefronts", "products", "subscriptionGroups", "offerCodes", "settings"])
        let app = try self.app(root.required("app"))
        storefronts = try root.required("storefronts").array().map(storefront)
        guard !storefronts.isEmpty else { throw try root.required("storefronts").error("list at least one storefront") }
        try checkUnique(storefronts.map(\.code), in: root.required("storefronts").array(), what: "storefront")

        var products = try streamed.products.take() ?? root.optional("products")?.array().map(product) ?? []
        let streamedGroups = streamed.groups != nil
        let read = try streamed.groups.take() ?? (root.optional("subscriptionGroups")?.array() ?? []).map(subscriptionGroup)
        products.reserveCapacity(read.reduce(products.count) { $0 + $1.1.count })
        var groups: [SubscriptionGroup] = []
        for (group, subscriptions) in read {
            groups.append(group)
            products += subscriptions
        }
        var catalog = Catalog(app: app, storefronts: storefronts, products: products, subscriptionGroups: groups)
        if !catalog.productIDsAreUnique { try checkUniqueProducts(products, root: root) }
        // Streamed groups have no fields to name, nor need any: that reading's errors name none.
        let groupFields = streamedGroups ? groups.map { _ in root } : try root.optional("subscriptionGroups")?.array() ?? []
        try checkUnique(groups.map(\.id), in: groupFields, what: "subscription group")

        let codes = try root.optional("offerCodes")?.array().map { try offerCode($0, catalog: catalog) } ?? []
        try checkUnique(codes.map { OfferCode.normalize($0.code) }, in: root.optional("offerCodes")?.array() ?? [], what: "offer code")
        let settings = try root.optional("settings").map(self.settings) ?? TestSettings()
        if settings.environment == .production, app.appAppleID == nil, let field = root.optional("settings")?.optional("environment") {
            throw field.error("Production needs the app's Apple ID: add app.appAppleId (Apple's verifier requires it in Production)")
        }
        // The same catalog, not a new one: its index of 100,000 products is built once.
        catalog.offerCodes = codes
        catalog.settings = settings
        return catalog
    }

    func app(_ field: JSONField) throws -> AppInfo {
        try field.allowOnly(["name", "bundleID", "version", "originalVersion", "originalPurchaseDate", "originalPlatform", "appAppleId",
                             "preorderDate", "versionExternalIdentifier", "includeConsumableInAppPurchaseHistory",
                             "termsOfServiceURL", "privacyPolicyURL", "ageRatingCode"])
        let platforms = ["iOS", "macOS", "tvOS", "visionOS"]
        let platform = try field.optional("originalPlatform")?.string() ?? "iOS"
        guard platforms.contains(platform) else {
            throw try field.required("originalPlatform").error("\"\(platform)\" is not a platform (use \(platforms.joined(separator: ", ")))")
        }
        var app = AppInfo(
            name: try field.required("name").nonEmptyString(),
            bundleID: try field.required("bundleID").nonEmptyString(),
            originalAppVersion: try field.optional("originalVersion")?.string() ?? "1.0",
            appVersion: try field.optional("version")?.string() ?? "1.0",
            originalPurchaseDate: try field.optional("originalPurchaseDate")?.date(),
            originalPlatform: platform,
            appAppleID: try field.optional("appAppleId").map { Int64(try $0.int(in: 1...Int.max)) },
            preorderDate: try field.optional("preorderDate")?.date(),
            versionExternalIdentifier: try field.optional("versionExternalIdentifier").map { Int64(try $0.int(in: 0...Int.max)) })
        app.includesConsumableHistory = try field.optional("includeConsumableInAppPurchaseHistory")?.bool() ?? false
        app.termsOfServiceURL = try field.optional("termsOfServiceURL").map(webAddress)
        app.privacyPolicyURL = try field.optional("privacyPolicyURL").map(webAddress)
        app.ageRatingCode = try field.optional("ageRatingCode")?.int(in: 1...9999)
        return app
    }

    /// A page a customer opens: an absolute http or https URL.
    func webAddress(_ field: JSONField) throws -> String {
        let text = try field.string()
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host?.isEmpty == false else {
            throw field.error("\"\(text)\" is not an http or https URL (for example https://example.com/privacy)")
        }
        return text
    }

    /// `{locale: {headline, text, features}}`: a group's marketing content above its plans on a paywall.
    func marketing(_ field: JSONField) throws -> [String: GroupMarketing] {
        var marketing: [String: GroupMarketing] = [:]
        for (locale, content) in try field.object() {
            try checkLocale(locale, content)
            try content.allowOnly(["headline", "text", "features"])
            marketing[locale] = GroupMarketing(headline: try content.required("headline").nonEmptyString(),
                                               text: try content.optional("text")?.string() ?? "",
                                               features: try content.optional("features")?.array().map { try $0.nonEmptyString() } ?? [])
        }
        return marketing
    }

    /// `"USA"` for a known storefront, or an object that sets or overrides its currency, locale and ID.
    func storefront(_ field: JSONField) throws -> Storefront {
        if case .string(let code) = field.value {
            guard let known = Storefront.known(code), code == code.uppercased() else {
                throw field.error("unknown storefront code \"\(code)\" (use an ISO 3166-1 alpha-3 code such as USA, or an object with code, currency, locale and id)")
            }
            return known
        }
        try field.allowOnly(["code", "currency", "locale", "id"])
        let codeField = try field.required("code")
        let code = try codeField.string()
        guard code.count == 3, code.allSatisfy({ $0.isASCII && $0.isUppercase }) else {
            throw codeField.error("\"\(code)\" is not an ISO 3166-1 alpha-3 code (three capital letters, like USA)")
        }
        let known = Storefront.known(code)
        guard let currency = try field.optional("currency")?.string() ?? known?.currency,
              let locale = try field.optional("locale")?.string() ?? known?.locale,
              let id = try field.optional("id")?.string() ?? known?.id else {
            throw codeField.error("unknown storefront code \"\(code)\": give its currency, locale and id")
        }
        if let currencyField = field.optional("currency"), !Validation.isCurrency(currency) {
            throw currencyField.error("\"\(currency)\" is not an ISO 4217 currency code")
        }
        if let localeField = field.optional("locale"), !Validation.isLocale(locale) {
            throw localeField.error("unknown locale \"\(locale)\"")
        }
        return Storefront(code: code, currency: currency, locale: locale, id: id)
    }

    func product(_ field: JSONField) throws -> CatalogProduct {
        try field.allowOnly(["id", "type", "referenceName", "familyShareable", "localizations", "prices", "duration"])
        let typeField = try field.required("type")
        let typeName = try typeField.string()
        guard let type = ProductType(rawValue: typeName) else {
            throw typeField.error("unknown type \"\(typeName)\" (use consumable, nonConsumable or nonRenewing)")
        }
        if type == .autoRenewable {
            throw typeField.error("auto-renewable subscriptions belong in subscriptionGroups[].subscriptions")
        }
        var duration: Period?
        if type == .nonRenewing {
            duration = try field.required("duration").period()
        } else if let durationField = field.optional("duration") {
            throw durationField.error("only nonRenewing products have a duration")
        }
        return try common(field, type: type) { $0.duration = duration }
    }

    func common(_ field: JSONField, type: ProductType, finish: (inout CatalogProduct) throws -> Void) throws -> CatalogProduct {
        let id = try field.required("id").nonEmptyString()
        var product = CatalogProduct(
            id: id, type: type,
            referenceName: try field.optional("referenceName")?.string() ?? id,
            localizations: try localizations(field.required("localizations")),
            isFamilyShareable: try field.optional("familyShareable")?.bool() ?? false,
            prices: try prices(field.required("prices")))
        try finish(&product)
        return product
    }

    func localizations(_ field: JSONField) throws -> [Localization] {
        let localizations = try field.mapMembers { locale, text in
            try checkLocale(locale, text)
            try text.allowOnly(["displayName", "description"])
            return Localization(locale: locale, displayName: try text.required("displayName").nonEmptyString(),
                                description: try text.optional("description")?.string() ?? "")
        }
        guard !localizations.isEmpty else { throw field.error("give at least one locale's displayName and description") }
        return localizations
    }

    func checkLocale(_ locale: String, _ field: JSONField) throws {
        guard !seen.locales.contains(locale) else { return }
        guard Validation.isLocale(locale) else {
            throw field.error("unknown locale \"\(locale)\" (use identifiers like en_US, zh_Hans, ja, de)")
        }
        seen.locales.insert(locale)
    }

    func prices(_ field: JSONField) throws -> [String: Decimal] {
        let text = field.value.objectValue.map(PriceText.init)
        if let text, let known = seen.prices[text] { return known }
        let prices = try readPrices(field)
        if let text { seen.prices[text] = prices }
        return prices
    }

    private func readPrices(_ field: JSONField) throws -> [String: Decimal] {
        let entries = try field.object()
        var prices: [String: Decimal] = [:]
        prices.reserveCapacity(entries.count)
        for (code, price) in entries {
            guard storefronts.contains(where: { $0.code == code }) else {
                throw price.error("unknown storefront code \"\(code)\" (declare it in storefronts first)")
            }
            prices[code] = try price.decimal()
        }
        return prices
    }

    func subscriptionGroup(_ field: JSONField) throws -> (SubscriptionGroup, [CatalogProduct]) {
        try field.allowOnly(["id", "referenceName", "localizations", "marketing", "subscriptions"])
        let id = try field.required("id").nonEmptyString()
        var names: [String: String] = [:]
        for (locale, name) in try field.optional("localizations")?.object() ?? [] {
            try checkLocale(locale, name)
            names[locale] = try name.nonEmptyString()
        }
        let subscriptions = try field.required("subscriptions").array().map { try subscription($0, groupID: id) }
        guard !subscriptions.isEmpty else { throw try field.required("subscriptions").error("a group needs at least one subscription") }
        let group = SubscriptionGroup(id: id, referenceName: try field.optional("referenceName")?.string() ?? id, localizedNames: names,
                                      marketing: try field.optional("marketing").map(marketing) ?? [:])
        return (group, subscriptions)
    }

    func subscription(_ field: JSONField, groupID: String) throws -> CatalogProduct {
        try field.allowOnly(["id", "referenceName", "familyShareable", "localizations", "prices", "level", "period",
                             "introductoryOffer", "introductoryOffers", "promotionalOffers", "winBackOffers", "billingPlans"])
        return try common(field, type: .autoRenewable) { product in
            let period = try field.required("period").period(allowed: CatalogFormat.subscriptionPeriods)
            var terms = SubscriptionTerms(groupID: groupID, level: try field.required("level").int(in: 1...100), period: period,
                                          billingPlans: try billingPlans(field.optional("billingPlans"), period: period))
            terms.introductoryOffers = try introductoryOffers(field, on: terms)
            terms.promotionalOffers = try offers(field.optional("promotionalOffers"), type: .promotional, on: terms)
            terms.winBackOffers = try offers(field.optional("winBackOffers"), type: .winBack, on: terms)
            product.subscription = terms
        }
    }

    func offers(_ list: JSONField?, type: OfferType, on terms: SubscriptionTerms) throws -> [SubscriptionOffer] {
        try list?.array().map { try offer($0, type: type, on: terms) } ?? []
    }

    /// `introductoryOffer` (one, for the up-front plan unless it says) or `introductoryOffers` (one per billing plan).
    func introductoryOffers(_ field: JSONField, on terms: SubscriptionTerms) throws -> [SubscriptionOffer] {
        if let one = field.optional("introductoryOffer") {
            if let both = field.optional("introductoryOffers") {
                throw both.error("give introductoryOffer or introductoryOffers, not both")
            }
            return [try offer(one, type: .introductory, on: terms)]
        }
        var offers: [SubscriptionOffer] = []
        for item in try field.optional("introductoryOffers")?.array() ?? [] {
            let offer = try self.offer(item, type: .introductory, on: terms)
            if offers.contains(where: { $0.billingPlan == offer.billingPlan }) {
                throw item.error("a second introductory offer for the \(offer.billingPlan.rawValue) billing plan (one per plan)")
            }
            offers.append(offer)
        }
        return offers
    }

    /// `[{type: upFront|monthly, prices, commitmentPrices, enabled}]`: monthly billing of a yearly
    /// subscription needs its monthly prices; the up-front plan's prices default to the product's.
    func billingPlans(_ list: JSONField?, period: Period) throws -> [BillingPlan] {
        var plans: [BillingPlan] = []
        for field in try list?.array() ?? [] {
            try field.allowOnly(["type", "prices", "commitmentPrices", "enabled"])
            let typeField = try field.required("type")
            let type = try billingPlanType(typeField)
            if plans.contains(where: { $0.type == type }) { throw typeField.error("a second \(type.rawValue) billing plan (one of each)") }
            if type == .monthly, period != Period(1, .year) {
                throw typeField.error("monthly billing (a 12-month commitment) is for yearly subscriptions: this one's period is \(period.iso)")
            }
            let prices = try field.optional("prices").map(self.prices) ?? [:]
            if type == .monthly, prices.isEmpty { throw field.error("a monthly billing plan needs prices per storefront (each month's charge)") }
            plans.append(BillingPlan(type: type, prices: prices,
                                     commitmentPrices: try field.optional("commitmentPrices").map(self.prices) ?? [:],
                                     isEnabled: try field.optional("enabled")?.bool() ?? true))
        }
        return plans
    }

    func billingPlanType(_ field: JSONField) throws -> BillingPlanType {
        let name = try field.string()
        guard let type = BillingPlanType(rawValue: name) else {
            throw field.error("unknown billing plan \"\(name)\" (use upFront or monthly)")
        }
        return type
    }

    /// An offer; `terms` are its subscription's, which must sell the offer's billing plan.
    func offer(_ field: JSONField, type: OfferType, on terms: SubscriptionTerms) throws -> SubscriptionOffer {
        var keys = ["paymentMode", "period", "periods", "prices", "billingPlan"]
        if type == .promotional || type == .winBack { keys.append("id") }
        if type == .winBack { keys.append("eligible") }
        try field.allowOnly(keys)
        let modeField = try field.required("paymentMode")
        let modeName = try modeField.string()
        guard let mode = PaymentMode(rawValue: modeName), mode != .oneTime else {
            throw modeField.error("unknown payment mode \"\(modeName)\" (use freeTrial, payAsYouGo or payUpFront)")
        }
        let prices = try field.optional("prices").map(self.prices) ?? [:]
        if mode != .freeTrial, prices.isEmpty {
            throw field.error("a \(mode.rawValue) offer needs prices per storefront")
        }
        let plan = try field.optional("billingPlan").map(billingPlanType) ?? .upFront
        guard terms.billingPlan(plan) != nil else {
            throw (field.optional("billingPlan") ?? field).error(
                "the product sells no enabled \(plan.rawValue) billing plan, so this offer would never be offered (add the plan to billingPlans)")
        }
        return SubscriptionOffer(
            id: type == .promotional || type == .winBack ? try field.required("id").nonEmptyString() : nil,
            type: type, paymentMode: mode,
            period: try field.required("period").period(allowed: CatalogFormat.offerPeriods),
            periodCount: try field.optional("periods")?.int(in: 1...12) ?? 1,
            prices: prices,
            isEligible: try field.optional("eligible")?.bool() ?? true,
            billingPlan: plan)
    }

    func offerCode(_ field: JSONField, catalog: Catalog) throws -> OfferCode {
        try field.allowOnly(["code", "referenceName", "product", "offer", "eligibility", "redemptions", "expires"])
        let codeField = try field.required("code")
        let code = try codeField.nonEmptyString()
        guard code.trimmingCharacters(in: .whitespaces).allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            throw codeField.error("\"\(code)\" is not an offer code (letters and digits only)")
        }
        let productField = try field.required("product")
        let productID = try productField.string()
        guard let product = catalog.product(productID) else {
            throw productField.error("unknown product \"\(productID)\"")
        }
        var offer: SubscriptionOffer?
        if let offerField = field.optional("offer") {
            guard let terms = product.subscription else {
                throw offerField.error("only auto-renewable subscriptions take an offer; other products are granted once")
            }
            offer = try self.offer(offerField, type: .code, on: terms)
        } else if product.subscription != nil {
            // A one-time grant (ONE_TIME) is for the other product types: Apple's subscription codes have terms.
            throw field.error("an auto-renewable subscription's offer code needs an \"offer\" (its free trial, pay as you go or pay up front terms)")
        }
        var eligibility = Set(CustomerEligibility.allCases)
        if let eligibilityField = field.optional("eligibility") {
            eligibility = try Set(eligibilityField.array().map { item in
                let name = try item.string()
                guard let e = CustomerEligibility(rawValue: name) else {
                    throw item.error("unknown eligibility \"\(name)\" (use new, existing or expired)")
                }
                return e
            })
            guard !eligibility.isEmpty else { throw eligibilityField.error("list at least one of new, existing, expired") }
        }
        return OfferCode(code: code, referenceName: try field.optional("referenceName")?.string(), productID: productID,
                         offer: offer, eligibility: eligibility,
                         redemptionLimit: try field.optional("redemptions")?.int(in: 1...1_000_000_000),
                         expires: try field.optional("expires")?.date())
    }

    func settings(_ field: JSONField) throws -> TestSettings {
        try field.allowOnly(["storefront", "locale", "timeRate", "networkDelay", "failures", "environment", "notificationURL", "appAccountToken"]
                            + TestSetting.allCases.map(\.rawValue))
        var settings = TestSettings()
        if let sf = field.optional("storefront") {
            let code = try sf.string()
            guard storefronts.contains(where: { $0.code == code }) else {
                throw sf.error("unknown storefront code \"\(code)\" (declare it in storefronts)")
            }
            settings.storefront = code
        }
        if let localeField = field.optional("locale") {
            let locale = try localeField.string()
            try checkLocale(locale, localeField)
            settings.locale = locale
        }
        if let rate = field.optional("timeRate") {
            let name = rate.value.stringValue ?? rate.value.serialized()
            guard let timeRate = TimeRate(name: name) else {
                throw rate.error("unknown time rate \(name) (use a name like monthlyRenewalEveryThirtySeconds or Xcode's integer)")
            }
            settings.timeRate = timeRate
        }
        for setting in TestSetting.allCases {
            settings[keyPath: setting.keyPath] = try field.optional(setting.rawValue)?.bool() ?? false
        }
        if let environment = field.optional("environment") {
            let name = try environment.string()
            guard let value = StoreEnvironment(rawValue: name) else {
                throw environment.error("unknown environment \"\(name)\" (use one of: \(StoreEnvironment.names))")
            }
            settings.environment = value
        }
        if let url = field.optional("notificationURL") {
            let text = try url.string()
            if let problem = TestSettings.notificationURLProblem(text) { throw url.error(problem) }
            settings.notificationURL = text
        }
        if let token = field.optional("appAccountToken") {
            let text = try token.string()
            guard let uuid = UUID(uuidString: text) else { throw token.error("\"\(text)\" is not a UUID (for example 7e3fb20b-4cdb-47cc-936d-99d65f608138)") }
            settings.appAccountToken = uuid
        }
        if let delay = field.optional("networkDelay") {
            settings.networkDelay = try delay.double()
            guard (0...30).contains(settings.networkDelay) else { throw delay.error("use 0 to 30 seconds") }
        }
        for (api, failure) in try field.optional("failures")?.object() ?? [] {
            guard let storeAPI = StoreAPI(rawValue: api) else {
                throw failure.error("unknown API (use one of: \(StoreAPI.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            let name = try failure.string()
            guard let error = StoreFailure(name: name) else {
                throw failure.error("unknown error \"\(name)\" (for example networkError, systemError, purchaseNotAllowed)")
            }
            settings.failures[storeAPI] = error
        }
        return settings
    }

    func checkUniqueProducts(_ products: [CatalogProduct], root: JSONField) throws {
        var seen: Set<String> = []
        for product in products where !seen.insert(product.id).inserted {
            throw root.error("duplicate product ID \"\(product.id)\" (product IDs must be unique across products and subscriptions)")
        }
    }

    func checkUnique(_ keys: [String], in fields: [JSONField], what: String) throws {
        var seen: Set<String> = []
        for (key, field) in zip(keys, fields) where !seen.insert(key).inserted {
            throw field.error("duplicate \(what) \"\(key)\"")
        }
    }
}

