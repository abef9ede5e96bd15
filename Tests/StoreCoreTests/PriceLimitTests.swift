import Foundation
import Testing
import StorefrontTestSupport
@testable import StoreCore

/// Prices too long for the exact reader are refused with the limit, never by trapping on overflow.
@Suite("Price limits")
struct PriceLimitTests {
    static let tooLong = ["99999999999999999999", "123456789012345678901.99", "1234567890123", "1.1234567",
                          "18446744073709551616", String(repeating: "9", count: 400), "0." + String(repeating: "9", count: 40)]

    @Test("a price of too many digits is an error naming the file, the field and the limit", arguments: tooLong)
    func catalogJSON(price: String) {
        let catalog = #"{"app": {"name": "A", "bundleID": "a"}, "storefronts": ["USA"], "products": [{"id": "p", "type": "consumable", "#
            + #""localizations": {"en_US": {"displayName": "A"}}, "prices": {"USA": "\#(price)"}}]}"#
        #expect(throws: CatalogError(file: "catalog.json", location: .field("products[0].prices.USA"),
                                     message: #""\#(price.prefix(40))" is not a decimal price: write 1–12 digits, optionally a point and 1–6 digits, like "4.99""#)) {
            try CatalogLoader.load(data: Data(catalog.utf8), file: "catalog.json")
        }
    }

    @Test("a .storekit displayPrice of too many digits is the same error")
    func storeKit() throws {
        let file = #"{"identifier": "X", "products": [{"displayPrice": "123456789012345678901.99", "familyShareable": false, "internalID": "1", "#
            + #""localizations": [{"description": "d", "displayName": "n", "locale": "en_US"}], "productID": "p", "referenceName": "p", "type": "Consumable"}], "#
            + #""settings": {}, "subscriptionGroups": [], "version": {"major": 4, "minor": 0}}"#
        #expect {
            try CatalogLoader.load(data: Data(file.utf8), file: "Products.storekit")
        } throws: { error in
            let error = error as? CatalogError
            return error?.file == "Products.storekit" && error?.description.contains("displayPrice") == true
                && error?.message.contains("1–12 digits") == true
        }
    }

    @Test("the longest prices the limit allows are read exactly")
    func longest() {
        #expect(JSONField.price("999999999999.999999") == Decimal(string: "999999999999.999999"))
        #expect(JSONField.price("123456789012") == Decimal(string: "123456789012"))
        #expect(JSONField.price("0.000001") == Decimal(string: "0.000001"))
    }
}
