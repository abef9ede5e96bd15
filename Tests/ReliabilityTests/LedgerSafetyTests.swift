import Foundation
import Testing
import StoreClient
import StoreCore
import StoreEngine

/// An app on a state directory, as `storefront` opens one: the store, the wallet beside it, a StoreManager.
struct App {
    let store: LocalAppStore
    let manager: StoreManager

    init(state: String) async throws {
        store = try LocalAppStore(catalog: Repo.catalog(), stateDirectory: state)
        let wallet = try ConsumableWallet(path: state + "/wallet.sqlite")
        manager = StoreManager(source: store, verifier: SignedDataVerifier(trustedRoots: [store.certificate]), wallet: wallet)
        await manager.start()
    }

    func close() async {
        await manager.stop()
        await store.shutdown()
    }

    func buyGems(_ quantity: Int) async throws -> Int64 {
        guard case .success(let verification) = await manager.purchase("com.lumenquest.gems.500", options: PurchaseOptions(quantity: quantity)),
              let id = verification.payload?.transactionID else { throw WorkerError(description: "the purchase failed") }
        return id
    }

    func gems() async -> Int { await manager.snapshot.balances["com.lumenquest.gems.500"] ?? 0 }
}

@Suite("Ledger safety", .serialized)
struct LedgerSafetyTests {
    /// The wallet credits each transaction ID once, so a reused ID is a purchase paid for and never delivered.
    @Test("Transaction IDs never repeat in a state directory, whatever the tester deletes, clears or resets",
          arguments: ["delete the newest", "clear", "reset"])
    func transactionIDsNeverRepeat(_ action: String) async throws {
        let state = temporaryDirectory("ids")
        defer { try? FileManager.default.removeItem(atPath: state) }
        var app = try await App(state: state)
        let first = try await app.buyGems(2)
        switch action {
        case "delete the newest": try await app.store.deleteTransaction(first)
        case "clear": try await app.store.clearTransactions()
        default: try await app.store.reset()
        }
        // A restart in between: the high-water mark is the ledger's, not the process's.
        await app.close()
        app = try await App(state: state)
        let second = try await app.buyGems(3)
        #expect(second > first, "after '\(action)', a new purchase got transaction ID \(second), already used by \(first)")
        let gems = await app.gems()
        #expect(gems == 5, "after '\(action)', the wallet credited \(gems) of the 5 gem bags paid for")
        await app.close()
    }
}
