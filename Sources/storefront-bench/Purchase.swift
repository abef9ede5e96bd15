import Foundation
import StoreClient
import StoreCore
import StoreEngine
import StoreSigning

/// The purchase a user makes, end to end, as the app does it: `StoreManager.purchase` of a
/// consumable (the store signs and commits; the app verifies, credits the wallet, finishes and
/// refreshes its snapshot), against the floor of what it cannot avoid, measured in the same run.
enum PurchaseFigures {
    static let consumable = "gen.item0"

    /// What one purchase commits: the store's transaction (with its event and notification) in one
    /// write, the wallet's credit, and the finish.
    static let commitsPerPurchase = 3

    /// "100", "1k", "1M".
    static func label(_ count: Int) -> String {
        count >= 1_000_000 ? "\(count / 1_000_000)M" : count >= 1000 ? "\(count / 1000)k" : "\(count)"
    }

    static func endToEnd(_ sizes: Sizes) async throws -> [Result] {
        let work = temporaryDirectory("purchase-e2e")
        defer { try? FileManager.default.removeItem(atPath: work) }
        let catalog = try Generate.catalog(oneTime: 90, groups: 2, perGroup: 5)
        let (small, huge) = (work + "/small", work + "/huge")
        try await Figures.buildLedger(directory: small, catalog: catalog, total: sizes.smallLedger)
        try await Figures.buildLedger(directory: huge, catalog: catalog, total: sizes.hugeLedger)
        var apps: [(LocalAppStore, StoreManager)] = []
        for directory in [small, huge] { apps.append(try await RefreshFigures.launchedApp(directory: directory, catalog: catalog)) }

        // The floor: one raw ES256 sign and one raw verify with the store's key, and as many committed
        // ledger-shaped inserts (the row a purchase writes, WAL and synchronous as the ledger) as a purchase commits.
        let (store, manager) = apps[0]
        guard case .success(.verified(let sample)) = await manager.purchase(consumable) else { throw BenchError("the sample purchase failed") }
        let ledgerRow = await store.ledgerEntries(limit: 1).first
        guard let row = ledgerRow, row.id == sample.transactionID, let jws = row.jws else { throw BenchError("the sample purchase is not in the ledger") }
        let raw = try Figures.RawLedger(path: work + "/raw.sqlite")
        let ecdsa = RawECDSABaseline(key: store.identity.key)
        let digest = [UInt8](repeating: 7, count: 32)
        let (payload, signature) = (row.payload.json.compact, String(jws.split(separator: ".").last!))
        func floor() throws {
            let der = try ecdsa.sign(digest: digest)
            guard ecdsa.verify(derSignature: der, digest: digest) else { throw BenchError("raw verify failed") }
            try raw.insert(count: commitsPerPurchase, payload: payload, jws: signature)
        }

        let n = max(sizes.purchases / 20, 10)
        func purchases(_ manager: StoreManager) async throws {
            for _ in 0..<n {
                guard case .success(.verified) = await manager.purchase(consumable) else { throw BenchError("a purchase failed") }
            }
        }
        let samples = try await repeatUntilSteady(
            { for _ in 0..<n { try floor() } },
            { try await purchases(apps[0].1) },
            { try await purchases(apps[1].1) })
        for (store, manager) in apps { await manager.stop(); await store.shutdown() }
        let floorRate = Double(n) / samples[0].median
        // Stable ids, also under --quick's smaller ledgers (the figure names the sizes).
        let sized = [("purchase-e2e-1k", sizes.smallLedger), ("purchase-e2e-1m", sizes.hugeLedger)]
        return sized.enumerated().map { index, size in
            let rate = Double(n) / samples[index + 1].median
            return Result(id: size.0, figure: "purchase end to end, \(label(size.1)) tx", measured: rate, baseline: floorRate, unit: "/s",
                          ratio: rate / floorRate, target: "≥ 0.60×", pass: rate >= 0.6 * floorRate,
                          note: "StoreManager.purchase of a consumable, \(n) a round, \(String(format: "%.0f", 1e6 / rate)) µs each; "
                              + "floor: raw ES256 sign + raw verify + \(commitsPerPurchase) committed ledger-row inserts "
                              + "(\(String(format: "%.0f", 1e6 / floorRate)) µs)")
                .from([samples[0], samples[index + 1]])
        }
    }
}
