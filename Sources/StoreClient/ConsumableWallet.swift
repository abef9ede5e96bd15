import Foundation
import StoreEngine

/// The app's own balance of consumables. Each transaction ID is credited exactly once, even when
/// StoreKit delivers it twice (a redelivery after a crash between delivery and `finish()`).
public actor ConsumableWallet {
    private let db: any LocalDatabase
    /// The balances as last read or written, while no other connection (a second storefront on the
    /// same state directory) has committed since: summing every credit was linear in purchases.
    private var known: (balances: [String: Int], version: Int64)?

    /// `path` nil keeps the wallet in memory.
    public init(path: String?) throws {
        db = try openLocalDatabase(path: path)
        // Owner-only, like the state directory's other files (SQLite creates them with the umask's mode).
        for file in path.map({ [$0, $0 + "-wal", $0 + "-shm"] }) ?? [] { chmod(file, 0o600) }
        // No index on the product: summing by product reads every credit either way (no faster with
        // it), and keeping it was a second page written by every credit.
        try db.execute("""
            CREATE TABLE IF NOT EXISTS credits(transaction_id INTEGER PRIMARY KEY, product_id TEXT NOT NULL, quantity INTEGER NOT NULL);
            DROP INDEX IF EXISTS credits_product;
            """)
    }

    /// Credits a transaction; returns false when it was already credited.
    @discardableResult
    public func credit(transactionID: Int64, productID: String, quantity: Int) throws -> Bool {
        // Under the write lock, no other connection commits between the version read and the credit: one lock for both.
        let (credited, version) = try db.transaction {
            try db.query("INSERT OR IGNORE INTO credits(transaction_id, product_id, quantity) VALUES (?, ?, ?)",
                         [.int(transactionID), .text(productID), .int(Int64(quantity))])
            return (db.changes > 0, try db.dataVersion())
        }
        // Kept up to date only while no other connection wrote in between (else read again).
        if credited, var known, version == known.version {
            known.balances[productID, default: 0] += quantity
            self.known = known
        }
        return credited
    }

    public func balances() throws -> [String: Int] {
        let version = try db.dataVersion()
        if let known, known.version == version { return known.balances }
        var result: [String: Int] = [:]
        for row in try db.query("SELECT product_id, SUM(quantity) FROM credits GROUP BY product_id", []) {
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
