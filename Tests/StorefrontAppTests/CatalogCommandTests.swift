import Foundation
import StoreCore
import Testing
@testable import StorefrontApp
import StorefrontTestSupport

@Suite("storefront catalog")
struct CatalogCommandTests {
    let catalog = try! CatalogLoader.load(path: Repo.catalogPath)
    var products: [Product] { catalog.products(storefront: "USA", locale: "en_US") }

    @Test("--json gives each product its offer codes as offerCodes, its group's name and its offers")
    func jsonShowsCodesGroupsAndOffers() throws {
        let json = try JSONParser.parse(CatalogCommand.json(products, catalog: catalog, locale: "en_US"))
        let items = try #require(json.arrayValue)
        let removeAds = try #require(items.first { $0["id"]?.stringValue == "com.lumenquest.removeads" })
        #expect(removeAds["offerCodes"]?.arrayValue?.first?["code"]?.stringValue == "ADFREE")
        #expect(removeAds["offerCodes"]?.arrayValue?.first?["referenceName"]?.stringValue == "Remove ads for free")
        let plus = try #require(items.first { $0["id"]?.stringValue == "com.lumenquest.plus.monthly" })
        #expect(plus["groupName"]?.stringValue == "Lumen Membership")
        #expect(plus["offers"]?.arrayValue?.compactMap { $0["type"]?.stringValue } == ["introductory", "promotional", "winBack"])
    }

    @Test("the table shows group names, offers, every offer code, what a paywall reads and the settings")
    func tableShowsCodesGroupsOffersAndSettings() throws {
        let context = try StoreContext.resolve(CommandLineOptions(), catalogPath: Repo.catalogPath)
        let text = CatalogCommand.table(products, context: context)
        #expect(text.contains("Lumen Membership (lumenquest.membership) level 2"))
        #expect(text.contains("plus.winback    1 month free, then $4.99/month"))
        for code in catalog.offerCodes { #expect(text.contains(code.code + " "), "\(code.code)") }
        #expect(text.contains("Paywall (storefront --paywall GROUP)\nLumen Membership (lumenquest.membership): Light every path · Unlock every realm"))
        #expect(text.contains("Privacy Policy: https://lumenquest.example/privacy"))
        #expect(text.contains("Settings: storefront \"USA\""))
    }


    /// Xcode's one-price behaviour: a .storekit 0.99 is ¥1 in Japan.
    @Test("a .storekit catalog in a storefront of another currency gets a one-line notice, in catalog and the QA panel")
    func onePriceNotice() async throws {
        let storekit = Repo.sharedFixtures.appendingPathComponent("storekit/apple+sample-food-truck__Products.storekit").path
        var options = CommandLineOptions()
        options.storefront = "JPN"
        let japan = try StoreContext.resolve(options, catalogPath: storekit)
        let table = CatalogCommand.table(japan.catalog.products(storefront: "JPN", locale: "ja_JP"), context: japan)
        #expect(table.split(separator: "\n")[1].hasPrefix("Note: one price for every storefront"), "\(table)")
        let usa = try StoreContext.resolve(CommandLineOptions(), catalogPath: storekit)
        #expect(!CatalogCommand.table(usa.catalog.products(storefront: "USA", locale: "en_US"), context: usa).contains("Note: one price"))
        let json = try StoreContext.resolve(options, catalogPath: Repo.catalogPath)
        #expect(!CatalogCommand.table(products, context: json).contains("Note: one price"), "a catalog.json has real prices per storefront")

        var state = AppState(catalog: japan.catalog)
        state.snapshot.storefront = japan.storefront
        #expect(QAPanel.rows(state).first { $0.label == "Storefront" }?.value.contains("one .storekit price: USD numbers") == true)
    }
}
