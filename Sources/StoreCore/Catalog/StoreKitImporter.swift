import Foundation

/// Converts Xcode's `.storekit` configuration files (formats 1.0 to 6.3) into a `Catalog`.
///
/// Goes by the keys present, never the `version` number, and ignores keys it doesn't know (Xcode adds
/// some in every release). Deliberately ignored: `_compatibilityTimeRate`, `_disableDialogs`, the
/// synced-file keys (`_applicationInternalID`, `_developerTeamID`, `_lastSynchronizedDate`), `appPolicies`'
/// texts (its URLs are the app's policy links), `subscriptionBundleGroups` and `subscriptionSuiteGroups`.
/// `subscriptionOffersKeyPair` is the key the app's offer signatures are checked against (`Catalog.offerSigningKey`).
/// Every type error fails with a `CatalogError` naming the JSON path of the field. 5.0+ `billingPlans` and
/// the `billingPlanType` of each offer are read; what is not understood there (an unknown plan type or
/// plan field) is a warning naming the file and the product, never dropped silently.
enum StoreKitImporter {
    static func catalog(from json: JSONValue, file: String) throws -> Catalog {
        var reader = Reader(file: file)
        return try reader.catalog(JSONField(json, file: file))
    }

    /// The offer code a tester types for a `.storekit` code offer, which has no code strings of its own:
    /// the ASCII letters and digits of its `referenceName`, uppercased ("Free month" → `FREEMONTH`,
    /// "Mergeek 推广" → `MERGEEK`); when that leaves nothing, the same of its `internalID`; when that
    /// leaves nothing too, `CODE`. Codes are made in catalog order (`products`, `nonRenewingSubscriptions`,
    /// then each group's subscriptions, each in its `codeOffers` order); a code already taken in the catalog
    /// gets 2, 3… appended ("Affiliates" after "AFFILIATES" → `AFFILIATES2`). The same file always yields
    /// the same codes, and `Catalog.offerCode(_:)` matches them case-insensitively.
    static func code(referenceName: String, internalID: String, taken: Set<String>) -> String {
        func letters(_ s: String) -> String { String(s.uppercased().filter { $0.isASCII && ($0.isLetter || $0.isNumber) }) }
        let base = [letters(referenceName), letters(internalID)].first { !$0.isEmpty } ?? "CODE"
        var candidate = base
        var n = 2
        while taken.contains(candidate) {
            candidate = base + String(n)
            n += 1
        }
        return candidate
    }
}

private struct Reader {
    let file: String
    /// Where each product ID was first defined, to name both places on a duplicate.
    var productPaths: [String: String] = [:]
    var offerCodes: [OfferCode] = []
    var takenCodes: Set<String> = []
    /// Where each made code came from, to name both places on a collision.
    var codePaths: [String: String] = [:]
    /// What the file asks that Storefront does differently, for the tester to read (code collisions).
    var warnings: [String] = []

    init(file: String) { self.file = file }

    mutating func catalog(_ root: JSONField) throws -> Catalog {
        _ = try root.object()
        var settings = TestSettings()
        if let field = root.optional("settings") { settings = try self.settings(field) }
        // Xcode sells every product in every storefront at its one price; the chosen storefront comes first.
        var storefronts = Storefront.all
        if let code = settings.storefront, let index = storefronts.firstIndex(where: { $0.code == code }) {
            storefronts.insert(storefronts.remove(at: index), at: 0)
        }

        var products: [CatalogProduct] = []
        for key in ["products", "nonRenewingSubscriptions"] {
            for field in try root.optional(key)?.array() ?? [] { products.append(try product(field)) }
        }
        var groups: [SubscriptionGroup] = []
        var groupPaths: [String: String] = [:]
        for field in try root.optional("subscriptionGroups")?.array() ?? [] {
            let (group, subscriptions) = try subscriptionGroup(field)
            if let first = groupPaths[group.id] {
                throw try field.required("id").error("duplicate subscription group ID \"\(group.id)\" (also at \(first))")
            }
            groupPaths[group.id] = field.path
            groups.append(group)
            products += subscriptions
        }
        var catalog = Catalog(app: app(root), storefronts: storefronts, products: products, subscriptionGroups: groups,
                              offerCodes: offerCodes, settings: settings)
        catalog.warnings = warnings
        catalog.hasOnePrice = true
        catalog.offerSigningKey = try offerSigningKey(root.optional("subscriptionOffersKeyPair"))
        return catalog
    }

    /// `subscriptionOffersKeyPair`: `{id, privateKey}`, the key's PKCS#8 bytes in base64 (null or absent: none).
    func offerSigningKey(_ field: JSONField?) throws -> Catalog.OfferSigningKey? {
        guard let field else { return nil }
        let id = try field.required("id").nonEmptyString()
        let key = try field.required("privateKey")
        // PKCS#8 of a P-256 key names id-ecPublicKey (1.2.840.10045.2.1) and prime256v1 (1.2.840.10045.3.1.7).
        let ecKey: [UInt8] = [0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01], p256: [UInt8] = [0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]
        guard let der = Data(base64Encoded: try key.string()), der.firstRange(of: ecKey) != nil, der.firstRange(of: p256) != nil else {
            throw key.error("not a P-256 private key in base64 (Xcode writes the key's PKCS#8 bytes here): generate the key pair again in Xcode's StoreKit configuration editor")
        }
        let base64 = der.base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return .init(keyID: id, privateKeyPEM: "-----BEGIN PRIVATE KEY-----\n\(base64)\n-----END PRIVATE KEY-----\n")
    }

    func app(_ root: JSONField) -> AppInfo {
        let stem = ((file as NSString).lastPathComponent as NSString).deletingPathExtension
        // The bundle ID shows up in signed transactions: derive it from the file's `identifier` so two
        // configurations don't look like the same app, and keep it stable across imports.
        let identifier = (root.value["identifier"]?.stringValue ?? "").lowercased().filter { $0.isASCII && ($0.isLetter || $0.isNumber) }
        var app = AppInfo(name: stem.isEmpty ? "StoreKit Configuration" : stem,
                          bundleID: identifier.isEmpty ? "com.example.storekit-config" : "com.example.storekit-config.\(identifier)")
        (app.termsOfServiceURL, app.privacyPolicyURL) = policyURLs(root.value["appPolicies"])
        return app
    }

    /// 4.0+ `appPolicies`: `eula` (the license agreement: a URL is the Terms of Service link) and
    /// `policies[{locale, policyURL, policyText}]` (the Privacy Policy; English's URL, else the first given).
    /// Xcode leaves them empty until the developer fills them in; what is not a web address is not a link.
    func policyURLs(_ policies: JSONValue?) -> (terms: String?, privacy: String?) {
        func web(_ text: String?) -> String? {
            guard let text, let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? "") else { return nil }
            return text
        }
        let entries = policies?["policies"]?.arrayValue ?? []
        let english = entries.first { $0["locale"]?.stringValue?.hasPrefix("en") == true }
        let privacy = web(english?["policyURL"]?.stringValue) ?? entries.lazy.compactMap { web($0["policyURL"]?.stringValue) }.first
        return (web(policies?["eula"]?.stringValue), privacy)
    }

    // MARK: Products

    /// A product of `products[]` or `nonRenewingSubscriptions[]`; either list may hold any non-recurring type.
    mutating func product(_ field: JSONField) throws -> CatalogProduct {
        let typeField = try field.required("type")
        let typeName = try typeField.string()
        let type: ProductType
        switch typeName {
        case "Consumable": type = .consumable
        case "NonConsumable": type = .nonConsumable
        case "NonRenewingSubscription": type = .nonRenewing
        case "RecurringSubscription":
            throw typeField.error("auto-renewable subscriptions belong in subscriptionGroups[].subscriptions")
        default:
            throw typeField.error("unknown product type \"\(typeName)\" (expected Consumable, NonConsumable, NonRenewingSubscription or RecurringSubscription)")
        }
        // A `.storekit` non-renewing subscription has no duration: the app decides how long it lasts,
        // and StoreKit keeps it in `currentEntitlements` for good. None is invented here.
        let product = try common(field, type: type)
        // Offer codes work for every product type since iOS 18.2; on a non-subscription a code grants the
        // product once. Not in the sample files: read like a subscription's `codeOffers`, without an offer.
        for codeField in try field.optional("codeOffers")?.array() ?? [] {
            offerCodes.append(try offerCode(codeField, productID: product.id, offer: nil))
        }
        return product
    }

    mutating func common(_ field: JSONField, type: ProductType) throws -> CatalogProduct {
        let idField = try field.required("productID")
        let id = try idField.nonEmptyString()
        if let first = productPaths[id] {
            throw idField.error("duplicate product ID \"\(id)\" (also at \(first))")
        }
        productPaths[id] = field.path
        let referenceName = try field.optional("referenceName")?.string() ?? id
        return CatalogProduct(
            id: id, type: type, referenceName: referenceName,
            localizations: try localizations(field.optional("localizations"), fallbackName: referenceName),
            isFamilyShareable: try field.optional("familyShareable")?.bool() ?? false,
            prices: try prices(field.required("displayPrice")))
    }

    /// `[{locale, displayName, description}]`; an empty or missing displayName falls back to the reference name.
    func localizations(_ field: JSONField?, fallbackName: String) throws -> [Localization] {
        try (field?.array() ?? []).map { entry in
            let name = try entry.optional("displayName")?.string() ?? ""
            return Localization(locale: try entry.required("locale").nonEmptyString(),
                                displayName: name.isEmpty ? fallbackName : name,
                                description: try entry.optional("description")?.string() ?? "")
        }
    }

    /// One `displayPrice` for every storefront, each in its own currency, as Xcode does.
    func prices(_ field: JSONField) throws -> [String: Decimal] {
        let price = try field.decimal()
        return Dictionary(uniqueKeysWithValues: Storefront.all.map { ($0.code, price) })
    }

    // MARK: Subscriptions

    mutating func subscriptionGroup(_ field: JSONField) throws -> (SubscriptionGroup, [CatalogProduct]) {
        let id = try field.required("id").nonEmptyString()
        var names: [String: String] = [:], marketing: [String: GroupMarketing] = [:]
        // Group localizations have the product shape: displayName is the group's name, and a description
        // is the marketing text a paywall shows above the plans, headed by that name.
        let referenceName = try field.optional("name")?.string() ?? id
        for entry in try field.optional("localizations")?.array() ?? [] {
            let locale = try entry.required("locale").nonEmptyString()
            let name = try entry.optional("displayName")?.string() ?? ""
            if !name.isEmpty { names[locale] = name }
            let text = try entry.optional("description")?.string() ?? ""
            if !text.isEmpty { marketing[locale] = GroupMarketing(headline: name.isEmpty ? referenceName : name, text: text) }
        }
        let group = SubscriptionGroup(id: id, referenceName: referenceName, localizedNames: names, marketing: marketing)
        // The enclosing group wins over a subscription's own `subscriptionGroupID` (Xcode keeps them equal).
        let subscriptions = try (field.optional("subscriptions")?.array() ?? []).map { try subscription($0, groupID: id) }
        return (group, subscriptions)
    }

    mutating func subscription(_ field: JSONField, groupID: String) throws -> CatalogProduct {
        if let typeField = field.optional("type"), try typeField.string() != "RecurringSubscription" {
            throw typeField.error("unknown subscription type \"\(try typeField.string())\" (expected RecurringSubscription)")
        }
        var product = try common(field, type: .autoRenewable)
        let period = try field.required("recurringSubscriptionPeriod").period()
        var terms = SubscriptionTerms(
            groupID: groupID,
            level: try field.required("groupNumber").int(in: 1...1000),
            period: period,
            promotionalOffers: try offers(field.optional("adHocOffers"), type: .promotional, product: product.id),
            winBackOffers: try offers(field.optional("winbackOffers"), type: .winBack, product: product.id),
            billingPlans: try billingPlans(field.optional("billingPlans"), product: product.id, period: period))
        // 5.0+ writes `introductoryOffers[]` (6.3 only that), one per billing plan; older files the `introductoryOffer` object.
        let list = try field.optional("introductoryOffers")?.array() ?? []
        let intros = list.isEmpty ? field.optional("introductoryOffer").map { [$0] } ?? [] : list
        for introField in intros {
            guard let intro = try offer(introField, type: .introductory, product: product.id) else { continue }
            guard terms.introductoryOffer(on: intro.billingPlan) == nil else {
                warnings.append("\(file): \(introField.path): product \(product.id) has a second introductory offer for its "
                                + "\(intro.billingPlan.signedName) plan; only the first is offered")
                continue
            }
            terms.introductoryOffers.append(intro)
        }
        product.subscription = terms
        for codeField in try field.optional("codeOffers")?.array() ?? [] {
            guard let offer = try offer(codeField, type: .code, product: product.id) else { continue }
            offerCodes.append(try offerCode(codeField, productID: product.id, offer: offer))
        }
        warnUnsold(terms, field: field, product: product.id)
        warnUpFrontPrice(product, field: field)
        return product
    }

    mutating func offers(_ list: JSONField?, type: OfferType, product: String) throws -> [SubscriptionOffer] {
        var offers: [SubscriptionOffer] = []
        for field in try list?.array() ?? [] {
            if let offer = try offer(field, type: type, product: product) { offers.append(offer) }
        }
        return offers
    }

    /// 5.0+ `billingPlans[{billingPlanType, displayPrice, commitmentDisplayPrice, isEnabled, internalID}]`.
    /// A plan this store cannot sell (an unknown type, monthly billing of a subscription that is not
    /// yearly) is left out with a warning; a field it does not know is a warning too.
    mutating func billingPlans(_ list: JSONField?, product: String, period: Period) throws -> [BillingPlan] {
        let known: Set<String> = ["billingPlanType", "displayPrice", "commitmentDisplayPrice", "isEnabled", "internalID"]
        var plans: [BillingPlan] = []
        for field in try list?.array() ?? [] {
            for (key, child) in try field.object() where !known.contains(key) {
                warnings.append("\(file): \(child.path): product \(product): unknown billing plan field \"\(key)\", ignored")
            }
            guard let type = try billingPlanType(field, product: product) else { continue }
            if type == .monthly, period != Period(1, .year) {
                warnings.append("\(file): \(field.path): product \(product): a MONTHLY billing plan needs a yearly subscription "
                                + "(this one renews every \(period.iso)); the plan is left out")
                continue
            }
            if plans.contains(where: { $0.type == type }) {
                warnings.append("\(file): \(field.path): product \(product) has a second \(type.signedName) billing plan; only the first is sold")
                continue
            }
            plans.append(BillingPlan(type: type, prices: try field.optional("displayPrice").map(prices) ?? [:],
                                     commitmentPrices: try field.optional("commitmentDisplayPrice").map(prices) ?? [:],
                                     isEnabled: try field.optional("isEnabled")?.bool() ?? true))
        }
        return plans
    }

    /// Xcode keeps the up-front plan's price equal to the product's; when a file does not, say which one is charged.
    mutating func warnUpFrontPrice(_ product: CatalogProduct, field: JSONField) {
        // A `.storekit` price is the same in every storefront: any one tells.
        guard let plan = product.subscription?.billingPlans.first(where: { $0.type == .upFront }),
              let (code, charged) = plan.prices.first, let listed = product.prices[code], charged != listed else { return }
        warnings.append("\(file): \(field.path): product \(product.id): its BILLED_UPFRONT plan's displayPrice \(charged) differs from "
                        + "its displayPrice \(listed); a purchase up front charges the plan's \(charged)")
    }

    /// The `billingPlanType` of a plan or an offer; up front when absent (files before billing plans),
    /// nil with a warning when it is not a plan this store knows.
    mutating func billingPlanType(_ field: JSONField, product: String) throws -> BillingPlanType? {
        guard let typeField = field.optional("billingPlanType") else { return .upFront }
        let name = try typeField.string()
        guard let type = BillingPlanType(signedName: name) else {
            warnings.append("\(file): \(typeField.path): product \(product): unknown billingPlanType \"\(name)\" "
                            + "(expected BILLED_UPFRONT or MONTHLY); left out")
            return nil
        }
        return type
    }

    /// An offer for a plan the product does not sell is never offered: say so.
    mutating func warnUnsold(_ terms: SubscriptionTerms, field: JSONField, product: String) {
        let codes = offerCodes.filter { $0.productID == product }.compactMap(\.offer)
        for offer in terms.introductoryOffers + terms.promotionalOffers + terms.winBackOffers + codes
        where terms.billingPlan(offer.billingPlan) == nil {
            let name = offer.id.map { "\"\($0)\"" } ?? "its \(offer.type.rawValue) offer"
            warnings.append("\(file): \(field.path): product \(product): \(offer.type.rawValue) offer \(name) is for the "
                            + "\(offer.billingPlan.signedName) billing plan, which is not sold; it is never offered")
        }
    }

    /// Any of the four offer kinds: `paymentMode`, `subscriptionPeriod`, `numberOfPeriods` (default 1),
    /// `displayPrice` (paid modes; one price for every storefront), the `billingPlanType` it is for
    /// (5.0+; nil, warned, when unknown); promotional and win-back offers have an `offerID`, win-backs
    /// an `isEligible` switch.
    mutating func offer(_ field: JSONField, type: OfferType, product: String) throws -> SubscriptionOffer? {
        guard let plan = try billingPlanType(field, product: product) else { return nil }
        let modeField = try field.required("paymentMode")
        let mode: PaymentMode
        switch try modeField.string() {
        case "free", "freeTrial": mode = .freeTrial
        case "payAsYouGo": mode = .payAsYouGo
        case "payUpFront": mode = .payUpFront
        case let other: throw modeField.error("unknown payment mode \"\(other)\" (expected free, payAsYouGo or payUpFront)")
        }
        var prices: [String: Decimal] = [:]
        if mode != .freeTrial {
            // A paid offer without a price would silently become free: refuse it.
            guard let price = field.optional("displayPrice") else { throw field.error("a \(mode.rawValue) offer needs a displayPrice") }
            prices = try self.prices(price)
        }
        let id = type == .promotional || type == .winBack ? try field.required("offerID").nonEmptyString() : nil
        let isEligible = type == .winBack ? try field.optional("isEligible")?.bool() ?? true : true
        return SubscriptionOffer(
            id: id, type: type, paymentMode: mode,
            period: try field.required("subscriptionPeriod").period(),
            periodCount: try field.optional("numberOfPeriods")?.int(in: 1...1000) ?? 1,
            prices: prices, isEligible: isEligible, billingPlan: plan)
    }

    /// A `codeOffers[]` entry. `isStackable` (whether the code may be combined with another offer) is not
    /// modelled: codes here always apply on their own. No redemption limit, no expiry.
    mutating func offerCode(_ field: JSONField, productID: String, offer: SubscriptionOffer?) throws -> OfferCode {
        let referenceName = try field.optional("referenceName")?.string() ?? ""
        let internalID = try field.optional("internalID")?.string() ?? ""
        let code = StoreKitImporter.code(referenceName: referenceName, internalID: internalID, taken: takenCodes)
        let wanted = StoreKitImporter.code(referenceName: referenceName, internalID: internalID, taken: [])
        if code != wanted {
            warnings.append("\(file): \(field.path): code offer \"\(referenceName)\" makes the code \(wanted), already made by "
                            + "\(codePaths[wanted] ?? "another offer"); its code is \(code), and its reference name redeems the first one")
        }
        takenCodes.insert(code)
        codePaths[code] = field.path
        var eligibility = Set(CustomerEligibility.allCases)
        if let list = field.optional("eligibility") {
            eligibility = try Set(list.array().map { item in
                let name = try item.string()
                guard let e = CustomerEligibility(rawValue: name) else {
                    throw item.error("unknown eligibility \"\(name)\" (expected new, existing or expired)")
                }
                return e
            })
        }
        return OfferCode(code: code, referenceName: referenceName.isEmpty ? code : referenceName, productID: productID,
                         offer: offer, eligibility: eligibility)
    }

    // MARK: Settings

    mutating func settings(_ field: JSONField) throws -> TestSettings {
        var settings = TestSettings()
        if let sf = field.optional("_storefront") {
            let code = try sf.string()
            guard let known = Storefront.known(code) else {
                throw sf.error("unknown storefront \"\(code)\" (use an ISO 3166-1 alpha-3 code this tool knows, such as USA)")
            }
            settings.storefront = known.code
        }
        if let locale = try field.optional("_locale")?.string(), !locale.isEmpty { settings.locale = locale }
        if let rateField = field.optional("_timeRate") {
            let n = try rateField.int()
            guard let rate = TimeRate(rawValue: n) else {
                throw rateField.error("unknown time rate \(n) (Xcode's values are 0, 1–6, 10–13, 15 and 1000–1005)")
            }
            settings.timeRate = rate
        }
        settings.askToBuy = try field.optional("_askToBuyEnabled")?.bool() ?? false
        settings.interruptedPurchases = try field.optional("_billingIssuesEnabled")?.bool() ?? false
        settings.billingRetryOnRenewal = try field.optional("_renewalBillingIssuesEnabled")?.bool() ?? false
        settings.gracePeriod = try field.optional("_billingGracePeriodEnabled")?.bool() ?? false
        settings.failures = try failures(field.optional("_storeKitErrors"))
        // Xcode's test environment "always approves refund requests, and processes them immediately" (Apple's
        // refundTransaction page); the QA panel may still switch it off to decide by hand.
        settings.autoApproveRefunds = true
        // Xcode's older "Fail Transactions" switch: purchases fail. Unless an injected Purchase error says
        // how, they fail as `SKTestSession.failTransactionsEnabled` makes them, with StoreKitError.unknown
        // (its `failureError` starts as unknown; RevenueCat's tests against Xcode assert it).
        if try field.optional("_failTransactionsEnabled")?.bool() == true, settings.failures[.purchase] == nil {
            settings.failures[.purchase] = .storeKit(.unknown)
        }
        return settings
    }

    /// `_storeKitErrors`: one `{name, enabled, current: null | {index, type}}` per API, in `StoreAPI` order.
    /// An entry is matched by `name` (the API's title), else by position. `current` names an error as
    /// `SKTestFailures` does: `type` is the case (`generic` a `StoreKitError`, `purchase` a
    /// `Product.PurchaseError`, `verification` a `VerificationError`, `refundRequest` a refund error) and
    /// `index` the error's place in that type's declaration order (inferred: Xcode does not document it).
    /// Enabled without `current`, the API's first injectable error. What cannot be mapped (an unknown
    /// type, an index out of range, a type the API cannot raise) is a warning naming the entry, never a guess.
    mutating func failures(_ field: JSONField?) throws -> [StoreAPI: StoreFailure] {
        var failures: [StoreAPI: StoreFailure] = [:]
        for (position, entry) in try (field?.array() ?? []).enumerated() {
            let name = try entry.optional("name")?.string()
            guard let api = StoreAPI.allCases.first(where: { $0.title == name })
                    ?? (position < StoreAPI.allCases.count ? StoreAPI.allCases[position] : nil) else { continue }
            guard try entry.optional("enabled")?.bool() == true else { continue }
            guard let current = entry.optional("current") else {
                failures[api] = api.injectableFailures.first
                continue
            }
            let type = try current.optional("type")?.string() ?? "generic"
            let index = try current.required("index").int()
            guard let errors = Self.simulatedErrors(type, for: api), errors.indices.contains(index) else {
                warnings.append("\(file): \(current.path): \(api.title) error \(type) #\(index) has no equivalent here; "
                                + "that API will not fail (choose its error in the QA panel)")
                continue
            }
            failures[api] = errors[index]
        }
        return failures
    }

    /// The errors of one `SKTestFailures` case, in declaration order; nil for a type `api` cannot raise.
    static func simulatedErrors(_ type: String, for api: StoreAPI) -> [StoreFailure]? {
        switch (type, api) {
        case ("generic", _): StoreKitError.allCases.map(StoreFailure.storeKit)
        case ("purchase", .purchase): PurchaseError.allCases.map(StoreFailure.purchase)
        case ("verification", .verification): VerificationError.allCases.map(StoreFailure.verification)
        case ("refundRequest", .refundRequest): RefundRequestError.allCases.map(StoreFailure.refund)
        default: nil
        }
    }
}
