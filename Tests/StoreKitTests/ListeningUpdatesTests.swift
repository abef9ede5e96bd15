import Foundation
import StoreCore
import StoreEngine
@_spi(Storefront) import StoreKit
import StorefrontTestSupport
import Testing

/// `Transaction.listeningUpdates()`, what Storefront's own app listens with: the store hands out the
/// unfinished transactions at the moment a listener starts, so it must have started when the call returns.
@Suite("Listening from launch")
struct ListeningUpdatesTests {
    @Test(.timeLimit(.minutes(1))) func listeningUpdatesListensWhenItReturnsSoATransactionFinishedBeforeTheFirstReadStillArrives() async throws {
        let store = try LocalAppStore(catalog: CatalogLoader.load(path: StoreKitSuites.configuration.path), stateDirectory: nil)
        let connection = StoreConnection(store: store)
        let updates = await StoreKitRuntime.withConnection(connection) { await Transaction.listeningUpdates() }
        try await store.buyOutsideApp(productID: "nonconsumable.car", familyShared: false)
        let bought = try #require(await store.ledgerEntries().first)
        await store.finish(transactionID: bought.id)  // finished before anything is read: a late listener would never see it
        let first = await StoreKitRuntime.withConnection(connection) {
            var iterator = updates.makeAsyncIterator()
            return await iterator.next()
        }
        #expect(first?.unsafePayloadValue.id == UInt64(bought.id))
        await store.shutdown()
    }
}
