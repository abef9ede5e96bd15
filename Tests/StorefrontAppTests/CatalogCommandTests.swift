import Foundation
import StoreCore
import Testing
@testable import StorefrontApp

@Suite("storefront catalog")
struct CatalogCommandTests {
    let catalog = try! CatalogLoader.load(path: Repo.catalog)
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

    @Test("the table shows group names, offers, every offer code and the settings")
    func tableShowsCodesGroupsOffersAndSettings() throws {
        let context = try StoreContext.resolve(CommandLineOptions(), catalogPath: Repo.catalog)
        let text = CatalogCommand.table(products, context: context)
        #expect(text.contains("Lumen Membership (lumenquest.membership) level 2"))
        #expect(text.contains("plus.winback    1 month free, then $4.99/month"))
        for code in catalog.offerCodes { #expect(text.contains(code.code + " "), "\(code.code)") }
        #expect(text.contains("Settings: storefront \"USA\""))
    }
}
