import Foundation
import Testing
import StoreCore
@testable import StoreEngine

/// The unfinished transactions, listed by ID in a table of their own (schema 2): a finish deletes
/// one small entry instead of rewriting the row and its index entry. Whatever writes the row says
/// whether it is finished; the list must always say the same, and an old ledger must open with it.
@Suite("The list of unfinished transactions")
struct UnfinishedListTests {
    func row(_ id: Int64, _ status: LedgerEntry.Status = .completed, finished: Bool = false) -> Ledger.Row {
        let date = Date(timeIntervalSince1970: 1_780_000_000)
        let payload = TransactionPayload(
            transactionID: id, originalTransactionID: id, bundleID: "com.example.app", productID: "coins", productType: .consumable,
            purchaseDate: date, originalPurchaseDate: date, quantity: 1, signedDate: date, storefront: "USA", storefrontID: "143441",
            currency: "USD", priceMilliunits: 990, appTransactionID: "1")
        return Ledger.Row(payload: payload, status: status, finished: finished, jws: "header.payload.signature\(id)", refundRequest: nil)
    }

    func unfinished(_ ledger: Ledger) throws -> [Int64] { try ledger.unfinishedRows().map(\.payload.transactionID) }

    @Test("the list follows inserts, finishes, rewrites of the row, deletions and clears")
    func listFollowsEveryWrite() throws {
        let ledger = try Ledger(path: nil, tokenPrefix: "")
        for id in Int64(1)...4 { try ledger.insert(row(id, id == 4 ? .pendingApproval : .completed, finished: id == 3)) }
        #expect(try unfinished(ledger) == [1, 2] && ledger.unfinishedCount() == 2)
        try ledger.setFinished(1)
        #expect(try unfinished(ledger) == [2] && ledger.row(1)?.finished == true && ledger.row(1)?.jws == "header.payload.signature1")
        try ledger.update(row(1))  // delivered again (a refund changed it)
        try ledger.update(row(3))
        try ledger.update(row(2, finished: true))
        #expect(try unfinished(ledger) == [1, 3] && ledger.row(2)?.finished == true)
        try ledger.update(row(4))  // the pending one completes
        try ledger.delete(3)
        #expect(try unfinished(ledger) == [1, 4])
        try ledger.clear()
        #expect(try ledger.db.query("SELECT COUNT(*) FROM unfinished") == [[.int(0)]])
    }

    @Test("a finish commits one page of the ledger")
    func finishWritesOnePage() throws {
        let directory = try createdTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/ledger.sqlite"
        let ledger = try Ledger(path: path, tokenPrefix: "")
        for id in Int64(1)...50 { try ledger.insert(row(id)) }
        func walSize() -> Int { ((try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size]) as? Int) ?? 0 }
        let before = walSize()
        try ledger.db.transaction { try ledger.setFinished(25) }
        #expect(walSize() - before == 24 + 4096, "one WAL frame: a frame header and one page")
        #expect(try ledger.row(25)?.finished == true && unfinished(ledger).count == 49)
    }

    @Test("a ledger of schema 1 opens at schema 2 with every row, its unfinished ones listed")
    func schemaOneLedgerIsMigrated() throws {
        let directory = try createdTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/ledger.sqlite"
        do {
            // The tables and index schema 1 wrote that hold the transactions, filled as it filled them.
            let old = try SQLiteDatabase(path: path)
            try old.execute("""
                CREATE TABLE transactions(
                    id INTEGER PRIMARY KEY, original_id INTEGER NOT NULL, product_id TEXT NOT NULL,
                    product_type TEXT NOT NULL, status TEXT NOT NULL, finished INTEGER NOT NULL DEFAULT 0,
                    revoked INTEGER NOT NULL DEFAULT 0, payload TEXT NOT NULL, jws TEXT, refund_request TEXT);
                CREATE INDEX unfinished_transactions ON transactions(id) WHERE finished = 0;
                """)
            for id in Int64(1)...6 {
                try old.query("""
                    INSERT INTO transactions(id, original_id, product_id, product_type, status, finished, payload, jws)
                    VALUES (?, ?, 'coins', 'consumable', ?, ?, ?, ?)
                    """, [.int(id), .int(id), .text(id == 6 ? "pendingApproval" : "completed"), .int(id % 2 == 0 ? 1 : 0),
                          .text(row(id).payload.json.compact), .text("signature\(id)")])
            }
        }
        let ledger = try Ledger(path: path, tokenPrefix: "")
        #expect(try ledger.db.query("PRAGMA user_version") == [[.int(Ledger.schemaVersion)]])
        #expect(try ledger.allRows().count == 6 && ledger.completedCount() == 5)
        #expect(try unfinished(ledger) == [1, 3, 5])
        #expect(try ledger.allRows().filter { !$0.finished }.map(\.payload.transactionID).sorted() == [1, 3, 5])
        #expect(try ledger.db.query("SELECT name FROM sqlite_master WHERE name = 'unfinished_transactions'").isEmpty)
        try ledger.setFinished(3)
        // Opening it again migrates nothing twice: what was finished stays finished.
        #expect(try unfinished(Ledger(path: path, tokenPrefix: "")) == [1, 5])
    }

    @Test("a ledger of a newer schema is refused and left as it was")
    func newerSchemaLedgerIsRefused() throws {
        let directory = try createdTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/ledger.sqlite"
        do {
            let ledger = try Ledger(path: path, tokenPrefix: "")
            try ledger.insert(row(1))
            try ledger.db.execute("PRAGMA user_version = \(Ledger.schemaVersion + 1)")
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(throws: LedgerError.newerSchema(path: path, version: Ledger.schemaVersion + 1)) { try Ledger(path: path, tokenPrefix: "") }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(LedgerError.newerSchema(path: path, version: 3).description.contains("written by a newer Storefront (ledger schema 3"))
    }
}
