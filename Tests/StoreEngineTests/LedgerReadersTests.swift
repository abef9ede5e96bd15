import Foundation
import Locking
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

    /// A store on a ledger file of its own, with a consumable bought: the store, its directory, the token and its ID.
    static func storeWithCoins() async throws -> (LocalAppStore, directory: String, coins: String, id: Int64) {
        let directory = try createdTemporaryDirectory()
        let store = try LocalAppStore(catalog: Repo.instantCatalog, stateDirectory: directory)
        guard case .success(let coins) = try await store.purchase("com.lumenquest.coins.100", options: PurchaseOptions(), answer: .confirm) else {
            throw TestControlError("the purchase did not succeed")
        }
        return (store, directory, coins, try #require(await store.ledgerEntries().first?.id))
    }

    @Test func aTokenReadBesideTheActorIsTheRowsNewOneOnceTheRowChanges() async throws {
        let (store, directory, coins, id) = try await Self.storeWithCoins()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let readers = try #require(store.serverReaders)
        for _ in 0..<2 { #expect(readers.read { try $0.completedToken(id) } == coins) }
        #expect(readers.read { $0.rebuiltTokens.count } == 1, "rebuilt once, then kept while the row is unchanged")
        #expect(readers.read { $0.rebuiltTokenLimit } == LedgerReaders.keptTokens, "a reader keeps a few, not the store's thousands")
        try await store.refund(transactionID: id, prorated: false, reason: .other)
        let refunded = try #require(await store.serverTransaction(id: id)?.jws)
        #expect(refunded != coins, "a refund signs the transaction again")
        #expect(readers.read { try $0.completedToken(id) } == refunded, "the refunded token, not the one kept")
        // A refund committed between reading the row's stored form and its payload: the row read whole
        // again, never the new payload under the old signature.
        #expect(readers.read { try $0.rebuiltToken(id, stored: Ledger.signature(of: coins)) } == refunded)
        await store.shutdown()
    }

    @Test func readersAreOpenedOnlyWhileOthersAreBusyAndWithAllBusyTheActorAnswers() async throws {
        let (store, directory, coins, id) = try await Self.storeWithCoins()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let readers = try #require(store.serverReaders)
        for _ in 0..<3 { #expect(readers.read { try $0.completedToken(id) } == coins) }
        #expect(readers.opened == 1, "one at a time: one connection")

        // Each read holding its reader while the next asks: every slot taken, then none left.
        func nested(_ depth: Int) -> [String?] {
            guard depth > 0 else { return [] }
            return readers.read { ledger in [try ledger.completedToken(id)] + nested(depth - 1) } ?? [nil]
        }
        #expect(nested(LedgerReaders.limit + 1) == Array(repeating: coins, count: LedgerReaders.limit) + [nil])
        #expect(readers.opened == LedgerReaders.limit)
        #expect(readers.read { try $0.completedToken(id) } == coins, "and each slot is free again")
        #expect(readers.opened == LedgerReaders.limit, "reopening none")

        // Every slot held by another thread (as connection threads mid-request): the store's actor answers.
        let (holding, release, released) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        let holders = (0..<LedgerReaders.limit).map { _ in
            Thread { _ = readers.read { _ in holding.signal(); release.wait() }; released.signal() }
        }
        holders.forEach { $0.start() }
        for _ in holders { holding.wait() }
        #expect(readers.read { try $0.completedToken(id) } == nil, "every slot is taken")
        #expect(await store.serverSignedTransaction(id: id) == coins, "answered by the actor")
        for _ in holders { release.signal() }
        for _ in holders { released.wait() }  // given back: under load they woke after the threads below had all finished

        // Threads at once, more than there are slots (connection threads are threads, not tasks): each
        // read is answered whole by a reader of its own, or refused.
        let answers = Locked<[String?]>([])
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<8 {
            Thread {
                var got: [String?] = []
                for _ in 0..<200 { got.append(readers.read { try $0.completedToken(id) } ?? nil) }
                answers.withLock { $0 += got }
                done.signal()
            }.start()
        }
        for _ in 0..<8 { done.wait() }
        let all = answers.withLock { $0 }
        #expect(all.count == 1600 && all.allSatisfy { $0 == nil || $0 == coins } && all.contains(coins))
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
