import CSQLite
import Foundation
import StoreClient
import StoreCore
import StorefrontApp
import TerminalUI
import StoreEngine
import StoreSigning
import StoreVerification

/// Sizes of one run; `--quick` shrinks them so a smoke run takes seconds.
struct Sizes {
    var signings = 2000, purchases = 1000, smallLedger = 1000, largeLedger = 100_000, hugeLedger = 1_000_000
    var catalogProducts = 10_000, hugeCatalogProducts = 100_000, subscribers = 1000, rounds = 5, deliveries = 200

    static let quick = Sizes(signings: 200, purchases: 100, smallLedger: 100, largeLedger: 10_000, hugeLedger: 100_000,
                             catalogProducts: 1000, hugeCatalogProducts: 10_000, subscribers: 100, rounds: 3, deliveries: 20)
}

/// A realistic signed-transaction payload: a subscription with an offer and an account token.
func samplePayload(id: Int64 = 2_000_000_001) -> TransactionPayload {
    let now = Date()
    var payload = TransactionPayload(
        transactionID: id, originalTransactionID: 2_000_000_001, bundleID: "com.example.lumenquest",
        productID: "com.lumenquest.pro.monthly", productType: .autoRenewable, purchaseDate: now, originalPurchaseDate: now,
        quantity: 1, signedDate: now, storefront: "USA", storefrontID: "143441", currency: "USD", priceMilliunits: 4990,
        appTransactionID: "704289572911147206")
    payload.subscriptionGroupID = "lumenquest.membership"
    payload.webOrderLineItemID = String(id + 1_000_000_000)
    payload.expirationDate = now.addingTimeInterval(30 * 86_400)
    payload.appAccountToken = UUID()
    payload.offerType = .introductory
    payload.offerPaymentMode = .freeTrial
    payload.offerPeriod = Period(1, .week)
    return payload
}

enum Figures {
    // MARK: 1. JWS against raw ECDSA

    static func signing(_ sizes: Sizes) async throws -> [Result] {
        let identity = try StoreIdentity.ephemeral()
        let baseline = RawECDSABaseline(key: identity.key)
        // What the app calls on every transaction it receives: signature, chain, and the payload decoded and checked.
        let verifier = SignedDataVerifier(trustedRoots: [identity.certificate])
        let payload = Data(samplePayload().json.compact.utf8)
        let digest = [UInt8](repeating: 7, count: 32)
        let der = try baseline.sign(digest: digest)
        let token = try identity.signer.sign(payload: payload)
        guard verifier.transaction(token).isVerified else { throw BenchError("the sample token does not verify") }
        let n = sizes.signings / 4
        let samples = try await repeatUntilSteady(
            { for _ in 0..<n { _ = try baseline.sign(digest: digest) } },
            { for _ in 0..<n { _ = try identity.signer.sign(payload: payload) } },
            { for _ in 0..<n { _ = baseline.verify(derSignature: der, digest: digest) } },
            { for _ in 0..<n { _ = verifier.transaction(token) } })
        let rates = samples.map { Double(n) / $0.median }
        let note = "payload \(payload.count) B, token \(token.utf8.count) B"
        return [
            Result(id: "1a", figure: "1a JWS ES256 sign", measured: rates[1], baseline: rates[0], unit: "/s", ratio: rates[1] / rates[0],
                   target: "≥ 0.70×", pass: rates[1] >= 0.7 * rates[0], note: note).from([samples[0], samples[1]]),
            Result(id: "1b", figure: "1b the app's verify (SignedDataVerifier.transaction)", measured: rates[3], baseline: rates[2], unit: "/s",
                   ratio: rates[3] / rates[2], target: "≥ 0.80×", pass: rates[3] >= 0.8 * rates[2], note: note + ", chain cached").from([samples[2], samples[3]]),
        ]
    }

    // MARK: 2. Committed purchases against a raw signature and a bare commit of their rows each

    /// The store's side of a purchase, which must sign its transaction and commit it: the floor is one
    /// raw ECDSA signature and one bare SQLite commit of the rows a purchase writes (its transaction,
    /// event and notification, copied into another ledger with the store's schema), per purchase:
    /// the floor postgres-purchases uses, with the signature.
    static func purchases(_ sizes: Sizes) async throws -> Result {
        let directory = temporaryDirectory("purchases")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let copier = try await rowCopier(directory: directory + "/floor")
        let store = try LocalAppStore(catalog: Repo.bundledCatalog(), stateDirectory: directory + "/store")
        _ = try await buyCoins(store)
        let signer = RawECDSABaseline(key: try StoreIdentity.ephemeral().key)
        let digest = [UInt8](repeating: 7, count: 32)
        let n = max(sizes.purchases / 10, 10)
        let samples = try await repeatUntilSteady(
            { for _ in 0..<n { _ = try await buyCoins(store) } },
            {
                for _ in 0..<n {
                    _ = try signer.sign(digest: digest)
                    try copier.commit(purchases: 1)
                }
            })
        await store.shutdown()
        let (rate, baseline) = (Double(n) / samples[0].median, Double(n) / samples[1].median)
        return Result(id: "2", figure: "2 committed purchases", measured: rate, baseline: baseline, unit: "/s", ratio: rate / baseline,
                      target: "≥ 0.50×", pass: rate >= 0.5 * baseline,
                      note: "\(n) purchases a round; baseline: a raw ECDSA sign and a bare SQLite commit of a purchase's 3 rows "
                          + "(transaction, event, notification) into another ledger, its triggers and indexes, WAL + synchronous=NORMAL, each").from(samples)
    }

    /// A copier of a purchase's rows, into a ledger of their own that the store made in `directory`.
    static func rowCopier(directory: String) async throws -> LedgerRowCopier {
        let store = try LocalAppStore(catalog: Repo.bundledCatalog(), stateDirectory: directory)
        _ = try await buyCoins(store)
        await store.shutdown()
        return try LedgerRowCopier(ledger: directory + "/ledger.sqlite")
    }

    /// A consumable bought through the store path; its signed transaction.
    static func buyCoins(_ store: LocalAppStore) async throws -> String {
        guard case .success(let jws) = try await store.purchase("com.lumenquest.coins.100", options: PurchaseOptions(), answer: .confirm)
        else { throw BenchError("purchase did not succeed") }
        return jws
    }

    /// A table of ledger-sized rows written through the C API: the commits of purchase-e2e's floor.
    final class RawLedger {
        private let db: OpaquePointer
        private var statement: OpaquePointer?
        private var nextID: Int64 = 1

        init(path: String) throws {
            var db: OpaquePointer?
            guard sqlite3_open(path, &db) == SQLITE_OK, let db else { throw BenchError("cannot open \(path)") }
            self.db = db
            guard sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; CREATE TABLE t(id INTEGER PRIMARY KEY, payload TEXT NOT NULL, jws TEXT)", nil, nil, nil) == SQLITE_OK,
                  sqlite3_prepare_v2(db, "INSERT INTO t(id, payload, jws) VALUES (?, ?, ?)", -1, &statement, nil) == SQLITE_OK
            else { throw BenchError(String(cString: sqlite3_errmsg(db))) }
        }

        deinit {
            sqlite3_finalize(statement)
            sqlite3_close(db)
        }

        /// `count` single-row committed inserts.
        func insert(count: Int, payload: String, jws: String) throws {
            for _ in 0..<count {
                sqlite3_bind_int64(statement, 1, nextID)
                sqlite3_bind_text(statement, 2, payload, -1, shim_sqlite_transient())
                sqlite3_bind_text(statement, 3, jws, -1, shim_sqlite_transient())
                guard sqlite3_step(statement) == SQLITE_DONE else { throw BenchError(String(cString: sqlite3_errmsg(db))) }
                sqlite3_reset(statement)
                nextID += 1
            }
        }
    }

    // MARK: 3. Entitlements against ledger size

    /// A ledger of `total` transactions: 20 non-consumables, one monthly subscription renewed for a
    /// year, one consumable through the store; the rest are copies of that consumable, inserted in
    /// one SQL statement on the ledger's schema (payload IDs rewritten; the JWS is the template's).
    static func buildLedger(directory: String, catalog: Catalog, total: Int) async throws {
        do {
            let store = try LocalAppStore(catalog: catalog, stateDirectory: directory)
            for i in 0..<20 {
                _ = try await store.purchase("gen.item\(3 * i + 1)", options: PurchaseOptions(), answer: .confirm)
            }
            _ = try await store.purchase("gen.group0.sub1", options: PurchaseOptions(), answer: .confirm)
            _ = try await store.purchase("gen.item0", options: PurchaseOptions(), answer: .confirm)
            try await store.advanceTime(by: Period(1, .year))
            await store.shutdown()
        }
        var db: OpaquePointer?
        guard sqlite3_open(directory + "/ledger.sqlite", &db) == SQLITE_OK, let db else { throw BenchError("cannot open the ledger") }
        defer { sqlite3_close(db) }
        sqlite3_busy_timeout(db, 5000)
        let sql = """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < (\(total) - (SELECT COUNT(*) FROM transactions)))
            INSERT INTO transactions(id, original_id, product_id, product_type, status, finished, revoked, payload, jws)
            SELECT m.base + n.i, m.base + n.i, t.product_id, t.product_type, 'completed', 1, 0,
                   json_set(t.payload, '$.transactionId', CAST(m.base + n.i AS TEXT), '$.originalTransactionId', CAST(m.base + n.i AS TEXT)), t.jws
            FROM n, (SELECT MAX(id) AS base FROM transactions) m,
                 (SELECT * FROM transactions WHERE product_type = 'consumable' ORDER BY id DESC LIMIT 1) t
            """
        guard sqlite3_exec(db, "BEGIN; \(sql); COMMIT;", nil, nil, nil) == SQLITE_OK else {
            throw BenchError("bulk insert: " + String(cString: sqlite3_errmsg(db)))
        }
    }

    /// A store on the ledger in `directory`, checked to hold the 21 entitlements every built ledger has.
    static func openLedger(directory: String, catalog: Catalog) async throws -> LocalAppStore {
        let store = try LocalAppStore(catalog: catalog, stateDirectory: directory)
        let owned = await store.currentEntitlements().count
        guard owned == 21 else { throw BenchError("expected 21 entitlements, found \(owned)") }
        return store
    }

    static func entitlements(_ sizes: Sizes, catalog: Catalog, small: String, large: String) async throws -> Result {
        let (smallStore, largeStore) = (try await openLedger(directory: small, catalog: catalog), try await openLedger(directory: large, catalog: catalog))
        defer { Task { await smallStore.shutdown(); await largeStore.shutdown() } }
        let samples = try await repeatUntilSteady(all: [smallStore, largeStore].map { store in {
            _ = await store.currentEntitlements()
            _ = try await store.subscriptionStatuses(groupID: "gen.group0")
        } })
        let (a, b) = (samples[0].median, samples[1].median)
        return Result(id: "3", figure: "3 entitlements+statuses, \(sizes.largeLedger / 1000)k tx", measured: b * 1000, baseline: a * 1000, unit: "ms",
                      ratio: b / a, target: "≤ 2×", pass: b <= 2 * a,
                      note: "baseline: same with \(sizes.smallLedger) tx; 21 entitlements in both").from(samples)
    }

    // MARK: 4. Catalog loading against JSONSerialization

    static func catalogLoad(_ sizes: Sizes, data: Data) async throws -> Result {
        let loaded = try CatalogLoader.load(data: data, file: "generated.json")
        guard loaded.products.count == sizes.catalogProducts else { throw BenchError("generated catalog has \(loaded.products.count) products") }
        let samples = try await repeatUntilSteady(
            { _ = try CatalogLoader.load(data: data, file: "generated.json") },
            { _ = try JSONParser.parse(data) })
        let (load, parse) = (samples[0].median, samples[1].median)
        return Result(id: "4", figure: "4 load \(sizes.catalogProducts / 1000)k-product catalog", measured: load * 1000, baseline: parse * 1000, unit: "ms",
                      ratio: load / parse, target: "≤ 1.5×", pass: load <= 1.5 * parse,
                      note: "\(data.count / 1024) KiB; baseline: the project's own JSON parse of the same file (JSONParser)").from(samples)
    }

    // MARK: 5a. Rendering the store screen of a large catalog

    static func render(_ catalog: Catalog) async throws -> Result {
        let size = Size(width: 200, height: 60)
        let code = catalog.storefronts[0].code, locale = catalog.storefronts[0].locale
        let preview = ScreenPreview(catalog, storefront: code, locale: locale)
        var round = 0
        let sample = try await repeatUntilSteady {
            _ = preview.render(size: size, selected: round % 40)
            round += 1
        }[0]
        return Result(id: "5a", figure: "5a render store screen 200×60", measured: sample.median * 1000, baseline: nil, unit: "ms", ratio: nil,
                      target: "≤ 2 ms", pass: sample.median <= 0.002, note: "\(catalog.products.count) products").from([sample])
    }

    // MARK: 8. Peak memory, in a fresh process

    static func memory(_ sizes: Sizes, catalogPath: String, ledger: String) throws -> [Result] {
        let output = try runSelf(["rss-probe", "--catalog", catalogPath, "--state", ledger])
        let fields = output.split(separator: " ").compactMap { Double($0) }
        guard fields.count == 4 else { throw BenchError("rss-probe said: \(output)") }
        let (catalog, store, app) = (fields[0] / 1_000_000, fields[1] / 1_000_000, fields[2] / 1_000_000)
        let what = "\(sizes.catalogProducts / 1000)k products, \(sizes.largeLedger / 1000)k tx"
        return [
            Result(id: "8a", figure: "8a peak RSS, store open", measured: store, baseline: nil, unit: "MB", ratio: nil, target: "≤ 150 MB", pass: store <= 150,
                   note: what + ": catalog loaded (\(Int(catalog)) MB peak so far), LocalAppStore opened, entitlements and statuses read"),
            Result(id: "8b", figure: "8b peak RSS, app launched", measured: app, baseline: nil, unit: "MB", ratio: nil, target: "≤ 150 MB", pass: app <= 150,
                   note: what + ": then StoreManager.start, \(String(format: "%.1f", fields[3])) s"),
        ]
    }

    /// The `rss-probe` mode: the store side opened, then what an app does at launch; the peak RSS after each.
    static func rssProbe(catalogPath: String, state: String) async throws {
        let catalog = try CatalogLoader.load(path: catalogPath)
        let catalogRSS = Machine.peakRSS
        let store = try LocalAppStore(catalog: catalog, stateDirectory: state)
        _ = await store.currentEntitlements()
        _ = try await store.subscriptionStatuses(groupID: "gen.group0")
        let storeRSS = Machine.peakRSS
        let seconds = await elapsed { _ = try? await StoreStack.launchApp(on: store, stateDirectory: nil) }
        print("\(catalogRSS) \(storeRSS) \(Machine.peakRSS) \(seconds)")
    }

    /// Runs this executable with `arguments`; returns its trimmed standard output.
    static func runSelf(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
