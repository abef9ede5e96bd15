import Foundation
import Locking
import StoreKit

/// A program that imports StoreKit with no test session, as an app run from the command line: its store is
/// the one `STOREFRONT_CATALOG` names, opened when first asked for. It starts listening at launch, as an app
/// does, while it loads a product and buys it; it prints `bought <id> <product> <listening|ended>`.
enum StoreKitEnvironment {
    static func run(productID: String) async -> Never {
        let ended = Locked(false)
        _ = Task {
            for await _ in Transaction.updates {}
            ended.withLock { $0 = true }
        }
        do {
            guard let product = try await Product.products(for: [productID]).first else { fail("no product \(productID)") }
            guard case .success(.verified(let transaction)) = try await product.purchase() else { fail("the purchase did not succeed") }
            await transaction.finish()
            try await Task.sleep(for: .milliseconds(300))
            print("bought \(transaction.id) \(transaction.productID) \(ended.withLock { $0 } ? "ended" : "listening")")
            exit(0)
        } catch {
            fail("\(error)")
        }
    }
}
