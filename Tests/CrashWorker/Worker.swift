import Foundation
import StoreClient
import StoreCore
import StoreEngine
import StorefrontTestSupport

/// The crash tests' worker: an app that buys consumables and non-consumables through StoreManager
/// (deliver, then finish) and prints one line per purchase after `purchase` returns: `ok <transactionID> <productID> <quantity>` or `fail <productID> <error>`.
/// `nonConsumables` is how many of them it picks from: a few make two workers race for the same ones.
enum Worker {
    static let consumables = ["com.lumenquest.coins.100", "com.lumenquest.gems.500"]
    static let nonConsumables = 5000

    /// The bundled catalog plus many non-consumables, so a long run never runs out of things to buy.
    static func catalog() -> Catalog {
        var catalog = Repo.testCatalog
        let prices = Dictionary(uniqueKeysWithValues: catalog.storefronts.map { ($0.code, Decimal(string: "0.99")!) })
        catalog = Catalog(app: catalog.app, storefronts: catalog.storefronts,
                          products: catalog.products + (0..<nonConsumables).map {
                              CatalogProduct(id: "bench.nc\($0)", type: .nonConsumable, referenceName: "NC \($0)",
                                             localizations: [Localization(locale: "en_US", displayName: "Unlock \($0)", description: "")],
                                             prices: prices)
                          },
                          subscriptionGroups: catalog.subscriptionGroups, offerCodes: catalog.offerCodes, settings: catalog.settings)
        return catalog
    }

    static func run(state: String, ledger: LedgerLocation? = nil, seed: UInt64, count: Int, nonConsumables pick: Int = nonConsumables) async throws {
        let stack = try await StoreStack.open(catalog: catalog(), stateDirectory: state, ledger: ledger, productIDs: consumables)
        let (store, manager) = (stack.store, stack.manager)
        var random = SeededRandom(seed: seed)
        for _ in 0..<count {
            let consumable = Int.random(in: 0..<3, using: &random) > 0
            let product = consumable ? consumables.randomElement(using: &random)! : "bench.nc\(Int.random(in: 0..<pick, using: &random))"
            let quantity = consumable ? Int.random(in: 1...5, using: &random) : 1
            switch await manager.purchase(product, options: PurchaseOptions(quantity: quantity)) {
            case .success(let verification):
                if let transaction = verification.payload, verification.isVerified {
                    emit("ok \(transaction.transactionID) \(product) \(quantity)")
                } else {
                    emit("fail \(product) unverified \(String(describing: verification.error))")
                }
            case .failed(let failure): emit("fail \(product) \(failure)")
            case .userCancelled, .pending: emit("fail \(product) not completed")
            }
        }
        await manager.stop()
        await store.shutdown()
    }

    static func emit(_ line: String) {
        print(line)
        fflush(nil)  // all streams: Swift 6 rejects the global stdout
    }
}
