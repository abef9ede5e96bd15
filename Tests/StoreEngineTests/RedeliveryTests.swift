import Foundation
import Testing
import StoreCore
import StoreSigning
@testable import StoreClient
@testable import StoreEngine
import StorefrontTestSupport
import StoreVerification

/// An app launching onto many unfinished transactions (back after years away): `updates()` redelivers
/// them a page at a time, and the store's unfinished count follows its own finishes without counting.
@Suite("Redelivery at launch")
struct RedeliveryTests {
    func store(_ directory: String) throws -> LocalAppStore {
        try LocalAppStore(catalog: Repo.instantCatalog, stateDirectory: directory, time: ManualTime())
    }

    /// Xcode's numbering starts at 0: a listener begun on an empty ledger took "everything up to 0" as
    /// its unfinished ones, so the first purchase made outside the app before the redelivery ran came twice.
    @Test("A purchase made as the listener starts on an empty ledger comes once, transaction 0 included")
    func theFirstPurchaseOnAnEmptyLedgerComesOnce() async throws {
        let store = try LocalAppStore(catalog: Repo.instantCatalog, stateDirectory: nil, time: ManualTime(), numbering: .xcode)
        let updates = await store.updates()
        for _ in 0..<2 { try await store.buyOutsideApp(productID: ID.coins, familyShared: false) }
        let verifier = SignedDataVerifier(trustedRoots: [store.certificate])
        let ids = await withTaskGroup(of: [Int64]?.self) { group in
            group.addTask {
                var ids: [Int64] = []
                for await jws in updates {
                    ids.append(verifier.transaction(jws).payload?.transactionID ?? -1)
                    if ids.last == 1 { return ids }
                }
                return ids
            }
            group.addTask { try? await Task.sleep(for: .seconds(10)); return nil }
            defer { group.cancelAll() }
            return await group.next() ?? nil
        }
        #expect(ids == [0, 1])
    }

    @Test("updates() redelivers every unfinished transaction, more than a page of them, oldest first, and not those made after it was called")
    func redeliversEveryUnfinishedOnce() async throws {
        let directory = try createdTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try store(directory)
        var bought: [String] = []
        for _ in 0..<250 {
            guard case .success(let jws) = try await store.purchase(ID.coins, options: PurchaseOptions(), answer: .confirm) else {
                Issue.record("a purchase failed")
                return
            }
            bought.append(jws)
        }
        let other = try self.store(directory)
        let updates = await other.updates()
        try await store.buyOutsideApp(productID: ID.removeAds, familyShared: false)  // after: it comes live, once
        await other.tick()
        var delivered: [String] = []
        for await jws in updates {
            delivered.append(jws)
            if delivered.count == bought.count + 1 { break }
        }
        let verifier = SignedDataVerifier(trustedRoots: [store.certificate])
        #expect(Array(delivered.prefix(bought.count)) == bought)
        #expect(delivered.last.flatMap { verifier.transaction($0).payload?.productID } == ID.removeAds)
        await other.shutdown()
        await store.shutdown()
    }

    @Test("the unfinished count follows purchases and finishes (a finished one finished again changes nothing) and another process's writes")
    func unfinishedCountFollowsWrites() async throws {
        let directory = try createdTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try store(directory), other = try self.store(directory)
        func agrees() async -> Bool {
            let (count, listed) = (await store.unfinishedCount(), await store.unfinishedTransactions().count)
            return count == listed
        }
        var ids: [Int64] = []
        for _ in 0..<3 {
            _ = try await store.purchase(ID.coins, options: PurchaseOptions(), answer: .confirm)
            ids.append(try await store.highestTransactionID())
            #expect(await agrees())
        }
        for id in [ids[0], ids[0], ids[1]] {
            await store.finish(transactionID: id)
            #expect(await agrees())
        }
        #expect(await store.unfinishedCount() == 1)
        try await other.buyOutsideApp(productID: ID.removeAds, familyShared: false)
        #expect(await store.unfinishedCount() == 2)
        await other.finish(transactionID: ids[2])
        #expect(await store.unfinishedCount() == 1)
        await other.shutdown()
        await store.shutdown()
    }
}
