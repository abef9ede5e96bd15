import CSQLite
import Foundation

/// The floor a store's write is measured against: copies of the last purchase's rows in a ledger (its
/// transaction, event and notification: the rows `PostgresFigures.purchaseRows` names, each under a
/// new transaction ID in its first column), and of one subscription record update, through prepared
/// statements bound with the sample's own values, in a ledger with the store's schema. Its triggers
/// and indexes run as they do for the store: that is work a write must do.
final class LedgerRowCopier {
    private let db: OpaquePointer
    private var inserts: [(statement: OpaquePointer, values: [Value])] = []
    private var recordUpdate: (statement: OpaquePointer, values: [Value])?
    private var nextID: Int64 = 3_000_000_000

    enum Value { case int(Int64), text(String), null }

    /// `ledger`: a ledger the store made and has shut down, with at least one purchase (and one
    /// subscription record, for `records` in `commit`). The copies go into the same ledger.
    init(ledger path: String) throws {
        var db: OpaquePointer?
        guard sqlite3_open(path, &db) == SQLITE_OK, let db else { throw BenchError("cannot open \(path)") }
        self.db = db
        // No checkpoint in a commit: the store copies its log back on a thread of its own (`Checkpointer`),
        // and a floor that never copies it back is the lowest.
        try execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA wal_autocheckpoint=0")
        for (table, columns, _) in PostgresFigures.purchaseRows {
            let list = columns.joined(separator: ", ")
            let values = try sampleRow("SELECT \(list) FROM \(table) WHERE \(columns[0]) = (SELECT MAX(id) FROM transactions)")
            let insert = try prepare("INSERT INTO \(table)(\(list)) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))")
            inserts.append((insert, values ?? []))
            guard values != nil else { throw BenchError("no \(table) row of the last purchase in \(path)") }
        }
        if let record = try sampleRow("SELECT record, original_id FROM subscriptions LIMIT 1") {
            recordUpdate = (try prepare("UPDATE subscriptions SET record = ? WHERE original_id = ?"), record)
        }
    }

    deinit {
        for prepared in inserts { sqlite3_finalize(prepared.statement) }
        if let recordUpdate { sqlite3_finalize(recordUpdate.statement) }
        sqlite3_close(db)
    }

    /// In one write transaction, `purchases` copies of the purchase's rows and `records` record updates.
    func commit(purchases: Int, records: Int = 0) throws {
        try execute("BEGIN IMMEDIATE")
        for _ in 0..<purchases {
            nextID += 1
            for insert in inserts { try run(insert.statement, insert.values, newID: true) }
        }
        if records > 0 {
            guard let recordUpdate else { throw BenchError("the ledger has no subscription record to update") }
            for _ in 0..<records { try run(recordUpdate.statement, recordUpdate.values, newID: false) }
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

    /// The first row `sql` reads; nil when it reads none.
    private func sampleRow(_ sql: String) throws -> [Value]? {
        let statement = try prepare(sql)
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { return nil }
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
