import Foundation

/// Reads and writes Storefront's own catalog format (`catalog.json`; the README documents it and
/// `catalog.schema.json` describes it). Reading validates everything, or fails naming the field.
public enum CatalogFormat {
    public static let subscriptionPeriods = ["P1W", "P1M", "P2M", "P3M", "P6M", "P1Y"]
    public static let offerPeriods = ["P3D", "P1W", "P2W", "P1M", "P2M", "P3M", "P6M", "P1Y"]

    public static func decode(_ json: JSONValue, file: String) throws -> Catalog {
        var reader = Reader(file: file)
        return try reader.catalog(JSONField(json, file: file))
    }

    public static func encode(_ catalog: Catalog) -> JSONValue {
        Writer(catalog: catalog).root()
    }

    /// Settings alone, in the catalog's `settings` form (the store saves the QA panel's changes this way).
    public static func encode(_ settings: TestSettings) -> JSONValue {
        Writer(catalog: Catalog(app: AppInfo(name: "", bundleID: ""), storefronts: [], products: [])).settings(settings)
    }

    public static func decodeSettings(_ json: JSONValue, storefronts: [Storefront], file: String) throws -> TestSettings {
        var reader = Reader(file: file)
        reader.storefronts = storefronts
        return try reader.settings(JSONField(json, path: "settings", file: file))
    }

    /// The JSON Schema of this format (a resource of this module), for editors and CI checks.
    public static var schema: JSONValue? {
        Bundle.module.url(forResource: "catalog.schema", withExtension: "json")
            .flatMap { try? Data(contentsOf: $0) }.flatMap { try? JSONParser.parse($0) }
    }
}

// MARK: - Reading

private struct Reader {
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
                             "preorderDate", "versionExternalIdentifier"])
        let platforms = ["iOS", "macOS", "tvOS", "visionOS"]
        let platform = try field.optional("originalPlatform")?.string() ?? "iOS"
        guard platforms.contains(platform) else {
            throw try field.required("originalPlatform").error("\"\(platform)\" is not a platform (use \(platforms.joined(separator: ", ")))")
        }
        return AppInfo(
            name: try field.required("name").nonEmptyString(),
            bundleID: try field.required("bundleID").nonEmptyString(),
            originalAppVersion: try field.optional("originalVersion")?.string() ?? "1.0",
            appVersion: try field.optional("version")?.string() ?? "1.0",
            originalPurchaseDate: try field.optional("originalPurchaseDate")?.date(),
            originalPlatform: platform,
            appAppleID: try field.optional("appAppleId").map { Int64(try $0.int(in: 1...Int.max)) },
            preorderDate: try field.optional("preorderDate")?.date(),
            versionExternalIdentifier: try field.optional("versionExternalIdentifier").map { Int64(try $0.int(in: 0...Int.max)) })
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
        try field.allowOnly(["id", "referenceName", "localizations", "subscriptions"])
        let id = try field.required("id").nonEmptyString()
        var names: [String: String] = [:]
        for (locale, name) in try field.optional("localizations")?.object() ?? [] {
            try checkLocale(locale, name)
            names[locale] = try name.nonEmptyString()
        }
        let subscriptions = try field.required("subscriptions").array().map { try subscription($0, groupID: id) }
        guard !subscriptions.isEmpty else { throw try field.required("subscriptions").error("a group needs at least one subscription") }
        let group = SubscriptionGroup(id: id, referenceName: try field.optional("referenceName")?.string() ?? id, localizedNames: names)
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
        try field.allowOnly(["storefront", "locale", "timeRate", "networkDelay", "failures", "environment", "notificationURL"]
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

// MARK: - Reading as parsed

extension CatalogFormat {
    /// Reads a `catalog.json` (or, whole, a `.storekit` file) as it is parsed: once the app and the
    /// storefronts are read, each product and subscription group is decoded from its own small tree,
    /// which is then let go, so a large catalog never exists whole as JSON values. Its errors say
    /// little (no field, and a field's error before a syntax error later in the file): a document
    /// it refuses is to be read again whole for the error to show.
    static func decodeParsing(_ parser: inout JSONParser, file: String) throws -> Catalog {
        var reader = Reader(file: file)
        reader.named = false
        var members: [(key: String, value: JSONValue)] = []
        var streamed = Reader.Streamed()
        parser.startDocument()
        try parser.startObject()
        while let key = try parser.nextKey() {
            // With an app, the document is no .storekit file; with storefronts, prices can be read.
            let decodable = parser.peekValue() == UInt8(ascii: "[") && members.contains { $0.key == "app" } && !reader.storefronts.isEmpty
            if decodable, key == "products", streamed.products == nil {
                streamed.products = try elements(&parser) { try reader.product(reader.field($0)) }
                members.append((key, .array([])))
            } else if decodable, key == "subscriptionGroups", streamed.groups == nil {
                streamed.groups = try elements(&parser) { try reader.subscriptionGroup(reader.field($0)) }
                members.append((key, .array([])))
            } else {
                let value = try parser.value()
                if key == "storefronts", !members.contains(where: { $0.key == key }) {
                    reader.storefronts = try reader.field(value).array().map(reader.storefront)
                }
                members.append((key, value))
            }
        }
        try parser.endDocument()
        let root = JSONValue.object(members)
        if streamed.products == nil, streamed.groups == nil { return try CatalogLoader.decode(root, file: file) }
        return try reader.catalog(reader.field(root), streamed: &streamed)
    }

    private static func elements<T>(_ parser: inout JSONParser, _ decode: (JSONValue) throws -> T) throws -> [T] {
        var items: [T] = []
        try parser.startArray()
        while try parser.nextElement() { items.append(try decode(parser.value(transient: true))) }
        return items
    }
}

public enum Validation {
    static let languages = Set(Locale.LanguageCode.isoLanguageCodes.map(\.identifier))
    static let currencies = Set(Locale.Currency.isoCurrencies.map(\.identifier))

    public static func isLocale(_ identifier: String) -> Bool {
        // By bytes: Unicode character properties per locale were a tenth of a large catalog's load.
        let pieces = identifier.utf8.split { $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }
        func isLetterOrDigit(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
        guard !pieces.isEmpty, pieces.count <= 3, pieces.allSatisfy({ $0.allSatisfy(isLetterOrDigit) }) else { return false }
        return languages.contains(String(decoding: pieces[0].map { $0 | 0x20 }, as: UTF8.self))
    }

    public static func isCurrency(_ code: String) -> Bool { currencies.contains(code) }
}

// MARK: - Writing

private struct Writer {
    let catalog: Catalog

    func root() -> JSONValue {
        var root: [(String, JSONValue)] = [
            ("app", app()),
            ("storefronts", .array(catalog.storefronts.map(storefront))),
            ("products", .array(catalog.products.filter { $0.type != .autoRenewable }.map(product))),
            ("subscriptionGroups", .array(catalog.subscriptionGroups.map(group))),
        ]
        if !catalog.offerCodes.isEmpty { root.append(("offerCodes", .array(catalog.offerCodes.map(offerCode)))) }
        root.append(("settings", settings(catalog.settings)))
        return object(root)
    }

    func object(_ members: [(String, JSONValue)]) -> JSONValue { .object(members.map { (key: $0.0, value: $0.1) }) }

    func app() -> JSONValue {
        let app = catalog.app
        var members: [(String, JSONValue)] = [("name", .string(app.name)), ("bundleID", .string(app.bundleID)),
                                              ("version", .string(app.appVersion)), ("originalVersion", .string(app.originalAppVersion))]
        if let date = app.originalPurchaseDate { members.append(("originalPurchaseDate", .string(date.formatted(.iso8601)))) }
        members.append(("originalPlatform", .string(app.originalPlatform)))
        if let id = app.appAppleID { members.append(("appAppleId", .number(String(id)))) }
        if let date = app.preorderDate { members.append(("preorderDate", .string(date.formatted(.iso8601)))) }
        if let id = app.versionExternalIdentifier { members.append(("versionExternalIdentifier", .number(String(id)))) }
        return object(members)
    }

    func storefront(_ s: Storefront) -> JSONValue {
        if Storefront.known(s.code) == s { return .string(s.code) }
        return object([("code", .string(s.code)), ("currency", .string(s.currency)), ("locale", .string(s.locale)), ("id", .string(s.id))])
    }

    func prices(_ prices: [String: Decimal]) -> JSONValue {
        object(catalog.storefronts.compactMap { sf in prices[sf.code].map { (sf.code, .string("\($0)")) } })
    }

    func common(_ p: CatalogProduct) -> [(String, JSONValue)] {
        [("id", .string(p.id)), ("referenceName", .string(p.referenceName)), ("familyShareable", .bool(p.isFamilyShareable)),
         ("localizations", object(p.localizations.map { ($0.locale, object([("displayName", .string($0.displayName)), ("description", .string($0.description))])) })),
         ("prices", prices(p.prices))]
    }

    func product(_ p: CatalogProduct) -> JSONValue {
        var members = common(p)
        members.insert(("type", .string(p.type.rawValue)), at: 1)
        if let duration = p.duration { members.append(("duration", .string(duration.iso))) }
        return object(members)
    }

    func group(_ g: SubscriptionGroup) -> JSONValue {
        object([("id", .string(g.id)), ("referenceName", .string(g.referenceName)),
                ("localizations", object(g.localizedNames.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })),
                ("subscriptions", .array(catalog.products.filter { $0.subscription?.groupID == g.id }.map(subscription)))])
    }

    func subscription(_ p: CatalogProduct) -> JSONValue {
        let terms = p.subscription!
        var members = common(p)
        members += [("level", .number(String(terms.level))), ("period", .string(terms.period.iso))]
        if terms.introductoryOffers.count == 1, let intro = terms.introductoryOffers.first {
            members.append(("introductoryOffer", offer(intro)))
        } else if !terms.introductoryOffers.isEmpty {
            members.append(("introductoryOffers", .array(terms.introductoryOffers.map(offer))))
        }
        if !terms.promotionalOffers.isEmpty { members.append(("promotionalOffers", .array(terms.promotionalOffers.map(offer)))) }
        if !terms.winBackOffers.isEmpty { members.append(("winBackOffers", .array(terms.winBackOffers.map(offer)))) }
        if !terms.billingPlans.isEmpty { members.append(("billingPlans", .array(terms.billingPlans.map(billingPlan)))) }
        return object(members)
    }

    func billingPlan(_ plan: BillingPlan) -> JSONValue {
        var members: [(String, JSONValue)] = [("type", .string(plan.type.rawValue))]
        if !plan.prices.isEmpty { members.append(("prices", prices(plan.prices))) }
        if !plan.commitmentPrices.isEmpty { members.append(("commitmentPrices", prices(plan.commitmentPrices))) }
        members.append(("enabled", .bool(plan.isEnabled)))
        return object(members)
    }

    func offer(_ o: SubscriptionOffer) -> JSONValue {
        var members: [(String, JSONValue)] = []
        if let id = o.id { members.append(("id", .string(id))) }
        members += [("paymentMode", .string(o.paymentMode.rawValue)), ("period", .string(o.period.iso)),
                    ("periods", .number(String(o.periodCount)))]
        if !o.prices.isEmpty { members.append(("prices", prices(o.prices))) }
        if o.type == .winBack { members.append(("eligible", .bool(o.isEligible))) }
        if o.billingPlan != .upFront { members.append(("billingPlan", .string(o.billingPlan.rawValue))) }
        return object(members)
    }

    func offerCode(_ c: OfferCode) -> JSONValue {
        var members: [(String, JSONValue)] = [("code", .string(c.code)), ("referenceName", .string(c.referenceName)),
                                              ("product", .string(c.productID))]
        if let offer = c.offer { members.append(("offer", self.offer(offer))) }
        members.append(("eligibility", .array(CustomerEligibility.allCases.filter(c.eligibility.contains).map { .string($0.rawValue) })))
        if let limit = c.redemptionLimit { members.append(("redemptions", .number(String(limit)))) }
        if let expires = c.expires { members.append(("expires", .string(expires.formatted(.iso8601)))) }
        return object(members)
    }

    func settings(_ s: TestSettings) -> JSONValue {
        var members: [(String, JSONValue)] = []
        if let sf = s.storefront { members.append(("storefront", .string(sf))) }
        if let locale = s.locale { members.append(("locale", .string(locale))) }
        members.append(("timeRate", .string(s.timeRate.name)))
        members += TestSetting.allCases.map { ($0.rawValue, .bool(s[keyPath: $0.keyPath])) }
        members += [("networkDelay", .number(String(s.networkDelay))), ("environment", .string(s.environment.rawValue))]
        if let url = s.notificationURL { members.append(("notificationURL", .string(url))) }
        if !s.failures.isEmpty {
            members.append(("failures", object(StoreAPI.allCases.compactMap { api in s.failures[api].map { (api.rawValue, .string($0.name)) } })))
        }
        return object(members)
    }
}
