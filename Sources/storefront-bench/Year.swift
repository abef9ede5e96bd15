import CSQLite
import Foundation
import StoreCore
import StoreEngine
import StoreSigning

/// Figure 7: a simulated year of monthly renewals against signing alone, in CPU time on both sides,
/// since the year signs on a second core beside its inserts (`SigningPipeline`) and the baseline
/// signs on one. Its note also gives the year against a floor that keeps what it must: signing plus
/// the rows it commits, copied with bare SQLite statements into the year's own ledger.
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
            let copier = try RenewalRowCopier(ledger: directory + "/ledger.sqlite")
            rows.times.append(try await cpuSeconds { try copier.commit(renewals: renewals, records: sizes.subscribers) })
            if year.rounds >= Steadiness.slow.minimum, max(year.spread, signing.spread, rows.spread) <= Steadiness.slow.tolerance { break }
        }
        let (a, b, floor) = (year.median, signing.median, signing.median + rows.median)
        return Result(id: "7", figure: "7 one simulated year, CPU time", measured: a, baseline: b, unit: "s", ratio: a / b,
                      target: "≤ 1.2×", pass: a <= 1.2 * b,
                      note: "\(sizes.subscribers) monthly subscribers, \(renewals) renewals (\(String(format: "%.2f", wall.median)) s wall clock on 2 threads); "
                          + "baseline: CPU time signing \(renewals) payloads; "
                          + String(format: "the rows a year commits alone take %.2f s (%.0f%% of the baseline): against signing plus them, %.2f×",
                                   rows.median, 100 * rows.median / b, a / floor))
            .from([year, signing, rows])
    }
}

/// Commits, in one write transaction as a catch-up does, a copy of the last renewal's rows per renewal
/// (its transaction, event and notification: the rows `PostgresFigures.purchaseRows` names, each
/// under a new transaction ID in its first column) and one subscription record update per subscriber,
/// through prepared statements bound with the sample's own values. The ledger's triggers and indexes
/// run as they do for the store: that is work a renewal must do.
final class RenewalRowCopier {
    private let db: OpaquePointer
    private var inserts: [(statement: OpaquePointer, values: [Value])] = []
    /// The subscription record update, run once per subscriber (a list, filled in `init` as `inserts` is).
    private var recordUpdates: [(statement: OpaquePointer, values: [Value])] = []
    private var nextID: Int64 = 3_000_000_000

    enum Value { case int(Int64), text(String), null }

    init(ledger path: String) throws {
        var db: OpaquePointer?
        guard sqlite3_open(path, &db) == SQLITE_OK, let db else { throw BenchError("cannot open \(path)") }
        self.db = db
        try execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL")
        for (table, columns, _) in PostgresFigures.purchaseRows {
            let list = columns.joined(separator: ", ")
            let values = try sampleRow("SELECT \(list) FROM \(table) WHERE \(columns[0]) = (SELECT MAX(id) FROM transactions)")
            let insert = try prepare("INSERT INTO \(table)(\(list)) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))")
            inserts.append((insert, values))
        }
        recordUpdates.append((try prepare("UPDATE subscriptions SET record = ? WHERE original_id = ?"),
                              try sampleRow("SELECT record, original_id FROM subscriptions LIMIT 1")))
    }

    deinit {
        for prepared in inserts + recordUpdates { sqlite3_finalize(prepared.statement) }
        sqlite3_close(db)
    }

    func commit(renewals: Int, records: Int) throws {
        try execute("BEGIN IMMEDIATE")
        for _ in 0..<renewals {
            nextID += 1
            for insert in inserts { try run(insert.statement, insert.values, newID: true) }
        }
        for _ in 0..<records {
            for update in recordUpdates { try run(update.statement, update.values, newID: false) }
        }
        try execute("COMMIT")
    }

    /// `newID`: the first column takes the next transaction ID.
    private func run(_ statement: OpaquePointer, _ values: [Value], newID: Bool) throws {
        for (index, value) in values.enumerated() {
            let position = Int32(index + 1)
            switch newID && index == 0 ? .int(nextID) : value {
            case .int(let n): sqlite3_bind_int64(statement, position, n)
            case .text(let s): sqlite3_bind_text(statement, position, s, -1, shim_sqlite_transient())
            case .null: sqlite3_bind_null(statement, position)
            }
        }
        defer { sqlite3_reset(statement) }
        guard sqlite3_step(statement) == SQLITE_DONE else { throw BenchError(String(cString: sqlite3_errmsg(db))) }
    }

    private func sampleRow(_ sql: String) throws -> [Value] {
        let statement = try prepare(sql)
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { throw BenchError("no sample row: \(sql)") }
        return (0..<sqlite3_column_count(statement)).map { column in
            switch sqlite3_column_type(statement, column) {
            case SQLITE_INTEGER: .int(sqlite3_column_int64(statement, column))
            case SQLITE_NULL: .null
            default: .text(String(cString: sqlite3_column_text(statement, column)))
            }
        }
    }

    private func prepare(_ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw BenchError(String(cString: sqlite3_errmsg(db)))
        }
        return statement
    }

    private func execute(_ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { throw BenchError(String(cString: sqlite3_errmsg(db))) }
    }
}
