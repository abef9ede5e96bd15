import Foundation
import StoreCore
import StoreEngine
import StoreKit
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

            guard case .success(.verified(let car)) = try await StoreKitSuites.product("nonconsumable.car").purchase() else {
                Issue.record("no purchase"); return
            }
            #expect(await storefront.ledgerEntries().map(\.id) == [Int64(car.id)])

            session.askToBuyEnabled = true
            #expect(try await StoreKitSuites.product("nonconsumable.racecar").purchase() == .pending)
            var updates = Transaction.updates.makeAsyncIterator()
            #expect(await updates.next()?.unsafePayloadValue.id == car.id, "unfinished, so redelivered first")
            let pending = try #require(await storefront.ledgerEntries().first { $0.status == .pendingApproval })
            try await storefront.approveAskToBuy(transactionID: pending.id)  // the QA panel's Approve
            #expect(await updates.next()?.unsafePayloadValue.productID == "nonconsumable.racecar")
            await storefront.shutdown()
        }
    }
}
