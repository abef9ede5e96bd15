import Foundation
import Testing
import StoreCore
@testable import StoreEngine
import StorefrontTestSupport

/// Xcode's test environment numbers transactions from 0, and from 0 again after a clear (`TransactionNumbering.xcode`).
@Suite("Xcode's transaction numbering")
struct XcodeNumberingTests {
    func purchase(_ store: LocalAppStore, _ productID: String) async throws -> Int64 {
        guard case .success = try await store.purchase(productID, options: PurchaseOptions(), answer: .confirm) else {
            throw CancellationError()
        }
        return try #require(await store.ledgerEntries(limit: 1).first?.id)
    }

    @Test("A clear forgets what named the old IDs: the next transaction 0 has no consumption data, and its subscription's extensions are its own")
    func aClearForgetsWhatNamedTheOldIDs() async throws {
        let time = ManualTime()
        let store = try LocalAppStore(catalog: Repo.testCatalog, stateDirectory: nil, time: time, numbering: .xcode)
        #expect(try await purchase(store, ID.coins) == 0)
        try await store.recordConsumption(transactionID: 0, information: .object([("customerConsented", .bool(true))]))
        #expect(try await purchase(store, ID.proMonthly) == 1)
        let before = try await store.extendRenewalDate(originalTransactionID: 1, days: 10, reasonCode: 1, requestID: "extend-1")

        try await store.clearTransactions()
        time.advance(86_400)
        #expect(try await purchase(store, ID.coins) == 0)
        #expect(await store.consumption(transactionID: 0) == nil, "the consumption data was the cleared transaction 0's")
        #expect(try await purchase(store, ID.proMonthly) == 1)
        let after = try await store.extendRenewalDate(originalTransactionID: 1, days: 10, reasonCode: 1, requestID: "extend-1")
        #expect(after.effectiveDate == before.effectiveDate.addingTimeInterval(86_400), "extended, not the cleared subscription's answer again")
    }
}
