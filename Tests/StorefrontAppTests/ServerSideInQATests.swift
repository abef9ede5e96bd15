import Foundation
import Testing
import StoreCore
import StoreEngine
@testable import StorefrontApp

/// What a backend did through the App Store Server API shows where the tester looks.
@Suite struct ServerSideInQATests {
    @Test func consumptionInformationABackendSentShowsBesideItsTransactionInTheQAPanel() async throws {
        let (store, manager) = try await liveStore()
        await manager.purchase("com.lumenquest.coins.100")
        let coins = try #require(await store.ledgerEntries(limit: nil).first)
        #expect(QAPanel.entryStatus(coins, locale: "en_US") == "unfinished" || QAPanel.entryStatus(coins, locale: "en_US") == "finished")
        try await store.recordConsumption(transactionID: coins.id, information: [
            "customerConsented": true, "sampleContentProvided": false, "deliveryStatus": "UNDELIVERED_SERVER_OUTAGE",
            "consumptionPercentage": 25000, "refundPreference": "GRANT_FULL",
        ])
        let answered = try #require(await store.ledgerEntries(limit: nil).first)
        #expect(QAPanel.entryStatus(answered, locale: "en_US").hasSuffix("· backend: undelivered server outage, 25% used, prefers grant full"))
        await manager.stop()
        await store.shutdown()
    }
}
