import Foundation
import StoreClient
import StoreCore
import StoreEngine
import StoreSigning

/// An app coming back after years away: the store renewed its subscriptions meanwhile, and at launch
/// `Transaction.updates` redelivers every unfinished renewal, which the app verifies, credits and
/// finishes. In a fresh process (its peak RSS is the launch's), against the raw verify rate.
enum RedeliveryFigures {
    /// Monthly subscribers and the years they were away: 300 × 60 months = 18,000 renewals.
    static func shape(_ sizes: Sizes) -> (subscribers: Int, years: Int) { sizes.largeLedger < 100_000 ? (50, 2) : (300, 5) }

    static func run(_ sizes: Sizes) async throws -> Result {
        let (subscribers, years) = shape(sizes)
        let directory = temporaryDirectory("redelivery")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let catalog = try Generate.catalog(oneTime: 0, groups: subscribers, perGroup: 1)
        let catalogPath = directory + "/catalog.json"
        try Generate.catalogData(catalog).write(to: URL(fileURLWithPath: catalogPath))
        let state = directory + "/state"
        do {
            let store = try LocalAppStore(catalog: catalog, stateDirectory: state)
            for g in 0..<subscribers { try await store.buyOutsideApp(productID: "gen.group\(g).sub0", familyShared: false) }
            try await store.advanceTime(by: Period(years, .year))
            await store.shutdown()
        }
        // Then once more on the same ledger, every transaction finished: the first frame with nothing to redeliver.
        let probes = try [state, state].map { try Figures.runSelf(["redelivery-probe", "--catalog", catalogPath, "--state", $0]) }
        let fields = probes.map { $0.split(separator: " ").compactMap { Double($0) } }
        guard fields.allSatisfy({ $0.count == 5 }) else { throw BenchError("redelivery-probe said: \(probes)") }
        let (count, seconds, firstFrame, peak, raw) = (fields[0][0], fields[0][1], fields[0][2], fields[0][3] / 1_000_000, fields[0][4])
        let (rate, quietFrame) = (count / seconds, fields[1][2])
        let waited = firstFrame <= 2 * quietFrame + 0.05
        return Result(id: "redelivery", figure: "redelivery at launch, \(Int(count)) unfinished renewals", measured: rate, baseline: raw,
                      unit: "/s", ratio: rate / raw, target: "≥ 0.50×, ≤ 150 MB", pass: rate >= 0.5 * raw && peak <= 150 && waited,
                      note: String(format: "%.2f s; peak RSS %.0f MB; first frame's snapshot after %.0f ms (%.0f ms with nothing unfinished, ", seconds,
                                   peak, firstFrame * 1000, quietFrame * 1000)
                          + "≤ 2× + 50 ms); \(subscribers) monthly subscribers away \(years) years, then StoreManager launched in a fresh process "
                          + "until every transaction is verified, credited and finished; baseline: raw ECDSA P-256 verifies a second in the same "
                          + "process, before and after")
    }

    /// Seconds a raw ECDSA verify takes, each of 5 rounds of 500 (what the app's verify cannot beat).
    static func rawVerifyTimes() throws -> [Double] {
        let baseline = RawECDSABaseline(key: try StoreIdentity.ephemeral().key)
        let digest = [UInt8](repeating: 7, count: 32)
        let der = try baseline.sign(digest: digest)
        return (0..<5).map { _ in
            elapsed { for _ in 0..<500 { _ = baseline.verify(derSignature: der, digest: digest) } } / 500
        }
    }

    /// The `redelivery-probe` mode: launch the app on the state and wait until nothing is unfinished.
    /// Prints the transactions redelivered, the seconds until all were finished, the seconds until
    /// the first frame's snapshot was read, the peak RSS, and raw verifies a second around the run.
    static func probe(catalogPath: String, state: String) async throws {
        let catalog = try CatalogLoader.load(path: catalogPath)
        let store = try LocalAppStore(catalog: catalog, stateDirectory: state)
        let count = await store.unfinishedCount()
        var rawTimes = try rawVerifyTimes()
        let start = ContinuousClock.now
        let manager = try await StoreStack.launchApp(on: store, stateDirectory: state, historyAfterFirstFrame: true)
        _ = await manager.snapshot  // what the first frame draws
        let firstFrame = (ContinuousClock.now - start).seconds
        let deadline = start + .seconds(600)
        while await manager.snapshot.unfinishedCount > 0 {
            guard ContinuousClock.now < deadline else { throw BenchError("the app did not finish its transactions in 600 s") }
            try await Task.sleep(for: .milliseconds(5))
        }
        let seconds = (ContinuousClock.now - start).seconds
        guard await store.unfinishedTransactions().isEmpty else { throw BenchError("the app's snapshot says none is unfinished, the store does not") }
        let peak = Machine.peakRSS
        rawTimes += try rawVerifyTimes()
        print("\(count) \(seconds) \(firstFrame) \(peak) \(1 / Sample(times: rawTimes).median)")
        await manager.stop()
        await store.shutdown()
    }
}
