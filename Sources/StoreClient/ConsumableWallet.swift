import Foundation
import StoreEngine

/// The app's own balance of consumables. Each transaction ID is credited exactly once, even when
/// StoreKit delivers it twice (a redelivery after a crash between delivery and `finish()`).
public actor ConsumableWallet {
    private let db: SQLiteDatabase
    /// The balances as last read or written, while no other connection (a second storefront on the
    /// same state directory) has committed since: summing every credit was linear in purchases.
    private var known: (balances: [String: Int], version: Int64)?

    /// `path` nil keeps the wallet in memory.
    public init(path: String?) throws {
        db = try SQLiteDatabase(path: path)
        // Owner-only, like the state directory's other files (SQLite creates them with the umask's mode).
        for file in path.map({ [$0, $0 + "-wal", $0 + "-shm"] }) ?? [] { chmod(file, 0o600) }
        try db.execute("""
            CREATE TABLE IF NOT EXISTS credits(transaction_id INTEGER PRIMARY KEY, product_id TEXT NOT NULL, quantity INTEGER NOT NULL);
            CREATE INDEX IF NOT EXISTS credits_product ON credits(product_id);
            """)
    }

    /// Credits a transaction; returns false when it was already credited.
    @discardableResult
    public func credit(transactionID: Int64, productID: String, quantity: Int) throws -> Bool {
        // One statement, committed on its own: it returns its row only when it inserted one.
        let credited = try !db.query("INSERT OR IGNORE INTO credits(transaction_id, product_id, quantity) VALUES (?, ?, ?) RETURNING 1",
                                     [.int(transactionID), .text(productID), .int(Int64(quantity))]).isEmpty
        // Kept up to date only while no other connection wrote in between (else read again).
        if credited, var known, try db.dataVersion() == known.version {
            known.balances[productID, default: 0] += quantity
            self.known = known
        }
        return credited
    }

    public func balances() throws -> [String: Int] {
        let version = try db.dataVersion()
        if let known, known.version == version { return known.balances }
        var result: [String: Int] = [:]
        for row in try db.query("SELECT product_id, SUM(quantity) FROM credits GROUP BY product_id") {
            if let id = row[0].text, let sum = row[1].int { result[id] = Int(sum) }
        }
        known = (result, version)
        return result
    }

    public func reset() throws {
        try db.execute("DELETE FROM credits")
        known = nil
    }
}
