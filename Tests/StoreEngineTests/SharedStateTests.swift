import Foundation
import Testing
import StoreCore
@testable import StoreEngine
import StorefrontTestSupport

/// Two processes on one state directory are one store: one clock, one set of test settings, live.
@Suite struct SharedStateTests {
    func twoStores() throws -> (LocalAppStore, LocalAppStore, ManualTime) {
        let directory = temporaryDirectory()
        let time = ManualTime()
        var catalog = Repo.catalog
        catalog.settings.networkDelay = 0
        return (try LocalAppStore(catalog: catalog, stateDirectory: directory, time: time),
                try LocalAppStore(catalog: catalog, stateDirectory: directory, time: time), time)
    }

    @Test func timeTravelInOneProcessReachesTheOtherAtItsNextTick() async throws {
        let (storefront, server, _) = try twoStores()
        try await storefront.advanceTime(by: Period(1, .month))
        #expect(await server.now() != storefront.now(), "not before it looks")
        await server.tick()
        #expect(await server.now() == storefront.now())
        await storefront.setTimeRate(.monthlyRenewalEveryThirtySeconds)
        await server.tick()
        #expect(await server.settings().timeRate == .monthlyRenewalEveryThirtySeconds)
    }

    @Test func aTestSettingChangedInOneProcessHoldsInTheOther() async throws {
        let (storefront, server, _) = try twoStores()
        await storefront.update { $0.askToBuy = true; $0.notificationURL = "http://127.0.0.1:9/n" }
        await server.tick()
        #expect(await server.settings().askToBuy)
        #expect(await server.settings().notificationURL == "http://127.0.0.1:9/n")
        // The other way round, and a change of storefront.
        try await server.setStorefront("JPN", locale: nil)
        await storefront.tick()
        #expect(await storefront.storefront().code == "JPN")
        #expect(await storefront.settings().askToBuy, "what it had set stays")
    }

    @Test func aResetInOneProcessBringsTheOtherBackToTheCatalogsSettings() async throws {
        let (storefront, server, _) = try twoStores()
        await storefront.update { $0.askToBuy = true }
        await server.tick()
        try await storefront.reset()
        await server.tick()
        #expect(await server.settings().askToBuy == false)
        #expect(await server.now() == storefront.now())
    }

    @Test("a purchase in one process reaches the other's updates() when the ledger's log is written, not at its next tick")
    func anotherProcessesPurchaseWakesUpdates() async throws {
        let directory = temporaryDirectory()
        var catalog = Repo.catalog
        catalog.settings.networkDelay = 0
        let buyer = try LocalAppStore(catalog: catalog, stateDirectory: directory)
        let listener = try LocalAppStore(catalog: catalog, stateDirectory: directory)
        await listener.setTickInterval(.seconds(3600))  // no tick comes: only the wake can deliver
        var updates = await listener.updates().makeAsyncIterator()
        #expect(await listener.follower.wake != nil)
        // Only against a hang: two CI runs of the whole suite (both cores busy, this test 65 s long)
        // went past 30 s; alone, under load, it takes under 0.2 s.
        let watchdog = Task {
            try await Task.sleep(for: .seconds(120))
            await listener.shutdown()  // ends the stream: a delivery that never comes fails rather than hangs
        }
        for _ in 0..<3 {
            let bought = try await buyer.purchase("com.lumenquest.coins.100", options: PurchaseOptions(), answer: .confirm)
            guard case .success(let jws) = bought else { Issue.record("the purchase failed"); break }
            let delivered = await updates.next()
            #expect(delivered == jws)
        }
        watchdog.cancel()
        await buyer.shutdown()
        await listener.shutdown()
    }
}
