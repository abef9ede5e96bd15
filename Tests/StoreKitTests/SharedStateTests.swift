import Foundation
import StoreCore
import StoreEngine
@_spi(Storefront) import StoreKit
import StoreKitTest
import StorefrontTestSupport
import Testing

extension StoreKitSuites {
    /// A test run on a state directory (`STOREFRONT_STATE`) and a `storefront` on the same directory are one
    /// store: the storefront shows the run's purchases, and its tester controls reach the app under test.
    @Suite("A session on a state directory")
    struct SharedStateTests {
        @Test func theStorefrontSeesTheRunsPurchasesAndItsApprovalReachesTheApp() async throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("storekit-shared-\(UUID().uuidString)").path
            setenv("STOREFRONT_STATE", directory, 1)
            defer {
                unsetenv("STOREFRONT_STATE")
                try? FileManager.default.removeItem(atPath: directory)
            }
            let session = try StoreKitSuites.freshSession()
            // What `storefront --catalog Products.storekit --state DIR` opens, beside the test run.
            let storefront = try LocalAppStore(catalog: CatalogLoader.load(path: StoreKitSuites.configuration.path), stateDirectory: directory)

            let purchase = try await StoreKitSuites.product("nonconsumable.car").purchase()
            guard case .success(let result) = purchase, case .verified(let car) = result else { Issue.record("\(purchase)"); return }
            #expect(await storefront.ledgerEntries().map(\.id) == [Int64(car.id)])
            // The very token the store signed (the one Apple's library accepts in AppleLibraryTests), for the app's backend.
            #expect(await storefront.ledgerEntries().first?.jws == result.jwsRepresentation)

            session.askToBuyEnabled = true
            #expect(try await StoreKitSuites.product("nonconsumable.racecar").purchase() == .pending)
            var updates = Transaction.updates.makeAsyncIterator()
            #expect(await updates.next()?.unsafePayloadValue.id == car.id, "unfinished, so redelivered first")
            let pending = try #require(await storefront.ledgerEntries().first { $0.status == .pendingApproval })
            try await storefront.approveAskToBuy(transactionID: pending.id)  // the QA panel's Approve
            #expect(await updates.next()?.unsafePayloadValue.productID == "nonconsumable.racecar")
            await storefront.shutdown()
        }

        @Test func aSessionUnderAStateDirectoryKeepsItsLedgerThereAfterASessionInMemoryOnTheSameFile() async throws {
            _ = try StoreKitSuites.freshSession()  // the environment, in memory
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("storekit-shared-\(UUID().uuidString)").path
            setenv("STOREFRONT_STATE", directory, 1)
            defer {
                unsetenv("STOREFRONT_STATE")
                try? FileManager.default.removeItem(atPath: directory)
            }
            _ = try StoreKitSuites.freshSession()
            let car = try await StoreKitSuites.buy("nonconsumable.car")
            let storefront = try LocalAppStore(catalog: CatalogLoader.load(path: StoreKitSuites.configuration.path), stateDirectory: directory)
            #expect(await storefront.ledgerEntries().map(\.id) == [Int64(car.id)])
            await storefront.shutdown()
        }
    }
}

extension StoreKitSuites {
    /// Two apps on two stores in one process (what a scenario's devices need): each task talks to its own.
    @Suite("A connection for a task")
    struct TaskConnectionTests {
        @Test func eachTaskTalksToItsOwnStore() async throws {
            let session = try StoreKitSuites.freshSession()
            _ = session
            let other = try LocalAppStore(catalog: CatalogLoader.load(path: StoreKitSuites.configuration.path), stateDirectory: nil)
            try await other.setStorefront("JPN", locale: nil)
            let there = try await StoreKitRuntime.withConnection(StoreConnection(store: other)) {
                let car = try await StoreKitSuites.product("nonconsumable.car")
                guard case .success(.verified(let bought)) = try await car.purchase() else { throw StoreKit.StoreKitError.unknown }
                return (await Storefront.current?.countryCode, bought)
            }
            #expect(there.0 == "JPN" && there.1.storefront.countryCode == "JPN")
            await there.1.finish()  // outside the task that bought it: a transaction is finished on the store it came from
            #expect(await other.unfinishedTransactions().isEmpty)
            #expect(await Storefront.current?.countryCode == "USA")
            var here: [Transaction] = []
            for await result in Transaction.all { here.append(result.unsafePayloadValue) }
            #expect(here.isEmpty, "the purchase was made on the other store")
            #expect(await other.ledgerEntries().count == 1)
            await other.shutdown()
        }
    }
}
