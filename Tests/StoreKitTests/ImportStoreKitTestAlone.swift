// Only StoreKitTest, as some teams' test files import it: StoreKit's types come with it (its header
// imports StoreKit's). This file fails to compile if they do not.
import StoreKitTest
import Testing

extension StoreKitSuites {
@Suite("import StoreKitTest alone")
struct ImportStoreKitTestAloneTests {
    @Test func storeKitsTypesComeWithStoreKitTest() async throws {
        let session = try SKTestSession(contentsOfURL: StoreKitSuites.configuration)
        session.disableDialogs = true
        session.clearTransactions()
        let products: [Product] = try await Product.products(for: ["nonconsumable.car"])
        let transaction: Transaction = try await session.buyProduct(identifier: "nonconsumable.car")
        #expect(products.map(\.id) == ["nonconsumable.car"] && transaction.productID == "nonconsumable.car")
    }
}
}
