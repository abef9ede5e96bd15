import Foundation
import Testing
@testable import StoreCore

/// The rules behind a large catalog's fast load: each shortcut gives what the slow path gave.
@Suite("Catalog loading shortcuts")
struct CatalogSpeedTests {
    @Test("prices are read into the same Decimal that Decimal(string:) makes", arguments: [
        "0.99", "1.50", "007.10", "10", "100", "1000.00", "1.000000", "0", "0.00", "49.99", "123456789012.123456", "999999999999.999999",
    ])
    func pricesAreExact(_ text: String) throws {
        let read = try #require(JSONField.price(text))
        let foundation = try #require(Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")))
        #expect(withUnsafeBytes(of: read) { Array($0) } == withUnsafeBytes(of: foundation) { Array($0) })
        #expect(read.description == foundation.description)
    }

    @Test("a price that is not 1–12 digits and an optional point with 1–6 digits is refused", arguments: [
        "", ".5", "5.", "1.2.3", "-1", "+1", "1e3", "1,5", " 1", "1234567890123", "1.1234567", "٣",
    ])
    func pricesAreRefused(_ text: String) {
        #expect(JSONField.price(text) == nil)
    }

    @Test("price lists shared by products are read once and still name the field when wrong")
    func sharedPriceLists() throws {
        let product = #"{"id": "ID", "type": "consumable", "localizations": {"en_US": {"displayName": "A"}}, "prices": PRICES}"#
        func catalog(_ prices: [String]) -> String {
            let products = prices.enumerated().map { product.replacingOccurrences(of: "ID", with: "p\($0)").replacingOccurrences(of: "PRICES", with: $1) }
            return #"{"app": {"name": "A", "bundleID": "a"}, "storefronts": ["USA", "DEU"], "products": [\#(products.joined(separator: ","))]}"#
        }
        let loaded = try CatalogLoader.load(data: Data(catalog([#"{"USA": "0.99", "DEU": "1.09"}"#, #"{"USA": "0.99", "DEU": "1.09"}"#]).utf8), file: "c.json")
        #expect(loaded.products.map(\.prices) == [["USA": Decimal(string: "0.99")!, "DEU": Decimal(string: "1.09")!]] + [["USA": Decimal(string: "0.99")!, "DEU": Decimal(string: "1.09")!]])
        let bad = catalog([#"{"USA": "0.99"}"#, #"{"USA": "0.99", "DEU": "x"}"#])
        #expect(throws: CatalogError(file: "c.json", location: .field("products[1].prices.DEU"), message: #""x" is not a decimal price: write 1–12 digits, optionally a point and 1–6 digits, like "4.99""#)) {
            try CatalogLoader.load(data: Data(bad.utf8), file: "c.json")
        }
    }

    @Test("strings with escapes and non-ASCII text parse as written; invalid UTF-8 is an error")
    func strings() throws {
        let json = try JSONParser.parse(#"["plain", "caf\u00e9 ☕", "tab\tand \"quote\"", "😀\ud83d\ude00"]"#)
        #expect(json == .array([.string("plain"), .string("café ☕"), .string("tab\tand \"quote\""), .string("😀😀")]))
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(Data([0x22, 0xC3, 0x28, 0x22])) }
    }

    @Test("a product's display price is formatted when shown, as PriceFormatter formats it, for each currency and locale")
    func displayPrices() {
        let catalog = Catalog(app: AppInfo(name: "A", bundleID: "a"), storefronts: [.usa, Storefront.known("DEU")!, Storefront.known("IND")!],
                              products: [CatalogProduct(id: "p", type: .consumable, referenceName: "P", localizations: [],
                                                        prices: ["USA": 1234.5, "DEU": 1234.5, "IND": 125000])])
        for (code, locale) in [("USA", "en_US"), ("DEU", "de_DE"), ("IND", "hi_IN"), ("USA", "de_DE")] {
            let product = catalog.products(storefront: code, locale: locale)[0]
            let expected = product.price.formatted(.currency(code: product.currency).locale(Locale(identifier: locale)))
            #expect(product.displayPrice == expected)
            #expect(product.displayPrice == expected)  // the second time, from what was kept
        }
    }
}
