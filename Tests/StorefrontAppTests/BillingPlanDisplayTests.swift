import Foundation
import StoreCore
import Testing
@testable import StorefrontApp

@Suite("Billing plans on show")
struct BillingPlanDisplayTests {
    static let path = Repo.root.appendingPathComponent("Tests/Scenarios/catalogs/billing-plans.json").path
    let catalog = try! CatalogLoader.load(path: BillingPlanDisplayTests.path)
    var products: [Product] { catalog.products(storefront: "USA", locale: "en_US") }

    @Test("a plan reads as the App Store shows it: the monthly price with its 12-month commitment")
    func planText() throws {
        let yearly = try #require(products.first)
        #expect(yearly.planText(.upFront) == "$29.99/year")
        #expect(yearly.planText(.monthly) == "$2.99/month, 12-month commitment")
        #expect(yearly.commitmentText(.monthly) == "$35.88")
        let japan = try #require(catalog.products(storefront: "JPN", locale: "ja_JP").first)
        #expect(japan.planText(.monthly)?.hasPrefix("￥480/") == true || japan.planText(.monthly)?.hasPrefix("¥480/") == true)
    }

    @Test("an offer on the monthly plan is followed by the monthly price")
    func offerTextFollowsItsPlan() throws {
        let yearly = try #require(products.first)
        let monthlyIntro = try #require(yearly.subscription?.introductoryOffer(on: .monthly))
        #expect(yearly.offerText(monthlyIntro) == "$0.99/month for 3 months, then $2.99/month, 12-month commitment")
        #expect(yearly.offerText(try #require(yearly.subscription?.introductoryOffer)) == "1 month free, then $29.99/year")
    }

    @Test("storefront catalog --json gives billingPlans and each offer's billingPlan")
    func catalogJSON() throws {
        let json = try JSONParser.parse(CatalogCommand.json(products, catalog: catalog, locale: "en_US"))
        let yearly = try #require(json.arrayValue?.first)
        let plans = try #require(yearly["billingPlans"]?.arrayValue)
        #expect(plans.compactMap { $0["billingPlanType"]?.stringValue } == ["BILLED_UPFRONT", "MONTHLY"])
        #expect(plans[1]["displayPrice"] == "$2.99" && plans[1]["billingPeriod"] == "P1M")
        #expect(plans[1]["commitmentDisplayPrice"] == "$35.88" && plans[1]["commitmentPeriod"] == "P1Y")
        #expect(yearly["offers"]?.arrayValue?.compactMap { $0["billingPlan"]?.stringValue } == ["upFront", "monthly", "upFront", "monthly"])
    }

    @Test("storefront catalog's table lists the billing plans and which plan each offer is for")
    func catalogTable() throws {
        let context = try StoreContext.resolve(CommandLineOptions(), catalogPath: Self.path)
        let text = CatalogCommand.table(products, context: context)
        #expect(text.contains("com.lumennotes.pro.yearly  monthly  $2.99/month, 12-month commitment  $35.88      yes"))
        #expect(text.contains("pro.monthly.comeback  1 month free, then $2.99/month, 12-month commitment              monthly"))
        let plain = try StoreContext.resolve(CommandLineOptions(), catalogPath: Repo.catalog)
        #expect(!CatalogCommand.table(plain.catalog.products(storefront: "USA", locale: "en_US"), context: plain).contains("Billing plans"))
    }
}
