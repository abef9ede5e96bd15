import Foundation
import Testing
import StoreCore
import StoreClient
@testable import StoreEngine

/// What a catch-up (a simulated year) leaves out: the events nobody listens to. Each must give
/// what the long way gives.
@Suite("Catch-up shortcuts")
struct CatchUpShortcutTests {
    @Test("events made while no app listens are passed over: a later one gets the unfinished renewals once, then new ones")
    func eventsNobodyListensToArePassedOver() async throws {
        let directory = try createdTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try LocalAppStore(catalog: Repo.instantCatalog, stateDirectory: directory, time: ManualTime())
        try await store.buyOutsideApp(productID: ID.proMonthly, familyShared: false)
        try await store.advanceTime(by: Period(2, .month))
        let updates = await store.updates()  // redelivers the purchase and its two renewals, unfinished
        await store.tick()
        try await store.advanceTime(by: Period(1, .month))
        await store.shutdown()  // ends the stream: what it holds was delivered by now
        var delivered: [Int64] = []
        for await jws in updates {
            delivered += [SignedDataVerifier(trustedRoots: [store.certificate]).transaction(jws).payload?.transactionID ?? 0]
        }
        #expect(delivered.count == 4 && Set(delivered).count == 4, "\(delivered)")
    }
}
