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
