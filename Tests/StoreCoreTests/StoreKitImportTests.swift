import Foundation
import Testing
@testable import StoreCore
import StorefrontTestSupport

private let fixtures = Repo.sharedFixtures.appendingPathComponent("storekit")

private func load(_ name: String) throws -> Catalog {
    try CatalogLoader.load(path: fixtures.appendingPathComponent(name).path)
}

/// What each real file contains, counted from the files themselves (not from the importer).
struct FixtureCounts: Sendable, CustomTestStringConvertible {
    var file: String
    var consumable = 0, nonConsumable = 0, autoRenewable = 0, nonRenewing = 0
    var groups = 0, offerCodes = 0, winBack = 0, promotional = 0
    var testDescription: String { file }
}

private let allFixtures: [FixtureCounts] = [
    FixtureCounts(file: "cntrump+SKDemo__Products.storekit",
                  consumable: 3, nonConsumable: 3, autoRenewable: 3, nonRenewing: 1, groups: 1),
    FixtureCounts(file: "apple+sample-food-truck__Products.storekit",
                  nonConsumable: 1, autoRenewable: 2, groups: 1, offerCodes: 2),
    FixtureCounts(file: "apple+sample-backyard-birds__Store.storekit",
                  consumable: 6, autoRenewable: 3, groups: 1),
    FixtureCounts(file: "RevenueCat+purchases-ios__UnitTestsConfiguration.storekit",
                  consumable: 1, nonConsumable: 1, autoRenewable: 4, nonRenewing: 1, groups: 2, promotional: 2),
    FixtureCounts(file: "xmliszt+joodle__Store.storekit",
                  nonConsumable: 2, autoRenewable: 2, groups: 1, offerCodes: 4),
    FixtureCounts(file: "comexbackkid+LeftPocket__StoreKitConfiguration.storekit",
                  nonConsumable: 1, autoRenewable: 8, groups: 2, offerCodes: 9, winBack: 2),
    FixtureCounts(file: "FranciszekCzana+StoreKitTesting__Configuration.storekit",
                  autoRenewable: 2, groups: 1),
    FixtureCounts(file: "russell-archer+StoreHelperDemo__Products.storekit",
                  consumable: 1, nonConsumable: 4, autoRenewable: 6, groups: 2, offerCodes: 1, promotional: 2),
]

/// A minimal `.storekit` document around the given top-level members, for error cases.
private func storekit(_ members: String) throws -> Catalog {
    try CatalogLoader.load(data: Data("{\"identifier\": \"T\", \(members)}".utf8), file: "Test.storekit")
}

private func subscription(_ id: String, period: String = "P1M") -> String {
    """
    {"productID": "\(id)", "type": "RecurringSubscription", "displayPrice": "1.99", "groupNumber": 1,
     "recurringSubscriptionPeriod": "\(period)", "localizations": []}
    """
}

private func errorLocation(_ body: () throws -> Catalog) -> CatalogError.Location? {
    do { _ = try body(); return nil } catch let error as CatalogError { return error.location } catch { return nil }
}

@Suite("Importing .storekit files")
struct StoreKitImportTests {
    @Test("every real .storekit file imports with exactly the products it contains", arguments: allFixtures)
    func importsEveryFixture(_ expected: FixtureCounts) throws {
        let catalog = try load(expected.file)
        func count(_ type: ProductType) -> Int { catalog.products.filter { $0.type == type }.count }
        #expect(count(.consumable) == expected.consumable)
        #expect(count(.nonConsumable) == expected.nonConsumable)
        #expect(count(.autoRenewable) == expected.autoRenewable)
        #expect(count(.nonRenewing) == expected.nonRenewing)
        #expect(catalog.subscriptionGroups.count == expected.groups)
        #expect(catalog.offerCodes.count == expected.offerCodes)
        let terms = catalog.products.compactMap(\.subscription)
        #expect(terms.flatMap(\.winBackOffers).count == expected.winBack)
        #expect(terms.flatMap(\.promotionalOffers).count == expected.promotional)
        #expect(catalog.app.name == (expected.file as NSString).deletingPathExtension)
    }

    @Test("subscriptions keep their group, groupNumber as level and recurringSubscriptionPeriod")
    func subscriptionTerms() throws {
        let catalog = try load("cntrump+SKDemo__Products.storekit")
        #expect(catalog.group("3F19ED53")?.referenceName == "Software Services")
        #expect(catalog.subscriptions(inGroup: "3F19ED53").map(\.id) == ["subscription.pro", "subscription.premium", "subscription.standard"])
        #expect(catalog.product("subscription.standard")?.subscription?.level == 3)
        #expect(catalog.product("subscription.standard")?.subscription?.period == Period(1, .month))
        #expect(catalog.app.bundleID == "com.example.storekit-config.e8be4d16")
    }

    @Test("a .storekit non-renewing subscription has no duration: none is invented")
    func nonRenewingHasNoDuration() throws {
        let catalog = try load("cntrump+SKDemo__Products.storekit")
        #expect(catalog.product("nonRenewing.standard")?.type == .nonRenewing)
        #expect(catalog.product("nonRenewing.standard")?.duration == nil)
    }

    @Test("settings map to test settings: SKDemo _timeRate 15")
    func skDemoSettings() throws {
        let settings = try load("cntrump+SKDemo__Products.storekit").settings
        #expect(settings.timeRate == .monthlyRenewalEveryThirtySeconds)
        #expect(settings.askToBuy == false)
        #expect(settings.failures.isEmpty)
    }

    @Test("settings map to test settings: StoreHelperDemo _timeRate 1002")
    func storeHelperSettings() throws {
        let settings = try load("russell-archer+StoreHelperDemo__Products.storekit").settings
        #expect(settings.timeRate == .oneRenewalEveryMinute)
        #expect(settings.storefront == "USA")
        #expect(settings.locale == "en_US")
    }

    @Test("_storefront comes first and every storefront sells every product")
    func storefrontFirst() throws {
        let catalog = try load("xmliszt+joodle__Store.storekit")
        #expect(catalog.settings.storefront == "SGP")
        #expect(catalog.storefronts.first?.code == "SGP")
        #expect(Set(catalog.storefronts.map(\.code)) == Set(Storefront.all.map(\.code)))
        #expect(catalog.storefronts.count == Storefront.all.count)
    }

    @Test("the one displayPrice is used in every storefront with its currency")
    func displayPriceEverywhere() throws {
        let catalog = try load("cntrump+SKDemo__Products.storekit")
        for product in catalog.products {
            #expect(product.prices.count == Storefront.all.count)
        }
        #expect(catalog.product("nonconsumable.car")?.prices["JPN"] == Decimal(string: "1.99"))
        let car = try #require(catalog.products(for: ["nonconsumable.car"], storefront: "JPN", locale: "ja_JP").first)
        #expect(car.currency == "JPY")
        #expect(car.displayPrice == PriceFormatter.displayPrice(Decimal(string: "1.99")!, currency: "JPY", locale: "ja_JP"))
        #expect(car.displayPrice.contains("¥") || car.displayPrice.contains("￥"))
        let usd = try #require(catalog.products(for: ["nonconsumable.car"], storefront: "USA", locale: "en_US").first)
        #expect(usd.displayPrice == "$1.99")
    }

    @Test("introductoryOffer object: payUpFront, payAsYouGo and free trials")
    func introductoryOfferObject() throws {
        let pro = try load("cntrump+SKDemo__Products.storekit").product("subscription.pro")?.subscription?.introductoryOffer
        #expect(pro?.type == .introductory)
        #expect(pro?.paymentMode == .payUpFront)
        #expect(pro?.period == Period(2, .month))
        #expect(pro?.periodCount == 1)
        #expect(pro?.price(in: "GBR") == Decimal(string: "1.99"))

        let foodTruck = try load("apple+sample-food-truck__Products.storekit")
        let monthly = foodTruck.product("socialfeedplus.monthly")?.subscription?.introductoryOffer
        #expect(monthly?.paymentMode == .payAsYouGo)
        #expect(monthly?.periodCount == 3)
        #expect(monthly?.price(in: "USA") == Decimal(string: "2.49"))

        let birds = try load("apple+sample-backyard-birds__Store.storekit")
        #expect(birds.product("pass.premium")?.subscription?.introductoryOffer?.paymentMode == .freeTrial)
        #expect(birds.product("pass.premium")?.subscription?.introductoryOffer?.prices.isEmpty == true)
    }

    @Test("introductoryOffers array (5.0+): the first is the introductory offer")
    func introductoryOffersArray() throws {
        let catalog = try load("RevenueCat+purchases-ios__UnitTestsConfiguration.storekit")
        let intro = catalog.product("com.revenuecat.annual_39.99.2_week_intro")?.subscription?.introductoryOffer
        #expect(intro?.paymentMode == .freeTrial)
        #expect(intro?.period == Period(2, .week))
        #expect(catalog.product("com.revenuecat.annual_with_commitment")?.subscription?.introductoryOffer == nil)
        #expect(try load("xmliszt+joodle__Store.storekit").product("dev.liyuxuan.joodle.pro.yearly")?.subscription?.introductoryOffer == nil)
    }

    @Test("adHocOffers become promotional offers identified by offerID")
    func promotionalOffers() throws {
        let catalog = try load("RevenueCat+purchases-ios__UnitTestsConfiguration.storekit")
        let terms = try #require(catalog.product("com.revenuecat.monthly_4.99.1_week_intro")?.subscription)
        let payAsYouGo = try #require(terms.offer(id: "com.revenuecat.monthly_4.99.1_week_intro.pay_as_you_go"))
        #expect(payAsYouGo.type == .promotional)
        #expect(payAsYouGo.paymentMode == .payAsYouGo)
        #expect(payAsYouGo.periodCount == 2)
        #expect(payAsYouGo.price(in: "DEU") == Decimal(string: "20.15"))
    }

    @Test("winbackOffers become win-back offers with isEligible")
    func winBackOffers() throws {
        let catalog = try load("comexbackkid+LeftPocket__StoreKitConfiguration.storekit")
        let offer = try #require(catalog.product("lp_699_1m")?.subscription?.offer(id: "winbackoffer_399_1m"))
        #expect(offer.type == .winBack)
        #expect(offer.isEligible)
        #expect(offer.paymentMode == .payAsYouGo)
        #expect(offer.periodCount == 12)
        #expect(offer.price(in: "USA") == Decimal(string: "3.99"))
    }

    @Test("code offers get codes from their reference names, numbered on collision")
    func generatedCodes() throws {
        let catalog = try load("comexbackkid+LeftPocket__StoreKitConfiguration.storekit")
        #expect(catalog.offerCodes.map(\.code) == [
            "AFFILIATES", "LEFTPOCKET1YR", "AFFILIATES2", "AFFILIATES1MONTHFREE", "AFFILIATEMARKETERS",
            "WSOPPROMO", "AFFILIATEMARKETERS2", "LEFTPOCKETAFFILIATETEAM", "LEFTPOCKETFRIENDSFAMILY",
        ])
        #expect(try load("xmliszt+joodle__Store.storekit").offerCodes.map(\.code)
            == ["1MONTHJOODLEPROFREE", "1MONTHFREE", "1YEARFREE", "MERGEEK"])
        #expect(StoreKitImporter.code(referenceName: "推广", internalID: "4b6a-062c", taken: []) == "4B6A062C")
        #expect(StoreKitImporter.code(referenceName: "", internalID: "", taken: ["CODE"]) == "CODE2")
    }

    @Test("code collisions are reported at load, naming both offers")
    func codeCollisionsReported() throws {
        let catalog = try load("comexbackkid+LeftPocket__StoreKitConfiguration.storekit")
        #expect(catalog.warnings.count == 2)
        #expect(catalog.warnings.first?.contains("makes the code AFFILIATES, already made by ") == true)
        #expect(catalog.warnings.first?.contains("its code is AFFILIATES2") == true)
        #expect(try load("xmliszt+joodle__Store.storekit").warnings.isEmpty)
    }

    @Test("a code offer's reference name redeems it too, spelled in any case")
    func referenceNameIsACode() throws {
        let catalog = try load("xmliszt+joodle__Store.storekit")
        let offer = try #require(catalog.offerCodes.last)
        #expect(catalog.offerCode(offer.referenceName.lowercased())?.code == offer.code)
        #expect(catalog.offerCode(offer.code)?.code == offer.code)
    }

    @Test("generated codes are stable across imports and redeemable case-insensitively")
    func codesStableAndRedeemable() throws {
        let file = "comexbackkid+LeftPocket__StoreKitConfiguration.storekit"
        let first = try load(file), second = try load(file)
        #expect(first.offerCodes == second.offerCodes)
        let code = try #require(first.offerCode("  affiliates2 "))
        #expect(code.productID == "lp_699_1m")
        #expect(code.referenceName == "Affiliates")
        #expect(code.eligibility == [.new])
        #expect(code.redemptionLimit == nil)
        #expect(code.offer?.type == .code)
        #expect(code.offer?.paymentMode == .freeTrial)
        #expect(code.offer?.period == Period(3, .month))

        let foodTruck = try load("apple+sample-food-truck__Products.storekit")
        let half = try #require(foodTruck.offerCode("HalfOffFirstYear"))
        #expect(half.productID == "socialfeedplus.yearly")
        #expect(half.offer?.paymentMode == .payUpFront)
        #expect(half.offer?.price(in: "USA") == Decimal(string: "29.99"))
        #expect(half.eligibility == [.new])
    }

    @Test("localizations keep Xcode's locales and are matched by fallback (zh_CN → zh_Hans)")
    func localizations() throws {
        let catalog = try load("xmliszt+joodle__Store.storekit")
        let lifetime = try #require(catalog.product("dev.liyuxuan.joodle.pro.lifetime"))
        #expect(lifetime.localizations.map(\.locale) == ["ja", "fr", "zh_Hant", "ko", "en_US", "zh_Hans", "tr"])
        let zh = try #require(catalog.products(for: [lifetime.id], storefront: "CHN", locale: "zh_CN").first)
        #expect(zh.displayName == "Joodle Pro 终身版")
        #expect(zh.description == "永久解锁全部功能")
        #expect(catalog.group("21852566")?.name(for: "tr_TR") == "Joodle pro")
        #expect(catalog.group("21852566")?.localizedNames.count == 7)

        let helper = try load("russell-archer+StoreHelperDemo__Products.storekit")
        let gb = try #require(helper.products(for: ["com.rarcher.nonconsumable.flowers.large"], storefront: "GBR", locale: "en_GB").first)
        #expect(gb.description == "Lovely large flowers")
    }

    @Test("an empty displayName falls back to the reference name")
    func displayNameFallback() throws {
        let catalog = try load("RevenueCat+purchases-ios__UnitTestsConfiguration.storekit")
        #expect(catalog.product("com.revenuecat.annual_with_commitment")?.localizations.first?.displayName
            == "sub with 12mo monthly commitment")
    }

    @Test("_storeKitErrors are mapped by type and index, by name or position; what cannot be mapped is reported")
    func storeKitErrors() throws {
        let catalog = try storekit("""
            "settings": {"_storeKitErrors": [
              {"name": "Purchase", "enabled": true, "current": {"index": 2, "type": "purchase"}},
              {"name": "Load Products", "enabled": true, "current": null},
              {"name": "Something Xcode renamed", "enabled": true, "current": {"index": 4, "type": "verification"}},
              {"name": "App Store Sync", "enabled": true, "current": {"index": 2, "type": "generic"}},
              {"name": "Subscription Status", "enabled": true, "current": {"index": 99, "type": "generic"}},
              {"name": "App Transaction", "enabled": true, "current": {"index": 0, "type": "purchase"}},
              {"name": "Refund Request Sheet", "enabled": false, "current": {"index": 0, "type": "generic"}}
            ]}
            """)
        #expect(catalog.settings.failures == [
            .purchase: .purchase(.purchaseNotAllowed),
            .loadProducts: .storeKit(.networkError),
            .verification: .verification(.invalidSignature),  // third entry, matched by position
            .appStoreSync: .storeKit(.networkError),
        ])
        #expect(catalog.warnings.count == 2)
        #expect(catalog.warnings.first?.contains("settings._storeKitErrors[4].current: Subscription Status error generic #99") == true)
        #expect(catalog.warnings.last?.contains("App Transaction error purchase #0 has no equivalent") == true)
    }

    @Test("_failTransactionsEnabled makes purchases fail with StoreKitError.unknown, as the session's failTransactionsEnabled")
    func failTransactions() throws {
        let catalog = try storekit(#""settings": {"_failTransactionsEnabled": true, "_askToBuyEnabled": true, "_billingIssuesEnabled": true, "_renewalBillingIssuesEnabled": true, "_billingGracePeriodEnabled": true}"#)
        #expect(catalog.settings.failures == [.purchase: .storeKit(.unknown)])
        #expect(catalog.settings.askToBuy && catalog.settings.interruptedPurchases)
        #expect(catalog.settings.billingRetryOnRenewal && catalog.settings.gracePeriod)
    }

    @Test("subscriptionOffersKeyPair is the key offer signatures are checked against; one that is not a P-256 key in base64 is an error naming it")
    func offersKeyPair() throws {
        let key = try #require(try load("russell-archer+StoreHelperDemo__Products.storekit").offerSigningKey)
        #expect(key.keyID == "5509FCF1" && key.privateKeyPEM.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        #expect(try storekit(#""subscriptionOffersKeyPair": null"#).offerSigningKey == nil)
        for key in ["not base64!", Data("a text, not a key".utf8).base64EncodedString()] {
            let location = errorLocation { try storekit(#""subscriptionOffersKeyPair": {"id": "AB12CD34", "privateKey": "\#(key)"}"#) }
            #expect(location == .field("subscriptionOffersKeyPair.privateKey"), "\(key)")
        }
    }

    @Test("a .storekit file's store approves refund requests at once, as Xcode's test environment does")
    func refundRequestsApprovedAtOnce() throws {
        #expect(try storekit(#""settings": {}"#).settings.autoApproveRefunds)
    }

    @Test("an unknown product type is an error naming its path")
    func unknownType() {
        let location = errorLocation { try storekit(#""products": [{"productID": "a", "type": "Consumable", "displayPrice": "1"}, {"productID": "b", "type": "Bundle", "displayPrice": "1"}]"#) }
        #expect(location == .field("products[1].type"))
    }

    @Test("a period that isn't ISO 8601 is an error naming its path")
    func badPeriod() {
        let location = errorLocation {
            try storekit(#""subscriptionGroups": [{"id": "G", "subscriptions": [\#(subscription("a")), \#(subscription("b")), \#(subscription("c", period: "monthly"))]}]"#)
        }
        #expect(location == .field("subscriptionGroups[0].subscriptions[2].recurringSubscriptionPeriod"))
    }

    @Test("a displayPrice that isn't a decimal is an error naming its path")
    func badPrice() {
        #expect(errorLocation { try storekit(#""products": [{"productID": "a", "type": "Consumable", "displayPrice": "$1"}]"#) }
            == .field("products[0].displayPrice"))
        #expect(errorLocation { try storekit(#""products": [{"productID": "a", "type": "Consumable", "displayPrice": 1.5}]"#) }
            == .field("products[0].displayPrice"))
    }

    @Test("duplicate product IDs are an error")
    func duplicateIDs() {
        let location = errorLocation {
            try storekit(#""products": [{"productID": "a", "type": "Consumable", "displayPrice": "1"}], "subscriptionGroups": [{"id": "G", "subscriptions": [\#(subscription("a"))]}]"#)
        }
        #expect(location == .field("subscriptionGroups[0].subscriptions[0].productID"))
    }

    @Test("an unknown _storefront or _timeRate is an error naming its path")
    func badSettings() {
        #expect(errorLocation { try storekit(#""settings": {"_storefront": "XYZ"}"#) } == .field("settings._storefront"))
        #expect(errorLocation { try storekit(#""settings": {"_timeRate": 7}"#) } == .field("settings._timeRate"))
    }

    @Test("unknown keys are ignored")
    func unknownKeysIgnored() throws {
        let catalog = try storekit(#""futureKey": {"x": 1}, "products": [{"productID": "a", "type": "Consumable", "displayPrice": "6", "newField": true}]"#)
        #expect(catalog.product("a")?.prices["USA"] == 6)
        #expect(catalog.app.name == "Test")
    }
}
