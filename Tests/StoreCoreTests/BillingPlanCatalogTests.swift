import Foundation
import Testing
@testable import StoreCore
import StorefrontTestSupport

private let fixtures = Repo.sharedFixtures.appendingPathComponent("storekit")

private func load(_ name: String) throws -> Catalog {
    try CatalogLoader.load(path: fixtures.appendingPathComponent(name).path)
}

/// A `.storekit` document with one yearly subscription whose members are given, for warning cases.
private func storekit(subscription members: String) throws -> Catalog {
    let text = """
    {"identifier": "T", "subscriptionGroups": [{"id": "G", "subscriptions": [
      {"productID": "com.t.annual", "type": "RecurringSubscription", "displayPrice": "29.99", "groupNumber": 1,
       "recurringSubscriptionPeriod": "P1Y", "localizations": [], \(members)}]}]}
    """
    return try CatalogLoader.load(data: Data(text.utf8), file: "Plans.storekit")
}

/// The bundled catalog with a monthly plan on its yearly subscription (`com.lumenquest.plus.yearly`).
private func yearlyWithPlans(_ edit: (inout JSONValue) -> Void = { _ in }) throws -> Catalog {
    try loadEdited { json in
        let at = "subscriptionGroups.0.subscriptions.2"
        json.set("\(at).period", "P1Y")
        json.set("\(at).billingPlans", [["type": "upFront"], ["type": "monthly", "prices": ["USA": "2.49"]]])
        edit(&json)
    }
}

@Suite("Billing plans in the catalog")
struct BillingPlanCatalogTests {
    @Test("billingPlans import from RevenueCat's file: up front and monthly, with display and commitment prices")
    func importsRevenueCatPlans() throws {
        let catalog = try load("RevenueCat+purchases-ios__UnitTestsConfiguration.storekit")
        let terms = try #require(catalog.product("com.revenuecat.annual_with_commitment")?.subscription)
        #expect(terms.billingPlans.map(\.type) == [.upFront, .monthly])
        let monthly = try #require(terms.billingPlan(.monthly))
        #expect(monthly.price(in: "USA", listed: 11.88) == Decimal(string: "0.5"))
        #expect(monthly.commitmentPrice(in: "USA", listed: 11.88) == 6)
        #expect(monthly.isEnabled)
        #expect(terms.billingPlan(.upFront)?.price(in: "JPN", listed: 11.88) == Decimal(string: "0.99"))
        // The file's up-front plan says 0.99 where the product says 11.88: the tester is told which is charged.
        #expect(catalog.warnings == ["RevenueCat+purchases-ios__UnitTestsConfiguration.storekit: "
                                     + "subscriptionGroups[0].subscriptions[2]: product com.revenuecat.annual_with_commitment: its BILLED_UPFRONT "
                                     + "plan's displayPrice 0.99 differs from its displayPrice 11.88; a purchase up front charges the plan's 0.99"])
    }

    @Test("every offer knows its billing plan: RevenueCat's adHocOffers and introductoryOffers are BILLED_UPFRONT")
    func offersKnowTheirPlan() throws {
        let terms = try #require(try load("RevenueCat+purchases-ios__UnitTestsConfiguration.storekit")
            .product("com.revenuecat.monthly_4.99.1_week_intro")?.subscription)
        #expect(terms.promotionalOffers.count == 2)
        #expect((terms.promotionalOffers + terms.introductoryOffers).allSatisfy { $0.billingPlan == .upFront })
        #expect(terms.introductoryOffer(on: .upFront)?.period == Period(3, .month))
        #expect(terms.introductoryOffer(on: .monthly) == nil)
    }

    @Test("billingPlans import from joodle's 6.3 file; its code offers are for the up-front plan")
    func importsJoodlePlans() throws {
        let catalog = try load("xmliszt+joodle__Store.storekit")
        let yearly = try #require(catalog.product("dev.liyuxuan.joodle.pro.yearly")?.subscription)
        #expect(yearly.billingPlans.map(\.type) == [.upFront])
        #expect(yearly.billingPlan(.monthly) == nil)
        #expect(catalog.offerCodes.count == 4)
        #expect(catalog.offerCodes.allSatisfy { $0.offer?.billingPlan == .upFront })
        #expect(catalog.warnings.isEmpty)
    }

    @Test("each billing plan has its own introductory offer")
    func introductoryOfferPerPlan() throws {
        let catalog = try storekit(subscription: """
            "billingPlans": [{"billingPlanType": "BILLED_UPFRONT", "displayPrice": "29.99", "isEnabled": true},
                             {"billingPlanType": "MONTHLY", "displayPrice": "2.99", "commitmentDisplayPrice": "35.88", "isEnabled": true}],
            "introductoryOffers": [{"billingPlanType": "BILLED_UPFRONT", "paymentMode": "free", "subscriptionPeriod": "P1M"},
                                   {"billingPlanType": "MONTHLY", "paymentMode": "payAsYouGo", "displayPrice": "0.99",
                                    "subscriptionPeriod": "P1M", "numberOfPeriods": 3}]
            """)
        let terms = try #require(catalog.product("com.t.annual")?.subscription)
        #expect(terms.introductoryOffer?.paymentMode == .freeTrial)
        #expect(terms.introductoryOffer(on: .monthly)?.paymentMode == .payAsYouGo)
        #expect(catalog.warnings.isEmpty)
    }

    @Test("an unknown billingPlanType is a warning naming the file and the product, and what it names is left out")
    func unknownPlanTypeWarns() throws {
        let catalog = try storekit(subscription: """
            "billingPlans": [{"billingPlanType": "BILLED_UPFRONT", "displayPrice": "29.99"},
                             {"billingPlanType": "QUARTERLY", "displayPrice": "8.99"}],
            "adHocOffers": [{"billingPlanType": "QUARTERLY", "offerID": "q", "paymentMode": "free", "subscriptionPeriod": "P1M"}]
            """)
        let terms = try #require(catalog.product("com.t.annual")?.subscription)
        #expect(terms.billingPlans.map(\.type) == [.upFront])
        #expect(terms.promotionalOffers.isEmpty)
        #expect(catalog.warnings.count == 2)
        #expect(catalog.warnings.allSatisfy { $0.hasPrefix("Plans.storekit: ") && $0.contains("product com.t.annual") && $0.contains("\"QUARTERLY\"") })
    }

    @Test("an unknown billing plan field is a warning naming the file and the product")
    func unknownPlanFieldWarns() throws {
        let catalog = try storekit(subscription: """
            "billingPlans": [{"billingPlanType": "MONTHLY", "displayPrice": "2.99", "commitmentMonths": 24}]
            """)
        #expect(catalog.product("com.t.annual")?.subscription?.billingPlan(.monthly) != nil)
        #expect(catalog.warnings == ["Plans.storekit: subscriptionGroups[0].subscriptions[0].billingPlans[0].commitmentMonths: "
                                     + "product com.t.annual: unknown billing plan field \"commitmentMonths\", ignored"])
    }

    @Test("a monthly plan on a subscription that is not yearly, and an offer for a plan not sold, are warnings")
    func unsellablePlanWarns() throws {
        let text = """
        {"identifier": "T", "subscriptionGroups": [{"id": "G", "subscriptions": [
          {"productID": "com.t.month", "type": "RecurringSubscription", "displayPrice": "2.99", "groupNumber": 1,
           "recurringSubscriptionPeriod": "P1M", "localizations": [],
           "billingPlans": [{"billingPlanType": "MONTHLY", "displayPrice": "2.99"}],
           "adHocOffers": [{"billingPlanType": "MONTHLY", "offerID": "m", "paymentMode": "free", "subscriptionPeriod": "P1M"}]}]}]}
        """
        let catalog = try CatalogLoader.load(data: Data(text.utf8), file: "Month.storekit")
        #expect(catalog.product("com.t.month")?.subscription?.billingPlans == [])
        #expect(catalog.warnings.count == 2)
        #expect(catalog.warnings[0].contains("product com.t.month: a MONTHLY billing plan needs a yearly subscription"))
        #expect(catalog.warnings[1].contains("offer \"m\" is for the MONTHLY billing plan, which is not sold"))
    }

    @Test("catalog.json takes billingPlans and offers' billingPlan, and writes them back unchanged")
    func catalogJSONRoundTrip() throws {
        let catalog = try yearlyWithPlans { json in
            json.set("subscriptionGroups.0.subscriptions.2.promotionalOffers",
                     [["id": "monthly.loyalty", "paymentMode": "freeTrial", "period": "P1M", "billingPlan": "monthly"]])
        }
        let terms = try #require(catalog.product("com.lumenquest.plus.yearly")?.subscription)
        #expect(terms.billingPlan(.monthly)?.commitmentPrice(in: "USA", listed: 0) == Decimal(string: "29.88"))
        #expect(terms.offer(id: "monthly.loyalty")?.billingPlan == .monthly)
        let text = CatalogFormat.encode(catalog).serialized()
        let again = try CatalogLoader.load(data: Data(text.utf8), file: "round-trip.json")
        #expect(again == catalog)
    }

    @Test("bad billing plans in catalog.json are errors naming the field")
    func badPlansAreErrors() {
        let at = "subscriptionGroups.0.subscriptions.2"
        func path(_ edit: @escaping (inout JSONValue) -> Void) -> String? {
            do { _ = try yearlyWithPlans(edit); return nil } catch {
                guard let error = error as? CatalogError, case .field(let path) = error.location else { return "?" }
                return path
            }
        }
        let base = "subscriptionGroups[0].subscriptions[2]"
        #expect(path { $0.set("\(at).billingPlans.1.type", "quarterly") } == "\(base).billingPlans[1].type")
        #expect(path { $0.set("\(at).billingPlans.1.months", 12) } == "\(base).billingPlans[1].months")
        #expect(path { $0.set("\(at).billingPlans.1.prices", nil) } == "\(base).billingPlans[1]")
        #expect(path { $0.set("\(at).period", "P1M") } == "\(base).billingPlans[1].type")
        #expect(path { $0.set("\(at).billingPlans.1.enabled", false); $0.set("\(at).introductoryOffer.billingPlan", "monthly") }
                == "\(base).introductoryOffer.billingPlan")
        #expect(path { $0.set("\(at).introductoryOffer.billingPlan", "yearly") } == "\(base).introductoryOffer.billingPlan")
    }

    @Test("an imported file's billing plans and plan-bound offers survive being written as catalog.json")
    func importedPlansRoundTrip() throws {
        let file = try load("RevenueCat+purchases-ios__UnitTestsConfiguration.storekit")
        // A .storekit non-renewing subscription has no duration, which catalog.json requires: left out here.
        let catalog = Catalog(app: file.app, storefronts: file.storefronts, products: file.products.filter { $0.type != .nonRenewing },
                              subscriptionGroups: file.subscriptionGroups, offerCodes: file.offerCodes, settings: file.settings)
        let again = try CatalogLoader.load(data: Data(CatalogFormat.encode(catalog).serialized().utf8), file: "converted.json")
        let id = "com.revenuecat.annual_with_commitment"
        #expect(again.product(id)?.subscription == catalog.product(id)?.subscription)
        #expect(again.product(id)?.subscription?.billingPlan(.monthly)?.commitmentPrice(in: "USA", listed: 0) == 6)
    }

    @Test("a billing plan field of the wrong type in a .storekit file is an error naming its path")
    func wrongTypeIsAnError() {
        func location(_ members: String) -> CatalogError.Location? {
            do { _ = try storekit(subscription: members); return nil } catch { return (error as? CatalogError)?.location }
        }
        let at = "subscriptionGroups[0].subscriptions[0]"
        #expect(location(#""billingPlans": {"billingPlanType": "MONTHLY"}"#) == .field("\(at).billingPlans"))
        #expect(location(#""billingPlans": [{"billingPlanType": "MONTHLY", "displayPrice": 2.99}]"#) == .field("\(at).billingPlans[0].displayPrice"))
        #expect(location(#""billingPlans": [{"billingPlanType": 2, "displayPrice": "2.99"}]"#) == .field("\(at).billingPlans[0].billingPlanType"))
        #expect(location(#""billingPlans": [{"billingPlanType": "MONTHLY", "isEnabled": "yes"}]"#) == .field("\(at).billingPlans[0].isEnabled"))
    }
}
