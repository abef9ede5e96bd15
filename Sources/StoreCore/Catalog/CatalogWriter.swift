import Foundation

/// Writes a catalog (or its settings alone) in Storefront's own format.
struct CatalogWriter {
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
        if app.includesConsumableHistory { members.append(("includeConsumableInAppPurchaseHistory", .bool(true))) }
        if let url = app.termsOfServiceURL { members.append(("termsOfServiceURL", .string(url))) }
        if let url = app.privacyPolicyURL { members.append(("privacyPolicyURL", .string(url))) }
        if let code = app.ageRatingCode { members.append(("ageRatingCode", .number(String(code)))) }
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
        var members: [(String, JSONValue)] = [("id", .string(g.id)), ("referenceName", .string(g.referenceName)),
            ("localizations", object(g.localizedNames.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }))]
        if !g.marketing.isEmpty { members.append(("marketing", object(g.marketing.sorted { $0.key < $1.key }.map { ($0.key, marketing($0.value)) }))) }
        members.append(("subscriptions", .array(catalog.products.filter { $0.subscription?.groupID == g.id }.map(subscription))))
        return object(members)
    }

    func marketing(_ m: GroupMarketing) -> JSONValue {
        var members: [(String, JSONValue)] = [("headline", .string(m.headline))]
        if !m.text.isEmpty { members.append(("text", .string(m.text))) }
        if !m.features.isEmpty { members.append(("features", .array(m.features.map(JSONValue.string)))) }
        return object(members)
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
        if let token = s.appAccountToken { members.append(("appAccountToken", .string(token.uuidString.lowercased()))) }
        if !s.failures.isEmpty {
            members.append(("failures", object(StoreAPI.allCases.compactMap { api in s.failures[api].map { (api.rawValue, .string($0.name)) } })))
        }
        return object(members)
    }
}
