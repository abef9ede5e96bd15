import Foundation
import StoreCore
import StoreSigning

/// The store's record: transactions, subscription renewal state, the events other processes pick
/// up, offer-code redemptions, used offer nonces, settings. In one SQLite file by default (WAL; kept
/// through a process crash, see `SQLiteDatabase`), or in a PostgreSQL database a team shares
/// (`Ledger+PostgreSQL`); the SQL here is what both engines speak.
final class Ledger {
    let db: any LedgerDatabase
    /// The store signer's `base64url(header) + "."`. A token made by that signer over a row's exact
    /// payload is stored as its signature alone and rebuilt on reading: the header (with the `x5c`
    /// certificate) and the payload's base64 would otherwise be three quarters of every row.
    /// Set once, before any row is read or written (on PostgreSQL the identity is in the ledger).
    var tokenPrefix: String

    /// The file or database, for messages (a PostgreSQL URL without its password); nil in memory.
    let path: String?
    /// The PostgreSQL database, when the ledger is on one.
    let postgres: PostgresLocation?

    /// Opens the ledger at `path` (nil: in memory). A damaged ledger is refused, and so is a
    /// missing or empty one where the app's wallet shows one existed: starting afresh would
    /// hide every purchase in it. A file larger than `checkedAtOpen` is checked beside the store
    /// instead (`integrityCheck`): what it finds is reported as damage, and the ledger turns read-only.
    /// `checkStarted` (tests) sees the check beside the store as soon as it starts.
    init(path: String?, tokenPrefix: String, checkedAtOpen: Int = Ledger.checkedAtOpen,
         checkStarted: (IntegrityCheck) -> Void = { _ in }) throws {
        self.path = path
        self.tokenPrefix = tokenPrefix
        postgres = nil
        if let path { try LedgerError.checkNotLost(path) }
        do {
            let db = try SQLiteDatabase(path: path)
            self.db = db
            let checkedBeside = try path != nil && Self.fileSize(db) > checkedAtOpen
            if !checkedBeside, let damage = try Self.quickCheck(db, path: path ?? ":memory:") {
                throw damage
            }
            // One write transaction: a second process opening the ledger meanwhile sees all of it or none.
            // Inside the check: the counter's first count reads every row, and may meet damage quick_check missed.
            // Before a check beside the store starts: damage it found first would refuse this write,
            // and the open would fail with "attempt to write a readonly database" (seen under load).
            try db.transaction {
                try Self.refuseNewerSchema(db, path: path ?? ":memory:")
                try db.execute(Self.schema)
                try Self.migrate(db)
            }
            if checkedBeside, let path {
                let check = IntegrityCheck(path: path)
                integrityCheck = check
                db.integrityCheck = check
                checkStarted(check)
            }
        } catch let error as SQLiteError where error.isCorruption {
            throw LedgerError.damaged(path: path ?? ":memory:", detail: error.message)
        }
    }

    /// The largest file checked before it opens: `PRAGMA quick_check` reads every page, about 1 ms a
    /// megabyte here (8 MB is some 10,000 transactions), and took 0.6 s of a 1M-transaction launch.
    static let checkedAtOpen = 8 << 20

    /// The check of a larger file, running beside the store; nil when the file was checked at open.
    private(set) var integrityCheck: IntegrityCheck?

    deinit { integrityCheck?.stop() }

    /// SQLite's quick check of the whole file: nil when it passes, else the damage it names.
    static func quickCheck(_ db: SQLiteDatabase, path: String) throws -> LedgerError? {
        let check = try db.query("PRAGMA quick_check")
        guard check != [[.text("ok")]] else { return nil }
        return .damaged(path: path, detail: check.prefix(3).compactMap { $0.first?.text }.joined(separator: "; "))
    }

    private static func fileSize(_ db: SQLiteDatabase) throws -> Int {
        let pages = try db.query("PRAGMA page_count").first?.first?.int ?? 0
        let size = try db.query("PRAGMA page_size").first?.first?.int ?? 0
        return Int(pages * size)
    }

    /// A ledger on `database`, named `name` in messages; its schema is the caller's to make.
    init(database: any LedgerDatabase, name: String?, postgres: PostgresLocation?) {
        db = database
        path = name
        self.postgres = postgres
        tokenPrefix = ""
    }

    private static let schema = """
            CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS transactions(
                id INTEGER PRIMARY KEY, original_id INTEGER NOT NULL, product_id TEXT NOT NULL,
                product_type TEXT NOT NULL, status TEXT NOT NULL, finished INTEGER NOT NULL DEFAULT 0,
                revoked INTEGER NOT NULL DEFAULT 0, payload TEXT NOT NULL, jws TEXT, refund_request TEXT);
            DROP INDEX IF EXISTS transactions_entitled;
            DROP INDEX IF EXISTS transactions_unfinished;
            CREATE INDEX IF NOT EXISTS one_time_purchases ON transactions(id) WHERE product_type IN ('nonConsumable', 'nonRenewing');
            CREATE TABLE IF NOT EXISTS subscriptions(original_id INTEGER PRIMARY KEY, group_id TEXT NOT NULL, record TEXT NOT NULL);
            CREATE INDEX IF NOT EXISTS subscriptions_group ON subscriptions(group_id);
            CREATE TABLE IF NOT EXISTS events(seq INTEGER PRIMARY KEY, transaction_id INTEGER NOT NULL,
                kind TEXT NOT NULL, origin TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS redemptions(code TEXT NOT NULL, transaction_id INTEGER NOT NULL);
            CREATE TABLE IF NOT EXISTS upgrade_refunds(transaction_id INTEGER PRIMARY KEY, milliunits INTEGER NOT NULL);
            CREATE TABLE IF NOT EXISTS nonces(nonce TEXT PRIMARY KEY);
            \(outboxSchema)
            \(completedCounter)
            \(unfinishedSchema)
            \(serverAPISchema)
            """

    /// The schema this Storefront writes, in SQLite's `user_version` (0: a ledger from before it was kept).
    static let schemaVersion: Int64 = 2

    static func storedSchemaVersion(_ db: SQLiteDatabase) throws -> Int64 {
        try db.query("PRAGMA user_version").first?.first?.int ?? 0
    }

    /// A ledger a newer Storefront wrote is left as it is: this one would misread what it changed
    /// (a schema-2 ledger read as schema 1 delivers every finished transaction again).
    private static func refuseNewerSchema(_ db: SQLiteDatabase, path: String) throws {
        let stored = try storedSchemaVersion(db)
        if stored > schemaVersion { throw LedgerError.newerSchema(path: path, version: stored) }
    }

    /// Brings a ledger of an older schema up to this one, in the open's write transaction.
    private static func migrate(_ db: SQLiteDatabase) throws {
        guard try storedSchemaVersion(db) < schemaVersion else { return }
        // 2: the unfinished transactions are listed in `unfinished`, read from the index of them that it replaces.
        try db.execute("""
            INSERT OR IGNORE INTO unfinished(id) SELECT id FROM transactions WHERE finished = 0;
            DROP INDEX IF EXISTS unfinished_transactions;
            PRAGMA user_version = \(schemaVersion);
            """)
    }

    /// The transactions not yet finished (and the pending ones), listed by ID: finishing one deletes
    /// its entry, one small page, where setting the row's `finished` rewrote the row and its index
    /// entry. `finished` is what a write of the whole row says (an insert, `update`), and the
    /// triggers list the row accordingly; `unfinished` is what is read.
    private static let unfinishedSchema = """
        CREATE TABLE IF NOT EXISTS unfinished(id INTEGER PRIMARY KEY);
        CREATE TRIGGER IF NOT EXISTS unfinished_inserted AFTER INSERT ON transactions WHEN new.finished = 0
            BEGIN INSERT OR IGNORE INTO unfinished(id) VALUES (new.id); END;
        CREATE TRIGGER IF NOT EXISTS unfinished_written AFTER UPDATE OF finished ON transactions
            BEGIN
                DELETE FROM unfinished WHERE id = new.id AND new.finished != 0;
                INSERT OR IGNORE INTO unfinished(id) SELECT new.id WHERE new.finished = 0;
            END;
        CREATE TRIGGER IF NOT EXISTS unfinished_deleted AFTER DELETE ON transactions
            BEGIN DELETE FROM unfinished WHERE id = old.id; END;
        """

    /// How many transactions are completed, kept by triggers in the writes that change it: counting
    /// them was a scan of the whole table, 96% of a refresh with a million transactions. A ledger
    /// made before the counter is counted once, when it is first opened (see `completedRecount`).
    private static let completedCounter = """
        CREATE TABLE IF NOT EXISTS completed_count(n INTEGER NOT NULL);
        \(completedRecount)
        CREATE TRIGGER IF NOT EXISTS completed_inserted AFTER INSERT ON transactions WHEN new.status = 'completed'
            BEGIN UPDATE completed_count SET n = n + 1; END;
        CREATE TRIGGER IF NOT EXISTS completed_deleted AFTER DELETE ON transactions WHEN old.status = 'completed'
            BEGIN UPDATE completed_count SET n = n - 1; END;
        CREATE TRIGGER IF NOT EXISTS completed_changed AFTER UPDATE OF status ON transactions
            WHEN (old.status = 'completed') != (new.status = 'completed')
            BEGIN UPDATE completed_count SET n = n + (new.status = 'completed') - (old.status = 'completed'); END;
        """

    /// Counts the completed transactions when the counter holds no row, or more than one. The count is
    /// a scalar subquery, evaluated only then: an aggregate over the table filtered by the condition
    /// (as first written) scanned every row at each open, 0.3 s with a million, and added a row of 0.
    /// Ledgers opened by that version have such rows, which the triggers kept updating: they are
    /// counted afresh, once. The SQL both engines speak.
    static let completedRecount = """
        DELETE FROM completed_count WHERE (SELECT COUNT(*) FROM completed_count) > 1;
        INSERT INTO completed_count(n) SELECT (SELECT COUNT(*) FROM transactions WHERE status = 'completed')
            WHERE NOT EXISTS (SELECT 1 FROM completed_count);
        """

    // MARK: Meta

    func meta(_ key: String) throws -> String? {
        try db.query("SELECT value FROM meta WHERE key = ?", [.text(key)]).first?.first?.text
    }

    /// The value of `key`; the first process to ask for it sets it to `make()`.
    func meta(_ key: String, orInsert make: () -> String) throws -> String {
        try db.query("INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO NOTHING", [.text(key), .text(make())])
        return try meta(key) ?? ""
    }

    func setMeta(_ key: String, _ value: String) throws {
        try db.query("INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                     [.text(key), .text(value)])
    }

    // MARK: Transactions

    struct Row {
        var payload: TransactionPayload
        var status: LedgerEntry.Status
        var finished: Bool
        var jws: String?
        var refundRequest: RefundRequestStatus?
    }

    /// A new transaction ID, never one used before in this ledger: the app's wallet credits each
    /// ID once, so an ID reused after a delete, clear or reset would be a purchase never delivered.
    /// The caller holds the write lock.
    func nextTransactionID() throws -> Int64 {
        // Inside a batch, after its first: the batch's own rows are the newest (it holds the write lock).
        if let highest = batchHighestID { return highest + 1 }
        let id: Int64
        if let begun = db.commitsAtBegin, let known = highestIDAfterCommit, known.commits == begun {
            id = known.id + 1
        } else {
            // One statement for both: on PostgreSQL every statement is a round trip.
            let highest = try db.query("""
                SELECT MAX(id) FROM transactions UNION ALL SELECT CAST(value AS BIGINT) FROM meta WHERE key = 'highestDeletedID'
                """).compactMap { $0.first?.int }
            id = max(highest.max() ?? 0, 2_000_000_000) + 1
        }
        if let begun = db.commitsAtBegin { highestIDAfterCommit = (begun + 1, id) }
        if batchRows != nil { batchHighestID = id - 1 }
        return id
    }

    /// The highest transaction ID once this write transaction commits, and the ledger's commit count
    /// then (PostgreSQL, see `LedgerDatabase.commitsAtBegin`). The next write that finds the count
    /// unmoved, no other connection having committed (nor this one rolled back), needs no query for
    /// its ID: one round trip fewer of a purchase's. Raised by every row the transaction inserts.
    private var highestIDAfterCommit: (commits: Int64, id: Int64)?

    /// The high-water mark of IDs no longer in `transactions`, kept by whatever deletes rows (in
    /// the same write transaction), so purchases pay nothing for it.
    private func highestDeletedID() throws -> Int64 {
        try meta("highestDeletedID").flatMap { Int64($0) } ?? 0
    }

    private func rememberIDsBeforeDeleting() throws {
        let stored = try db.query("SELECT MAX(id) FROM transactions").first?.first?.int
        guard let highest = [stored, batchHighestID].compactMap({ $0 }).max(), highest > (try highestDeletedID()) else { return }
        try setMeta("highestDeletedID", String(highest))
    }

    /// Inserts a row; `payloadJSON` is the payload already serialized for signing, so it isn't built twice.
    /// `signature`: the stored form of the row's token, when the store signer just made it over exactly
    /// `payloadJSON` (see `stored`), so the payload is not encoded again to find it.
    /// `signedLater` (inside `batch`): the row waits in memory for its signature (`setSignature`) and is
    /// inserted with it when the batch ends, rather than inserted and then updated; until then it has no token.
    func insert(_ row: Row, payloadJSON: String? = nil, signature: String? = nil, signedLater: Bool = false) throws {
        let id = row.payload.transactionID
        batchRows?[id] = row
        if let highest = batchHighestID { batchHighestID = max(highest, id) }
        if let begun = db.commitsAtBegin, let known = highestIDAfterCommit, known.commits == begun + 1 {
            highestIDAfterCommit = (known.commits, max(known.id, id))
        }
        if signedLater, batchRows != nil {
            unsignedRows.append((id, payloadJSON ?? row.payload.json.compact))
            return
        }
        try db.queue(Self.insertSQL, values(row, payloadJSON: payloadJSON, signature: signature))
    }

    private static let insertSQL = """
        INSERT INTO transactions(id, original_id, product_id, product_type, status, finished, revoked, payload, jws, refund_request)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    func update(_ row: Row) throws {
        batchRows?[row.payload.transactionID] = row
        try db.query("""
            UPDATE transactions SET original_id = ?2, product_id = ?3, product_type = ?4, status = ?5, finished = ?6,
                revoked = ?7, payload = ?8, jws = ?9, refund_request = ?10 WHERE id = ?1
            """, values(row))
    }

    /// `signature`: the stored form of a token the store signed over exactly `payloadJSON` (else the row's own token's).
    private func values(_ row: Row, payloadJSON: String? = nil, signature: String? = nil) -> [SQLValue] {
        let payload = payloadJSON ?? row.payload.json.compact
        let jws = signature ?? row.jws.map { stored($0, payload: payload) }
        return [.int(row.payload.transactionID), .int(row.payload.originalTransactionID), .text(row.payload.productID),
                .text(row.payload.productType.rawValue), .text(row.status.rawValue), .int(row.finished ? 1 : 0),
                .int(row.payload.isRevoked ? 1 : 0), .text(payload), jws.map { .text($0) } ?? .null,
                row.refundRequest.map { .text($0.rawValue) } ?? .null]
    }

    /// The signature alone when `jws` is the store's token over exactly `payload`; else the whole token.
    func stored(_ jws: String, payload: String) -> String {
        let signed = tokenPrefix + Base64URL.encode(Array(payload.utf8)) + "."
        guard jws.hasPrefix(signed) else { return jws }
        return String(jws.utf8.dropFirst(signed.utf8.count))!
    }

    /// What follows a token's last dot: what `stored` keeps of a token the store signed over exactly
    /// its row's payload, found without encoding the payload again.
    static func signature(of jws: String) -> String {
        var jws = jws
        return jws.withUTF8 { token in
            let start = token.lastIndex(of: UInt8(ascii: ".")).map { $0 + 1 } ?? 0
            return String(decoding: UnsafeBufferPointer(rebasing: token[start...]), as: UTF8.self)
        }
    }

    /// The token from its stored form (see `stored`).
    func token(_ stored: String, payload: String) -> String {
        // Bytes, not `contains(".")`: Foundation's string search was a twentieth of a refresh.
        stored.utf8.contains(UInt8(ascii: ".")) ? stored : tokenPrefix + Base64URL.encode(Array(payload.utf8)) + "." + stored
    }

    static let columns = """
        payload, status, CASE WHEN EXISTS (SELECT 1 FROM unfinished u WHERE u.id = transactions.id) THEN 0 ELSE 1 END,
        jws, refund_request, id
        """

    func row(_ id: Int64) throws -> Row? {
        if let row = batchRows?[id] { return row }
        return try rows("SELECT \(Self.columns) FROM transactions WHERE id = ?", [.int(id)]).first
    }

    /// A transaction's payload, without rebuilding its token (a renewal reads the one before it).
    func payload(_ id: Int64) throws -> TransactionPayload? {
        if let row = batchRows?[id] { return row.payload }
        guard let text = try db.query("SELECT payload FROM transactions WHERE id = ?", [.int(id)]).first?.first?.text else { return nil }
        guard let json = try? JSONParser.parse(text), let payload = TransactionPayload(json: json) else {
            throw damagedRow("transactions", key: id, "its payload is not a transaction")
        }
        return payload
    }

    /// A transaction's token, without decoding its payload.
    func jws(_ id: Int64) throws -> String? {
        if let row = batchRows?[id] { return row.jws }
        guard let columns = try db.query("SELECT jws, payload FROM transactions WHERE id = ?", [.int(id)]).first,
              let stored = columns[0].text else { return nil }
        return token(stored, payload: columns[1].text ?? "")
    }

    /// Tokens by transaction ID, read a hundred at a time (a refresh wants every subscription's).
    func jws(_ ids: [Int64]) throws -> [Int64: String] {
        var tokens: [Int64: String] = [:]
        var unread: [Int64] = []
        for id in ids {
            if let row = batchRows?[id] { tokens[id] = row.jws } else { unread.append(id) }
        }
        let chunk = 100
        for start in stride(from: 0, to: unread.count, by: chunk) {
            // Padded to a whole chunk with its last ID, so one prepared statement serves every read.
            let ids = Array(unread[start..<min(start + chunk, unread.count)])
            let padded = ids + Array(repeating: ids.last!, count: chunk - ids.count)
            // The payload (a kilobyte each) is read only for the tokens not rebuilt already.
            let sql = "SELECT id, jws FROM transactions WHERE id IN (" + Array(repeating: "?", count: chunk).joined(separator: ", ") + ")"
            for columns in try db.query(sql, padded.map { .int($0) }) {
                guard let id = columns[0].int, let stored = columns[1].text else { continue }
                tokens[id] = try rebuiltToken(id, stored: stored)
            }
        }
        return tokens
    }

    /// The token of row `id` from its stored form, rebuilt once while the row is unchanged (see `rebuiltTokens`).
    private func rebuiltToken(_ id: Int64, stored: String) throws -> String {
        if let rebuilt = rebuiltTokens[id], rebuilt.stored == stored { return rebuilt.token }
        let payload = try db.query("SELECT payload FROM transactions WHERE id = ?", [.int(id)]).first?.first?.text ?? ""
        let token = token(stored, payload: payload)
        if rebuiltTokens.count >= 20_000 { rebuiltTokens = [:] }
        rebuiltTokens[id] = (stored, token)
        return token
    }

    /// Tokens `jws(_:)` rebuilt, by transaction ID with the stored form they came from: rebuilding
    /// (the payload's base64) was a third of a refresh with a thousand subscriptions. A changed row
    /// has another stored form, so it is rebuilt; bounded, as a refresh needs only the current ones.
    private var rebuiltTokens: [Int64: (stored: String, token: String)] = [:]

    /// Rows of `columns`; one that does not decode is an error naming it, never a row silently left out.
    func rows(_ sql: String, _ arguments: [SQLValue] = []) throws -> [Row] {
        try db.query(sql, arguments).map { columns in
            guard let text = columns[0].text, let json = try? JSONParser.parse(text), let payload = TransactionPayload(json: json) else {
                throw damagedRow("transactions", key: columns[5].int, "its payload is not a transaction")
            }
            guard let status = columns[1].text.flatMap(LedgerEntry.Status.init(rawValue:)) else {
                throw damagedRow("transactions", key: columns[5].int, "unknown status \(columns[1].text ?? "NULL")")
            }
            return Row(payload: payload, status: status, finished: columns[2].int == 1, jws: columns[3].text.map { token($0, payload: text) },
                       refundRequest: try columns[4].text.map {
                           guard let status = RefundRequestStatus(rawValue: $0) else {
                               throw damagedRow("transactions", key: columns[5].int, "unknown refund request status \($0)")
                           }
                           return status
                       })
        }
    }

    func damagedRow(_ table: String, key: Int64?, _ detail: String) -> LedgerError {
        .damagedRow(path: path ?? ":memory:", table: table, key: key.map(String.init) ?? "?", detail: detail)
    }

    func allRows(limit: Int? = nil) throws -> [Row] {
        try rows("SELECT \(Self.columns) FROM transactions ORDER BY id DESC LIMIT ?", [.limit(limit)])
    }

    /// Signed completed transactions, newest first, without decoding their payloads.
    func completedJWS(limit: Int?) throws -> [String] {
        // A refresh's history: its tokens are rebuilt once, not at every refresh.
        if let limit, limit <= 1000 {
            return try db.query("SELECT id, jws FROM transactions WHERE status = 'completed' ORDER BY id DESC LIMIT ?", [.limit(limit)])
                .compactMap { columns in try columns[1].text.map { try rebuiltToken(columns[0].int ?? 0, stored: $0) } }
        }
        return try db.query("SELECT jws, payload FROM transactions WHERE status = 'completed' ORDER BY id DESC LIMIT ?", [.limit(limit)])
            .compactMap { columns in columns[0].text.map { token($0, payload: columns[1].text ?? "") } }
    }

    /// Where the ledger stands: another connection's commit or a row this one writes moves it.
    /// nil when the engine cannot say (see `LedgerDatabase.rowsWritten`).
    func stamp() throws -> ChangeStamp? {
        guard let written = db.rowsWritten else { return nil }
        return ChangeStamp(version: try db.dataVersion(), written: written)
    }

    func completedCount() throws -> Int {
        let pending = postgres == nil ? "" : " + \(Self.pendingCompletedChange)"
        return Int(try db.query("SELECT n\(pending) FROM completed_count").first?.first?.int ?? 0)
    }

    /// How many unfinished transactions `LocalAppStore.unfinishedTransactions` gives (those with a token), counted without decoding them.
    func unfinishedCount() throws -> Int {
        Int(try db.query("""
            SELECT COUNT(*) FROM transactions WHERE id IN (SELECT id FROM unfinished) AND status = 'completed' AND jws IS NOT NULL
            """).first?.first?.int ?? 0)
    }

    func unfinishedRows() throws -> [Row] {
        try rows("SELECT \(Self.columns) FROM transactions WHERE id IN (SELECT id FROM unfinished) AND status = 'completed' ORDER BY id")
    }

    /// Non-consumables and non-renewing subscriptions that are not revoked (subscriptions come from `subscriptions`).
    func ownedOneTimeRows() throws -> [Row] {
        try rows("""
            SELECT \(Self.columns) FROM transactions WHERE product_type IN ('nonConsumable', 'nonRenewing')
            AND status = 'completed' AND revoked = 0 ORDER BY id
            """)
    }

    /// The customer's purchase of a non-consumable or non-renewing subscription they own (bought, not revoked).
    func ownedOneTimeRow(_ productID: String) throws -> Row? {
        try rows("""
            SELECT \(Self.columns) FROM transactions WHERE product_id = ? AND product_type IN ('nonConsumable', 'nonRenewing')
            AND status = 'completed' AND revoked = 0 ORDER BY id LIMIT 1
            """, [.text(productID)]).first
    }

    /// Whether a non-consumable or non-renewing subscription is owned (bought, not revoked).
    func ownsOneTimeProduct(_ productID: String) throws -> Bool {
        try !db.query("""
            SELECT 1 FROM transactions WHERE product_id = ? AND product_type IN ('nonConsumable', 'nonRenewing')
            AND status = 'completed' AND revoked = 0 LIMIT 1
            """, [.text(productID)]).isEmpty
    }

    /// Gives a row inserted `signedLater` its token's signature: the token is the store signer's over
    /// exactly the row's payload JSON, so the signature is what the row stores of it (see `stored`).
    func setSignature(_ signature: String, for id: Int64) {
        signatures[id] = signature
    }

    /// Inserts the rows waiting for their signatures, in the order they were made.
    private func insertSignedRows() throws {
        for (id, payload) in unsignedRows {
            guard let row = batchRows?[id] else { continue }  // deleted in the batch
            try db.queue(Self.insertSQL, values(row, payloadJSON: payload, signature: signatures[id]))
        }
    }

    func setFinished(_ id: Int64) throws {
        try db.query("DELETE FROM unfinished WHERE id = ?", [.int(id)])
    }

    func delete(_ id: Int64) throws {
        try rememberIDsBeforeDeleting()
        batchRows?[id] = nil
        try db.query("DELETE FROM transactions WHERE id = ?", [.int(id)])
        try db.query("DELETE FROM upgrade_refunds WHERE transaction_id = ?", [.int(id)])
    }

    func clear() throws {
        decodedRecords = nil
        try rememberIDsBeforeDeleting()
        try db.execute("""
            DELETE FROM transactions; DELETE FROM subscriptions; DELETE FROM redemptions; DELETE FROM nonces;
            DELETE FROM upgrade_refunds;
            """)
    }

    /// What an upgrade refunded of a transaction's price: the unused part of its period.
    func recordUpgradeRefund(transactionID: Int64, milliunits: Int64) throws {
        try db.query("""
            INSERT INTO upgrade_refunds(transaction_id, milliunits) VALUES (?, ?)
            ON CONFLICT(transaction_id) DO UPDATE SET milliunits = excluded.milliunits
            """, [.int(transactionID), .int(milliunits)])
    }

    func upgradeRefunds() throws -> [Int64: Int64] {
        var refunds: [Int64: Int64] = [:]
        for row in try db.query("SELECT transaction_id, milliunits FROM upgrade_refunds") {
            if let id = row[0].int, let milliunits = row[1].int { refunds[id] = milliunits }
        }
        return refunds
    }

    // MARK: Subscriptions

    /// Inside `batch`, subscription records live in memory and are written once, at the end, and
    /// rows written in the batch are read back without decoding: a year of renewals for a thousand
    /// subscribers is one write transaction, not twelve thousand record round trips through JSON.
    /// Safe because the batch holds the write lock: no other process can change them meanwhile.
    private var batchRecords: [Int64: SubscriptionRecord]?
    private var batchRows: [Int64: Row]?
    /// Rows inserted `signedLater` in the batch, with their payload JSON, and their signatures once made;
    /// the highest transaction ID the batch has allocated.
    private var unsignedRows: [(id: Int64, payload: String)] = []
    private var signatures: [Int64: String] = [:]
    private var batchHighestID: Int64?

    func batch<T>(_ body: () throws -> T) throws -> T {
        guard batchRecords == nil else { return try body() }
        batchRecords = [:]
        batchRows = [:]
        defer { (batchRecords, batchRows, unsignedRows, signatures, batchHighestID) = (nil, nil, [], [:], nil) }
        return try db.transaction {
            let result = try body()
            try insertSignedRows()
            for record in batchRecords!.values.sorted(by: { $0.originalID < $1.originalID }) { try write(record) }
            return result
        }
    }

    func subscription(_ originalID: Int64) throws -> SubscriptionRecord? {
        if let record = batchRecords?[originalID] { return record }
        return try db.query("SELECT record, original_id FROM subscriptions WHERE original_id = ?", [.int(originalID)]).first.map(record)
    }

    private func record(_ columns: [SQLValue]) throws -> SubscriptionRecord {
        guard let text = columns[0].text, let json = try? JSONParser.parse(text) else {
            throw damagedRow("subscriptions", key: columns[1].int, "its record does not decode: it is not JSON")
        }
        do {
            return try SubscriptionRecord(json: json)
        } catch {
            throw damagedRow("subscriptions", key: columns[1].int, "its record does not decode: \(error)")
        }
    }

    /// Every subscription record, decoded once: a refresh reads them for each group (status,
    /// eligibility, catch-up), and decoding all of them once per group made it quadratic.
    /// `stale`: groups this connection wrote since, read again (alone) at the next read outside a write.
    /// `nextDue`: the earliest date one of them falls due (see `RenewalSchedule.dueDate`).
    private struct DecodedRecords {
        var version: Int64
        var byGroup: [String: [SubscriptionRecord]]
        var stale: Set<String> = []
        /// All of them by original ID, sorted when first asked for (a purchase needs only its group).
        var all: [SubscriptionRecord]?
        var nextDue: Date?

        init(version: Int64, byGroup: [String: [SubscriptionRecord]]) {
            self.version = version
            self.byGroup = byGroup
            summarize()
        }

        mutating func summarize() {
            all = nil
            nextDue = byGroup.values.lazy.flatMap { $0 }.compactMap(RenewalSchedule.dueDate).min()
        }
    }

    /// Valid while no other connection has committed (`LedgerDatabase.dataVersion`). Kept only when read
    /// outside a write transaction, so a rollback cannot leave it stale.
    private var decodedRecords: DecodedRecords?

    private func decodedSubscriptions() throws -> DecodedRecords {
        let version = try db.dataVersion()
        if var decoded = decodedRecords, decoded.version == version {
            guard !decoded.stale.isEmpty else { return decoded }
            for group in decoded.stale { decoded.byGroup[group] = try storedSubscriptions(group: group) }
            decoded.stale = []
            decoded.summarize()
            if !db.isInTransaction { decodedRecords = decoded }
            return decoded
        }
        let all = try db.query("SELECT record, original_id FROM subscriptions ORDER BY original_id").map(record)
        var decoded = DecodedRecords(version: version, byGroup: Dictionary(grouping: all, by: \.groupID))
        decoded.all = all
        if !db.isInTransaction { decodedRecords = decoded }
        return decoded
    }

    private func allSubscriptions() throws -> [SubscriptionRecord] {
        let decoded = try decodedSubscriptions()
        if let all = decoded.all { return all }
        let all = decoded.byGroup.values.flatMap { $0 }.sorted { $0.originalID < $1.originalID }
        if !db.isInTransaction { decodedRecords?.all = all }
        return all
    }

    private func storedSubscriptions(group: String) throws -> [SubscriptionRecord] {
        try db.query("SELECT record, original_id FROM subscriptions WHERE group_id = ? ORDER BY original_id", [.text(group)]).map(record)
    }

    /// The earliest date a subscription falls due; nil when none will until a record changes.
    func nextDueDate() throws -> Date? {
        guard let pending = batchRecords, !pending.isEmpty else { return try decodedSubscriptions().nextDue }
        return try subscriptions().compactMap(RenewalSchedule.dueDate).min()
    }

    func subscriptions(group: String? = nil) throws -> [SubscriptionRecord] {
        // Inside a write (a purchase), a group written in it is read alone rather than decoding every record.
        var records = if let group, db.isInTransaction, decodedRecords?.stale.contains(group) ?? true {
            try storedSubscriptions(group: group)
        } else {
            try group.map { try decodedSubscriptions().byGroup[$0] ?? [] } ?? allSubscriptions()
        }
        guard let pending = batchRecords, !pending.isEmpty else { return records }
        records = records.map { pending[$0.originalID] ?? $0 }
        let known = Set(records.map(\.originalID))
        records += pending.values.filter { !known.contains($0.originalID) && (group == nil || $0.groupID == group) }
        return records.sorted { $0.originalID < $1.originalID }
    }

    /// Every subscription record by group, each group's as `subscriptions(group:)` reads it, without
    /// grouping all of them again (a thousand groups' at every refresh).
    func subscriptionsByGroup() throws -> [String: [SubscriptionRecord]] {
        guard let pending = batchRecords, !pending.isEmpty else { return try decodedSubscriptions().byGroup }
        return Dictionary(grouping: try subscriptions(), by: \.groupID)
    }

    func save(_ record: SubscriptionRecord) throws {
        if batchRecords != nil { batchRecords![record.originalID] = record } else { try write(record) }
    }

    /// In a write transaction (joined when one is open): on PostgreSQL only those count as changes
    /// that other processes' cached records must see (`dataVersion`).
    private func write(_ record: SubscriptionRecord) throws {
        decodedRecords?.stale.insert(record.groupID)
        let text = record.json.compact
        _ = try db.transaction {
            try db.queue("""
                INSERT INTO subscriptions(original_id, group_id, record) VALUES (?, ?, ?)
                ON CONFLICT(original_id) DO UPDATE SET record = excluded.record, group_id = excluded.group_id
                """, [.int(record.originalID), .text(record.groupID), .text(text)])
        }
    }

    func deleteSubscription(_ originalID: Int64) throws {
        decodedRecords = nil
        batchRecords?[originalID] = nil
        _ = try db.transaction { try db.query("DELETE FROM subscriptions WHERE original_id = ?", [.int(originalID)]) }
    }

    // MARK: Events, redemptions, nonces

    enum EventKind: String {
        /// A purchase the app made itself: its result came back from `purchase()`; other processes see it as an update.
        case purchase
        /// Reaches every app through `Transaction.updates`.
        case update
        /// Recorded for the tester only (an Ask to Buy decline).
        case silent
    }

    /// Returns the event's sequence number.
    @discardableResult
    func appendEvent(transactionID: Int64, kind: EventKind, origin: String) throws -> Int64? {
        try db.insert("INSERT INTO events(transaction_id, kind, origin) VALUES (?, ?, ?)",
                      [.int(transactionID), .text(kind.rawValue), .text(origin)], returning: "seq")
    }

    func events(after seq: Int64) throws -> [(seq: Int64, transactionID: Int64, kind: EventKind, origin: String)] {
        try db.query("SELECT seq, transaction_id, kind, origin FROM events WHERE seq > ? ORDER BY seq", [.int(seq)]).map {
            guard let seq = $0[0].int, let id = $0[1].int, let kind = $0[2].text.flatMap(EventKind.init(rawValue:)),
                  let origin = $0[3].text else { throw damagedRow("events", key: $0[0].int, "a column is missing or unknown") }
            return (seq, id, kind, origin)
        }
    }

    func lastEventSeq() throws -> Int64 {
        try db.query("SELECT COALESCE(MAX(seq), 0) FROM events").first?.first?.int ?? 0
    }

    func redemptionCount(code: String) throws -> Int {
        Int(try db.query("SELECT COUNT(*) FROM redemptions WHERE code = ?", [.text(code)]).first?.first?.int ?? 0)
    }

    func recordRedemption(code: String, transactionID: Int64) throws {
        try db.query("INSERT INTO redemptions(code, transaction_id) VALUES (?, ?)", [.text(code), .int(transactionID)])
    }

    /// Records a promotional-offer nonce; false when it was used before.
    func useNonce(_ nonce: String) throws -> Bool {
        try !db.query("INSERT INTO nonces(nonce) VALUES (?) ON CONFLICT(nonce) DO NOTHING RETURNING nonce", [.text(nonce)]).isEmpty
    }
}

/// The renewal state of one subscription (one per original transaction) in a group. Stored as its
/// synthesized `Codable` form, which older ledgers' rows were encoded in; `json` and `init(json:)`
/// (SubscriptionRecord+JSON.swift) write and read that form without Foundation's coders.
struct SubscriptionRecord: Codable, Equatable {
    var originalID: Int64
    var groupID: String
    var productID: String
    var autoRenewProductID: String
    var willAutoRenew = true
    var latestTransactionID: Int64
    var expirationDate: Date
    var state: SubscriptionState
    var expirationReason: RenewalInfoPayload.ExpirationReason?
    var gracePeriodEnd: Date?
    var billingRetryEnd: Date?
    var priceIncrease: PriceIncrease?
    /// What a requested price increase renews `productID` at, in milliunits; kept once agreed, as it is the price then.
    var increasedPriceMilliunits: Int64?
    var familyShared = false
    var recentStartDate: Date
    /// The day of the month renewals fall on (see `Period.advance(_:anchorDay:)`).
    var anchorDay: Int?
    var appAccountToken: UUID?
    /// A pay-as-you-go offer still discounting renewals.
    var offer: CarriedOffer?
    /// The billing plan it is paid on; nil for a product without billing plans.
    var billingPlan: BillingPlanType?

    struct CarriedOffer: Codable, Equatable {
        var type: OfferType
        var id: String?
        var period: Period
        var priceMilliunits: Int64
        var remainingPeriods: Int
    }

    enum PriceIncrease: String, Codable { case notYetResponded, agreed, declined }
}

extension SubscriptionState: Codable {}
extension OfferType: Codable {}
extension BillingPlanType: Codable {}
extension Period: Codable {
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let period = Period(iso: text) else { throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "bad period \(text)")) }
        self = period
    }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(iso)
    }
}
extension RenewalInfoPayload.ExpirationReason: Codable {}

extension SQLValue {
    /// A `LIMIT` of at most `count` rows; nil: all of them.
    static func limit(_ count: Int?) -> SQLValue { .int(count.map(Int64.init) ?? Int64.max) }
}

/// Why the ledger cannot be used. Each names the file and says how to recover without losing what it holds.
public enum LedgerError: Error, Equatable, CustomStringConvertible {
    case damaged(path: String, detail: String)
    case lost(path: String, evidence: String)
    case damagedRow(path: String, table: String, key: String, detail: String)
    case newerSchema(path: String, version: Int64)

    public var description: String {
        switch self {
        case .damaged(let path, let detail):
            "\(path): the ledger is damaged (\(detail)); Storefront will not open it, so nothing in it is lost. "
                + Self.recovery(path)
        case .lost(let path, let evidence):
            "\(path) is missing or empty, but \(evidence) shows this state directory had a ledger; Storefront will not start "
                + "a new one over it. Restore the ledger from a backup, or move the state directory \(Self.directory(path)) away to start with an empty store."
        case .damagedRow(let path, let table, let key, let detail):
            "\(path): row \(key) of \(table) is damaged (\(detail)). " + Self.recovery(path)
        case .newerSchema(let path, let version):
            "\(path) was written by a newer Storefront (ledger schema \(version); this one reads up to \(Ledger.schemaVersion)); "
                + "Storefront will not open it, so nothing in it changes. Run the newer Storefront. If none wrote it, its header is damaged. "
                + Self.recovery(path)
        }
    }

    static func recovery(_ path: String) -> String {
        "To recover, copy the state directory \(directory(path)) first; then `sqlite3 \(path) .recover > recovered.sql` salvages "
            + "what it can (load it into a new ledger.sqlite with `sqlite3 ledger.sqlite < recovered.sql`), or move the directory away to start with an empty store."
    }

    static func directory(_ path: String) -> String { URL(fileURLWithPath: path).deletingLastPathComponent().path }

    /// A missing or empty ledger beside the app's wallet (written only after a ledger was opened) was lost, not never made.
    static func checkNotLost(_ path: String) throws {
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        guard size == nil || size == 0 else { return }
        let wallet = directory(path) + "/wallet.sqlite"
        if FileManager.default.fileExists(atPath: wallet) { throw LedgerError.lost(path: path, evidence: "the app's wallet \(wallet)") }
        if FileManager.default.fileExists(atPath: path + "-wal") { throw LedgerError.lost(path: path, evidence: "its write-ahead log \(path)-wal") }
    }
}
