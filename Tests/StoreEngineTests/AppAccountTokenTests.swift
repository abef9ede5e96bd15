import Foundation
import Testing
import StoreCore
import StoreSigning
@testable import StoreEngine
import StorefrontTestSupport

/// `appAccountToken`: what a purchase passes, and what Set App Account Token changes afterwards.
@Suite("App account tokens")
struct AppAccountTokenTests {
    func store() throws -> LocalAppStore {
        var catalog = Repo.catalog
        catalog.settings.networkDelay = 0
        return try LocalAppStore(catalog: catalog, stateDirectory: nil, ledger: PostgresTestServer.defaultLedger(for: nil), time: ManualTime())
    }

    func payload(_ store: LocalAppStore, _ jws: String) -> JSONValue? {
        let result = JWSVerifier(trustedRoots: [store.certificate]).verify(jws, at: .signedDate)
        return result.payload.flatMap { try? JSONParser.parse($0) }
    }

    func newest(_ store: LocalAppStore) async throws -> LedgerEntry { try #require(await store.ledgerEntries(limit: 1).first) }

    @Test("Set App Account Token: the original transaction, the renewal info and every later renewal carry the new token")
    func setAppAccountTokenChangesWhatLaterTransactionsAndRenewalInfoCarry() async throws {
        let store = try store()
        let bought = UUID(), set = UUID()
        _ = try await store.purchase(ID.proMonthly, options: PurchaseOptions(appAccountToken: bought), answer: .confirm)
        let original = try await newest(store).id
        try await store.setAppAccountToken(originalTransactionID: original, token: set)
        #expect(await store.serverTransaction(id: original)?.payload.appAccountToken == set)
        let renewalInfo = try #require(try await store.serverSubscriptions().first?.signedRenewalInfo)
        #expect(payload(store, renewalInfo)?["appAccountToken"]?.stringValue == set.uuidString.lowercased())
        try await store.advanceTime(by: Period(1, .month))
        let renewal = try await newest(store)
        #expect(renewal.id != original && renewal.payload.appAccountToken == set, "renewals take the subscription's token, not the last transaction's")
        await store.shutdown()
    }

    @Test("Set App Account Token takes an original transaction, not a renewal's ID nor a family member's purchase")
    func setAppAccountTokenRefusals() async throws {
        let store = try store()
        _ = try await store.purchase(ID.proMonthly, options: PurchaseOptions(), answer: .confirm)
        let original = try await newest(store).id
        try await store.advanceTime(by: Period(1, .month))
        let renewal = try await newest(store).id
        await #expect(throws: LocalAppStore.AppAccountTokenFailure.notOriginalTransaction) {
            try await store.setAppAccountToken(originalTransactionID: renewal, token: UUID())
        }
        await #expect(throws: LocalAppStore.AppAccountTokenFailure.notFound) { try await store.setAppAccountToken(originalTransactionID: 9_999_999, token: UUID()) }
        try await store.buyOutsideApp(productID: ID.proYearly, familyShared: true)
        let family = try await newest(store).id
        await #expect(throws: LocalAppStore.AppAccountTokenFailure.familyShared) { try await store.setAppAccountToken(originalTransactionID: family, token: UUID()) }
        #expect(original != renewal)
        await store.shutdown()
    }
}
