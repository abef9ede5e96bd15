import Foundation
import StoreCore
import StoreSigning

/// The store's record: transactions, subscription renewal state, the events other processes pick
/// up, offer-code redemptions, used offer nonces, settings. In one SQLite file by default (WAL; kept
/// through a process crash, see `SQLiteDatabase`), or in a PostgreSQL database a team shares
/// (`Ledger+PostgreSQL`); the SQL here is what both engines speak, and the schema is one timeline
/// of migrations for both (`LedgerSchema`).
final class Ledger {
    let db: any LedgerDatabase
    /// The store signer's `base64url(header) + "."`. A token made by that signer over a row's exact
    /// payload is stored as its signature alone and rebuilt on reading: the header (with the `x5c`
    /// certificate) and the payload's base64 would otherwise be three quarters of every row.
    /// Set once, before any row is read or written (on PostgreSQL the identity is in the ledger).
    var tokenPrefix: String
    let location: LedgerLocation

    /// The file or database, for messages (a PostgreSQL URL without its password); nil in memory.
    var path: String? { location == .inMemory ? nil : location.description }

    /// The check of a larger SQLite file, running beside the store; nil when the file was checked at open.
    var integrityCheck: IntegrityCheck?

    /// Rung at each notification written or queued again (see `OutboxBell`).
    var outboxBell: OutboxBell?

    /// How new transactions are numbered (see `nextTransactionID`).
    var numbering = TransactionNumbering.appStore

    /// The highest transaction ID once the write transaction that allocated it commits, with the other
    /// connections' commits then and the ledger's commit count it reaches (PostgreSQL, see
    /// `LedgerDatabase.commitsAtBegin`). A later write that finds no other connection committed since,
    /// and that one committed, needs no query for its ID: one round trip fewer of a purchase's. This
    /// connection's own commits between (a finish) insert nothing, or raise it: every row inserted does.
    var highestIDAfterCommit: (others: Int64, commits: Int64, id: Int64)?

    /// Tokens `jws(_:)` rebuilt, by transaction ID with the stored form they came from: rebuilding
    /// (the payload's base64) was a third of a refresh with a thousand subscriptions. A changed row
    /// has another stored form, so it is rebuilt; bounded, as a refresh needs only the current ones.
    var rebuiltTokens: [Int64: (stored: String, token: String)] = [:]
    /// How many `rebuiltTokens` are kept before they are dropped and made again.
    var rebuiltTokenLimit = 20_000

    /// The newest rows' payloads as `allRows(limit:)` last decoded them, by transaction ID with the JSON
    /// they came from: the storefront reads the newest 300 after every purchase, and decoding them
    /// all was most of its store work. A changed payload is decoded again; bounded by the limit read.
    var decodedNewest: [Int64: (json: String, payload: TransactionPayload)] = [:]

    /// Inside `batch`, subscription records live in memory and are written once, at the end, and
    /// rows written in the batch are read back without decoding: a year of renewals for a thousand
    /// subscribers is one write transaction, not twelve thousand record round trips through JSON.
    /// Safe because the batch holds the write lock: no other process can change them meanwhile.
    var batchRecords: [Int64: SubscriptionRecord]?
    var batchRows: [Int64: Row]?
    /// Rows inserted `signedLater` in the batch, with their payload JSON, and their signatures once made;
    /// the highest transaction ID the batch has allocated.
    var unsignedRows: [(id: Int64, payload: String)] = []
    var signatures: [Int64: String] = [:]
    var batchHighestID: Int64?

    /// Valid while no other connection has committed (`LedgerDatabase.dataVersion`). Kept only when read
    /// outside a write transaction, so a rollback cannot leave it stale.
    var decodedRecords: DecodedRecords?

    /// A ledger on `database`, whose schema the engine's opening brings up to date (`migrate`).
    init(database: any LedgerDatabase, location: LedgerLocation, tokenPrefix: String) {
        db = database
        self.location = location
        self.tokenPrefix = tokenPrefix
    }

    deinit { integrityCheck?.stop() }

    /// What wakes this process when the ledger may have changed: a `LISTEN` on the ledger's channel
    /// (PostgreSQL), inotify on the write-ahead log (a SQLite file); nil in memory.
    func wake(_ changed: @escaping @Sendable () -> Void) -> (any LedgerWake)? {
        switch location {
        case .postgresql(let database):
            guard let db = db as? PostgresDatabase, let channel = try? db.channel() else { return nil }
            return LedgerChangeFeed(location: database, channel: channel, own: db.backend, changed: changed)
        case .sqlite(let path):
            #if canImport(Glibc)
            return LedgerFileWatch(ledger: path, changed: changed)
            #else
            return nil
            #endif
        case .inMemory:
            return nil
        }
    }

    /// Opens the ledger at `location` on its engine.
    convenience init(_ location: LedgerLocation, tokenPrefix: String) throws {
        switch location {
        case .sqlite(let path): try self.init(path: path, tokenPrefix: tokenPrefix)
        case .inMemory: try self.init(path: nil, tokenPrefix: tokenPrefix)
        case .postgresql(let database): try self.init(postgres: database)
        }
    }

    /// Opens a store's ledger and the identity it signs with: a shared ledger's own (see
    /// `sharedIdentity`); else the one in the state directory, beside the SQLite file, which is bound
    /// to the ledger; else, in memory, a fresh one.
    static func open(_ location: LedgerLocation, stateDirectory: String?) throws -> (Ledger, StoreIdentity) {
        switch location {
        case .postgresql:
            let ledger = try Ledger(location, tokenPrefix: "")
            return (ledger, try ledger.sharedIdentity())
        case .sqlite(let path):
            let directory = stateDirectory ?? LedgerError.directory(path)
            try StateDirectory.create(directory)
            let identity = try StoreIdentity.load(directory: directory)
            let ledger = try Ledger(location, tokenPrefix: identity.signer.tokenPrefix)
            let file = URL(fileURLWithPath: path).lastPathComponent
            StateDirectory.restrictFiles(in: directory, names: [file, file + "-wal", file + "-shm"])
            try ledger.bind(to: identity, path: directory + "/signing.pem")
            return (ledger, identity)
        case .inMemory:
            let identity = try StoreIdentity.ephemeral()
            return (try Ledger(location, tokenPrefix: identity.signer.tokenPrefix), identity)
        }
    }

    /// The schema this Storefront writes: a ledger of a newer one is refused, unchanged.
    static var schemaVersion: Int64 { LedgerSchema.version }

    /// Brings the ledger to this Storefront's schema; called by the engine's opening, in a write transaction.
    func migrate() throws {
        try LedgerSchema.migrator.migrate(db, name: path ?? ":memory:")
    }

    // MARK: Meta

    func meta(_ key: String) throws -> String? {
        try db.query("SELECT value FROM meta WHERE key = ?", [.text(key)]).first?.first?.text
    }

    /// The value of `key` as `decode` reads it. A value it cannot read is damage to the ledger, reported
    /// as a malformed transaction is: falling back to a default (the clock to now) would lose it silently.
    func meta<Value>(_ key: String, as what: String, _ decode: (String) -> Value?) throws -> Value? {
        guard let text = try meta(key) else { return nil }
        guard let value = decode(text) else {
            throw LedgerError.damagedRow(path: path ?? ":memory:", table: "meta", key: key, detail: "its value is not \(what)")
        }
        return value
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

    /// A value every process on the ledger follows (the clock, the tester's settings), written as a
    /// commit so that the others hear of it: on PostgreSQL only a write transaction's commit notifies them.
    func setSharedMeta(_ key: String, _ value: String) throws {
        try db.transaction { try setMeta(key, value) }
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
