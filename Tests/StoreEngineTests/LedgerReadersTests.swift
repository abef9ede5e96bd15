import Foundation
import StoreCore
@testable import StoreEngine
import StorefrontTestSupport
import Testing

/// Get Transaction Info is read beside the store's actor, from read-only connections to the ledger file:
/// it must answer exactly what the actor would.
@Suite("The Server API's reads beside the store")
struct LedgerReadersTests {
    @Test func getTransactionInfoBesideTheActorAnswersWhatTheActorDoesAndSeesTheLatestCommit() async throws {
        let directory = try createdTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try LocalAppStore(catalog: Repo.instantCatalog, stateDirectory: directory)
        #expect(store.serverReaders != nil, "a ledger file has readers")
        #expect(await store.serverSignedTransaction(id: 2_000_000_001) == nil, "nothing bought yet")

        guard case .success(let coins) = try await store.purchase("com.lumenquest.coins.100", options: PurchaseOptions(), answer: .confirm) else {
            Issue.record("no purchase"); return
        }
        let id = try #require(await store.ledgerEntries().first?.id)
        #expect(await store.serverSignedTransaction(id: id) == coins, "the purchase just committed, token for token")
        #expect(await store.serverSignedTransaction(id: id) == (await store.serverTransaction(id: id))?.jws)

        await store.update { $0.askToBuy = true }
        _ = try await store.purchase("com.lumenquest.pro", options: PurchaseOptions(), answer: .confirm)
        let pending = try #require(await store.ledgerEntries().first { $0.status == .pendingApproval })
        #expect(await store.serverSignedTransaction(id: pending.id) == nil, "a purchase waiting for approval is no transaction yet")
        #expect(await store.serverTransaction(id: pending.id) == nil)
        await store.shutdown()
    }

    @Test func aLedgerInMemoryHasNoReadersAndIsAnsweredByTheActor() async throws {
        let store = try LocalAppStore(catalog: Repo.instantCatalog, stateDirectory: nil)
        #expect(store.serverReaders == nil)
        guard case .success(let coins) = try await store.purchase("com.lumenquest.coins.100", options: PurchaseOptions(), answer: .confirm) else {
            Issue.record("no purchase"); return
        }
        let id = try #require(await store.ledgerEntries().first?.id)
        #expect(await store.serverSignedTransaction(id: id) == coins)
        await store.shutdown()
    }
}
