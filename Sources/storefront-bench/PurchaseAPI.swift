import Foundation
import StoreClient
import StoreCore
import StoreEngine
@_spi(Storefront) import StoreKit
import StoreVerification

/// One purchase through Apple's API as a team's own code makes it (`product.purchase()`, the library's
/// verification, `finish()`) against `StoreManager.purchase` (which also credits the wallet and refreshes
/// its snapshot), both on the same store and ledger, in the same run.
enum PurchaseAPIFigures {
    static func run(_ sizes: Sizes) async throws -> Result {
        let work = temporaryDirectory("purchase-api")
        defer { try? FileManager.default.removeItem(atPath: work) }
        let catalog = try Generate.catalog(oneTime: 90, groups: 2, perGroup: 5)
        try await Figures.buildLedger(directory: work, catalog: catalog, total: sizes.smallLedger)
        let (store, manager) = try await RefreshFigures.launchedApp(directory: work, catalog: catalog)
        let connection = StoreConnection(source: store, verifier: SignedDataVerifier(trustedRoots: [store.certificate]))
        let n = max(sizes.purchases / 20, 10)
        let product = try await StoreKitRuntime.withConnection(connection) { try await Product.products(for: [PurchaseFigures.consumable]).first }
        guard let product else { throw BenchError("the consumable is not sold through the API") }

        func throughManager() async throws {
            for _ in 0..<n {
                guard case .success(.verified) = await manager.purchase(PurchaseFigures.consumable) else { throw BenchError("a purchase failed") }
            }
        }
        func throughAPI() async throws {
            try await StoreKitRuntime.withConnection(connection) {
                for _ in 0..<n {
                    guard case .success(.verified(let transaction)) = try await product.purchase() else { throw BenchError("an API purchase failed") }
                    await transaction.finish()
                }
            }
        }
        let samples = try await repeatUntilSteady(throughManager, throughAPI)
        await manager.stop()
        await store.shutdown()
        let (managerRate, apiRate) = (Double(n) / samples[0].median, Double(n) / samples[1].median)
        return Result(id: "purchase-api", figure: "purchase through Apple's API, \(PurchaseFigures.label(sizes.smallLedger)) tx", measured: apiRate,
                      baseline: managerRate, unit: "/s", ratio: apiRate / managerRate, target: "report", pass: nil,
                      note: "product.purchase() + verification + finish(): \(String(format: "%.0f", 1e6 / apiRate)) µs each; "
                          + "StoreManager.purchase (also wallet and snapshot): \(String(format: "%.0f", 1e6 / managerRate)) µs")
            .from(samples)
    }
}
