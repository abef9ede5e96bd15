import CSQLite
import Foundation
import StoreClient
import StoreCore
import StoreEngine

/// `StoreManager.refresh`, what the app does after every purchase, update and tick: where it grows.
enum RefreshFigures {
    /// An app launched on the store in `directory`, its launch's work done.
    static func launchedApp(directory: String, catalog: Catalog) async throws -> (LocalAppStore, StoreManager) {
        let store = try LocalAppStore(catalog: catalog, stateDirectory: directory)
        let manager = try await StoreStack.launchApp(on: store, stateDirectory: directory)
        // The transactions redelivered at launch are handled (each with a refresh of its own) first.
        let deadline = ContinuousClock.now + .seconds(120)
        while await manager.snapshot.unfinishedCount > 0 {
            guard ContinuousClock.now < deadline else { throw BenchError("the app did not finish its transactions at launch") }
            try await Task.sleep(for: .milliseconds(10))
        }
        return (store, manager)
    }

    /// Median refresh times of apps launched on the stores in `directories`, interleaved. Each refresh
    /// reads everything: it follows a write the store does not describe to the app (a settings save,
    /// as a tester's switch makes; see `TransactionSource.changes(since:)`), as after a renewal or
    /// another device's purchase. With nothing written, a refresh only asks what changed.
    static func refreshTimes(_ directories: [(String, Catalog)]) async throws -> [Sample] {
        var apps: [(LocalAppStore, StoreManager)] = []
        for (directory, catalog) in directories { apps.append(try await launchedApp(directory: directory, catalog: catalog)) }
        let samples = try await repeatUntilSteady(all: apps.map { store, manager in {
            await store.update { _ in }
            await manager.refresh()
        } })
        for (store, manager) in apps { await manager.stop(); await store.shutdown() }
        return samples
    }

    // MARK: refresh-subs

    /// `subscribers` customers' subscriptions, one per group (a group's purchases continue one record).
    static func subscribedStore(directory: String, subscribers: Int) async throws -> Catalog {
        let catalog = try Generate.catalog(oneTime: 0, groups: subscribers, perGroup: 1)
        let store = try LocalAppStore(catalog: catalog, stateDirectory: directory)
        for g in 0..<subscribers { try await store.buyOutsideApp(productID: "gen.group\(g).sub0", familyShared: false) }
        // Delivered and finished already: the launch measured is a returning user's, not one handling a thousand updates.
        for entry in await store.ledgerEntries() { await store.finish(transactionID: entry.id) }
        await store.shutdown()
        return catalog
    }

    static func subscriptions(_ sizes: Sizes) async throws -> Result {
        let work = temporaryDirectory("refresh-subs")
        defer { try? FileManager.default.removeItem(atPath: work) }
        let few = 10
        let (small, large) = (work + "/small", work + "/large")
        let smallCatalog = try await subscribedStore(directory: small, subscribers: few)
        let largeCatalog = try await subscribedStore(directory: large, subscribers: sizes.subscribers)
        let samples = try await refreshTimes([(small, smallCatalog), (large, largeCatalog)])
        let (a, b) = (samples[0].median, samples[1].median)
        return Result(id: "refresh-subs", figure: "refresh, \(sizes.subscribers) subscriptions", measured: b * 1000, baseline: a * 1000,
                      unit: "ms", ratio: b / a, target: "≤ 10 ms", pass: b <= 0.010,
                      note: "one subscription in each of \(sizes.subscribers) groups, read whole; baseline: \(few) subscriptions").from(samples)
    }

    // MARK: refresh-1m

    static func ledgerSize(_ sizes: Sizes) async throws -> Result {
        let work = temporaryDirectory("refresh-1m")
        defer { try? FileManager.default.removeItem(atPath: work) }
        let catalog = try Generate.catalog(oneTime: 90, groups: 2, perGroup: 5)
        let (small, huge) = (work + "/small", work + "/huge")
        try await Figures.buildLedger(directory: small, catalog: catalog, total: sizes.smallLedger)
        try await Figures.buildLedger(directory: huge, catalog: catalog, total: sizes.hugeLedger)
        let samples = try await refreshTimes([(small, catalog), (huge, catalog)])
        let (a, b) = (samples[0].median, samples[1].median)
        let label = sizes.hugeLedger >= 1_000_000 ? "\(sizes.hugeLedger / 1_000_000)M" : "\(sizes.hugeLedger / 1000)k"
        return Result(id: "refresh-1m", figure: "refresh, \(label) transactions", measured: b * 1000, baseline: a * 1000, unit: "ms",
                      ratio: b / a, target: "≤ 1.5×", pass: b <= 1.5 * a,
                      note: "read whole; baseline: same with \(sizes.smallLedger) transactions").from(samples)
    }
}
