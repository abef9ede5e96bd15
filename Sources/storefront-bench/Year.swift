import Foundation
import StoreCore
import StoreEngine
import StoreSigning

/// Figure 7: a simulated year of monthly renewals against the floor of what it must do, in CPU time
/// on both sides, since the year signs on a second core beside its inserts (`SigningPipeline`) and
/// the floor runs on one: sign every renewal, and commit the rows the year writes, copied with bare
/// SQLite statements into the year's own ledger (as figure 2's floor does for a purchase). Signing
/// alone was the baseline once; the rows are a quarter of it, and no year can skip them.
enum YearFigures {
    static func renewals(_ sizes: Sizes) async throws -> Result {
        let catalog = try Generate.catalog(oneTime: 0, groups: sizes.subscribers, perGroup: 1)
        let identity = try StoreIdentity.ephemeral()
        var renewals = 0
        var (year, signing, rows, wall) = (Sample(times: []), Sample(times: []), Sample(times: []), Sample(times: []))
        for _ in 0..<Steadiness.slow.maximum {
            let directory = temporaryDirectory("renewals")
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let store = try LocalAppStore(catalog: catalog, stateDirectory: directory)
            for g in 0..<sizes.subscribers { try await store.buyOutsideApp(productID: "gen.group\(g).sub0", familyShared: false) }
            let before = await store.ledgerEntries().count
            let start = ContinuousClock.now
            year.times.append(try await cpuSeconds { try await store.advanceTime(by: Period(1, .year)) })
            wall.times.append((ContinuousClock.now - start).seconds)
            renewals = await store.ledgerEntries().count - before
            await store.shutdown()
            signing.times.append(try await cpuSeconds {
                for i in 0..<renewals { _ = try identity.signer.sign(payload: Data(samplePayload(id: 2_000_000_000 + Int64(i)).json.compact.utf8)) }
            })
            let copier = try LedgerRowCopier(ledger: directory + "/ledger.sqlite")
            rows.times.append(try await cpuSeconds { try copier.commit(purchases: renewals, records: sizes.subscribers) })
            if year.rounds >= Steadiness.slow.minimum, max(year.spread, signing.spread, rows.spread) <= Steadiness.slow.tolerance { break }
        }
        let (a, signed, floor) = (year.median, signing.median, signing.median + rows.median)
        return Result(id: "7", figure: "7 one simulated year, CPU time", measured: a, baseline: floor, unit: "s", ratio: a / floor,
                      target: "≤ 1.2×", pass: a <= 1.2 * floor,
                      note: "\(sizes.subscribers) monthly subscribers, \(renewals) renewals (\(String(format: "%.2f", wall.median)) s wall clock on 2 threads); "
                          + String(format: "floor: CPU time signing %d payloads (%.2f s) and committing the year's rows with bare SQLite (%.2f s); "
                                   + "against signing alone, %.2f×", renewals, signed, rows.median, a / signed))
            .from([year, signing, rows])
    }
}
