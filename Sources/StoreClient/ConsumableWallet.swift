import Foundation
import StoreEngine

/// The app's own balance of consumables. Each transaction ID is credited exactly once, even when
/// StoreKit delivers it twice (a redelivery after a crash between delivery and `finish()`).
public actor ConsumableWallet {
    private let db: any LocalDatabase
    private let path: String?
    /// The balances as last read or written, while no other connection (a second storefront on the
    /// same state directory) has committed since: summing every credit was linear in purchases.
    private var known: (balances: [String: Int], version: Int64)?

    /// `path` nil keeps the wallet in memory.
    public init(path: String?) throws {
        do { db = try openLocalDatabase(path: path) } catch LedgerError.damaged(let file, let detail) {
            // The wallet's own words: the ledger's recovery would name the wrong file.
            throw StateError("\(file): the app's wallet is damaged (\(detail)); Storefront will not open it. Copy the state directory "
                + "first; then `sqlite3 \(file) .recover > wallet.sql` salvages what it can, or restore the wallet from a backup.")
        }
        self.path = path
        // Owner-only, like the state directory's other files (SQLite creates them with the umask's mode).
        for file in path.map({ [$0, $0 + "-wal", $0 + "-shm"] }) ?? [] { chmod(file, 0o600) }
        // No index on the product: summing by product reads every credit either way (no faster with
        // it), and keeping it was a second page written by every credit.
        try db.execute("""
            CREATE TABLE IF NOT EXISTS credits(transaction_id INTEGER PRIMARY KEY, product_id TEXT NOT NULL, quantity INTEGER NOT NULL);
            DROP INDEX IF EXISTS credits_product;
            """)
    }

    /// Whether a wallet with something in it is at `path` (in its file or still in its write-ahead log).
    public static func exists(at path: String) -> Bool {
        [path, path + "-wal"].contains { ((try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int) ?? 0) > 0 }
    }

    static func lostMessage(_ path: String) -> String {
        "\(path) is missing or empty, but the ledger beside it shows the app had a wallet there: Storefront will not start "
            + "a new one, which would set every consumable balance to zero. Restore \(path) from a backup, or move the state "
            + "directory \(URL(fileURLWithPath: path).deletingLastPathComponent().path) away to start with an empty store."
    }

    /// Refuses a wallet that credited transaction IDs its ledger never handed out (`highest`): it was the
    /// wallet of another ledger (a state directory used with SQLite, then with a PostgreSQL ledger), and
    /// the ledger's next purchases would reuse IDs already credited, so they would be charged and never
    /// delivered. Refused rather than continued above the wallet's IDs: the balances are another store's.
    public func check(againstLedgerUpTo highest: Int64, ledger: String) throws {
        guard let credited = try db.query("SELECT MAX(transaction_id) FROM credits", []).first?.first?.int, credited > highest else { return }
        throw StateError("the app's wallet \(path ?? "in memory") credited transaction \(credited), which the ledger \(ledger) never "
            + "made (its highest is \(highest)): it is the wallet of another ledger, and the next purchases would reuse IDs it "
            + "already credited, charged but never delivered. Storefront refuses to go on. Use a state directory of its own "
            + "for this ledger (--state DIR), or go back to the ledger the wallet belongs to.")
    }

    /// The first full disk the wallet met since the last call (see `LocalAppStore.takeDiskFull`).
    public func takeDiskFull() -> LedgerError? { db.takeDiskFull() }

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
