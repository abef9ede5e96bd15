import CSQLite
import CWALBatch
import Foundation

/// A minimal SQLite connection; its failures are the ledger's kinds (`LedgerError`, see `error`).
/// Not Sendable: it lives inside the one actor that owns it.
public final class SQLiteDatabase: LedgerDatabase {
    var engine: LedgerEngine { .sqlite }
    let handle: OpaquePointer
    private let path: String?
    private var statements: [String: OpaquePointer] = [:]
    /// A check of the file running beside this connection: once it finds damage, the connection refuses
    /// writes (reads go on, so what the ledger holds can still be shown). Dropped when it ends.
    /// Commits leave checkpointing to the first one after it: the check reads one snapshot of the file
    /// throughout, so no checkpoint could copy a page back into it, and each one tried
    /// sorted the whole write-ahead log first (a purchase on a million transactions took twice as long).
    var integrityCheck: IntegrityCheck? {
        didSet { checkpointsAfterCommits(integrityCheck == nil) }
    }
    /// Checkpoints the write-ahead log of a file opened for writing, beside the commits (see `Checkpointer`).
    private let checkpointer: Checkpointer?
    /// When set (a test, to see what an idle tick reads), every statement run is appended.
    var recordedStatements: [String]?

    /// Opens (creating, unless `readOnly`) a database file, or an in-memory one for `nil`.
    public init(path: String?, readOnly: Bool = false) throws {
        _ = Self.configured
        var db: OpaquePointer?
        // No mutex of SQLite's around every call: one actor owns the connection, so calls never overlap
        // (taking and releasing it, several times a statement, was 6% of a simulated year's time in SQLite).
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path ?? ":memory:", &db, flags, Self.batchesLog ? storefront_wal_batch_name : nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            if let db { sqlite3_close(db) }
            throw Self.error(code: rc, message: message, path: path)
        }
        handle = db
        self.path = path
        checkpointer = path.flatMap { readOnly ? nil : Checkpointer(path: $0) }
        sqlite3_busy_timeout(handle, 5000)
        if path != nil, !readOnly {
            // WAL lets two storefront processes share one ledger. NORMAL sync in WAL keeps every commit through
            // a crash of the process, but a power loss may take the last commits: a test store's trade-off.
            try execute("PRAGMA journal_mode=WAL")
            try execute("PRAGMA synchronous=NORMAL")
            // 8 MB of pages rather than SQLite's 2: the storefront reads the newest 300 transactions and
            // notifications after each purchase (several KB each, with their tokens), which 2 MB did not
            // hold, so every read went back to the file for them.
            try execute("PRAGMA cache_size=-8192")
        }
        checkpointsAfterCommits(true)
    }

    /// Checkpoints run so far beside this connection's commits (tests).
    var checkpoints: Int { checkpointer?.checkpoints ?? 0 }
    var checkpointsInCommits: Int { checkpointer?.checkpointsInCommits ?? 0 }
    var logRestarts: Int { checkpointer?.restarts ?? 0 }
    /// The writes made to this connection's write-ahead log, and the frames appended to it (tests); nil before it has one.
    var logWrites: (writes: Int, frames: Int)? {
        var (writes, frames): (Int64, Int64) = (0, 0)
        return storefront_wal_batch_counts(handle, &writes, &frames) == 1 ? (Int(writes), Int(frames)) : nil
    }
    /// The next write of the frames the log holds fails as on a full disk (tests).
    func failNextLogWrite() { _ = storefront_wal_batch_fail_next_flush(handle) }

    /// SQLite's hook after each commit, in place of its automatic checkpoint (which is itself such a hook).
    private func checkpointsAfterCommits(_ on: Bool) {
        guard let checkpointer else { return }
        guard on else { sqlite3_wal_hook(handle, nil, nil); return }
        // Unretained: the connection holds the checkpointer, and no hook runs after the connection closes.
        sqlite3_wal_hook(handle, { checkpointer, writer, _, pages in
            Unmanaged<Checkpointer>.fromOpaque(checkpointer!).takeUnretainedValue().committed(pages: pages, writer: writer!)
            return SQLITE_OK
        }, Unmanaged.passUnretained(checkpointer).toOpaque())
    }

    /// Set once, before the first connection initializes SQLite: allocations without memory
    /// statistics take no global mutex (taking and releasing it was 3% of a simulated year's time in SQLite).
    private static let configured: Void = { _ = shim_sqlite_disable_memstatus() }()

    /// The unix VFS writing a commit's log frames in one write, when it registered (else SQLite's default).
    private static let batchesLog = storefront_wal_batch_register() == SQLITE_OK

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        checkpointer?.close()
        // Everything into the file itself, whichever connection to it closes last (another process's,
        // say): a ledger closed is a whole file, to copy or inspect. Nothing to do when another
        // connection reads; a read-only one cannot, and fails harmlessly.
        if checkpointer != nil { sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_TRUNCATE, nil, nil) }
        sqlite3_close(handle)
    }

    public func execute(_ sql: String) throws {
        refuseWritesIfDamaged()
        recordedStatements?.append(sql)
        var error: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &error)
        if rc != SQLITE_OK {
            let message = error.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(error)
            throw noted(Self.error(code: sqlite3_extended_errcode(handle), message: message, path: path,
                                   systemErrno: sqlite3_system_errno(handle)))
        }
    }

    /// The first full disk a statement met since the last `takeDiskFull()`.
    private var diskFull: LedgerError?

    /// A full disk a caller turned into another failure (StoreKit's `systemError`) is still told, by name.
    public func takeDiskFull() -> LedgerError? {
        defer { diskFull = nil }
        return diskFull
    }

    private func noted(_ error: LedgerError) -> LedgerError {
        if case .diskFull = error, diskFull == nil { diskFull = error }
        return error
    }

    public typealias Value = SQLValue

    /// Runs a statement (cached by its SQL) and returns its rows.
    @discardableResult
    public func query(_ sql: String, _ arguments: [Value] = []) throws -> [[Value]] {
        refuseWritesIfDamaged()
        recordedStatements?.append(sql)
        let statement = try prepared(sql)
        defer { sqlite3_reset(statement); sqlite3_clear_bindings(statement) }
        for (i, argument) in arguments.enumerated() {
            let index = Int32(i + 1)
            switch argument {
            case .int(let v): sqlite3_bind_int64(statement, index, v)
            case .text(var v):
                // From the string's own bytes: passed as a C string, each was copied first (a whole payload, every insert).
                v.withUTF8 { bytes in
                    let start = bytes.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }
                    // A nil start would bind NULL: an empty text is bound from an empty literal.
                    if let start { sqlite3_bind_text(statement, index, start, Int32(bytes.count), shim_sqlite_transient()) }
                    else { sqlite3_bind_text(statement, index, "", 0, shim_sqlite_transient()) }
                }
            case .null: sqlite3_bind_null(statement, index)
            }
        }
        var rows: [[Value]] = []
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else { throw lastError(rc) }
            rows.append((0..<sqlite3_column_count(statement)).map { column(statement, $0) })
        }
        return rows
    }

    /// The key is the row's rowid (an INTEGER PRIMARY KEY): read from the connection, not with
    /// RETURNING, which builds a temporary table for its rows (it made a purchase's event its dearest row).
    public func insert(_ sql: String, _ arguments: [Value], returning column: String) throws -> Int64? {
        try query(sql, arguments)
        return changes > 0 ? sqlite3_last_insert_rowid(handle) : nil
    }

    /// Rows the last INSERT, UPDATE or DELETE changed, triggers' left out.
    public var changes: Int64 { sqlite3_changes64(handle) }

    private var depth = 0

    public var isInTransaction: Bool { depth > 0 }

    /// Runs `body` in one transaction (BEGIN IMMEDIATE, so two processes never interleave a write).
    /// Nested calls join the outer transaction, so a batch (a year of renewals) commits once.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        if depth > 0 {
            depth += 1
            defer { depth -= 1 }
            return try body()
        }
        // A write inside `reading` ends its snapshot (SQLite cannot take a read transaction's write lock
        // once another connection has committed): the reads after it take a new one.
        if isReading { try query("COMMIT") }
        defer { if isReading { _ = try? query("BEGIN") } }
        // Prepared once, as every statement is: parsing BEGIN and COMMIT anew was a few µs of every write.
        snapshotDataVersion = nil
        try query("BEGIN IMMEDIATE")
        depth = 1
        defer { (depth, snapshotDataVersion) = (0, nil) }
        do {
            let result = try body()
            try query("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    private var isReading = false

    /// Runs `body` in one read transaction: one snapshot, and one take and release of the lock, for all
    /// its statements (taking and releasing it was most of what a small read cost). A write in it
    /// (see `transaction`) ends the snapshot; the reads after it are on a new one.
    public func reading<T>(_ body: () throws -> T) rethrows -> T {
        guard depth == 0, !isReading, (try? query("BEGIN")) != nil else { return try body() }
        (isReading, snapshotDataVersion) = (true, nil)
        defer {
            (isReading, snapshotDataVersion) = (false, nil)
            _ = try? query("COMMIT")
        }
        return try body()
    }

    /// SQLite's own counter of other connections' commits.
    public func dataVersion() throws -> Int64 {
        // A transaction SQLite ended itself (rolled back by an error) has no snapshot left to hold to.
        if let snapshotDataVersion, sqlite3_get_autocommit(handle) == 0 { return snapshotDataVersion }
        let version = try query("PRAGMA data_version").first?.first?.int ?? -1
        if isInTransaction || isReading { snapshotDataVersion = version }
        return version
    }

    /// `dataVersion` as read in the transaction under way: no other connection's commit can reach a
    /// read transaction's snapshot, nor come while this one holds the write lock, so it is read once
    /// (a purchase's writes and the refresh after them read it twice each, for their stamps).
    private var snapshotDataVersion: Int64?

    /// Rows this connection inserted, updated or deleted, triggers' included, since it opened (counted as each is written).
    var ownChanges: Int64 { sqlite3_total_changes64(handle) }

    /// Between statements, never inside a transaction: one begun before the damage was found ends as it began.
    private func refuseWritesIfDamaged() {
        guard let check = integrityCheck, depth == 0 else { return }
        switch check.outcome {
        case .running: return
        case .damaged:
            integrityCheck = nil
            try? execute("PRAGMA query_only = 1")
        case .passed, .stopped:
            integrityCheck = nil
        }
    }

    private func prepared(_ sql: String) throws -> OpaquePointer {
        if let statement = statements[sql] { return statement }
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard rc == SQLITE_OK, let statement else { throw lastError(rc) }
        statements[sql] = statement
        return statement
    }

    private func column(_ statement: OpaquePointer, _ index: Int32) -> Value {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_INTEGER: .int(sqlite3_column_int64(statement, index))
        case SQLITE_NULL: .null
        default: .text(String(cString: sqlite3_column_text(statement, index)))
        }
    }

    private func lastError(_ rc: Int32) -> LedgerError {
        noted(Self.error(code: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)), path: path,
                   systemErrno: sqlite3_system_errno(handle)))
    }

    /// Why a file cannot be opened or written, and what to do, as far as the file system says.
    static func cannotOpen(_ path: String, _ sqlite: String) -> String {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            return "it is a directory, not a database file: move it away (\(sqlite))"
        }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        if access(directory, W_OK) != 0, errno == EROFS {
            return "it is on a read-only file system: remount it read-write, or choose another state directory with --state (\(sqlite))"
        }
        return "cannot open or write it: check that it and \(directory) are yours to read and write (\(sqlite))"
    }

    /// SQLite's error as the ledger's kind of failure, naming the file.
    static func error(code: Int32, message: String, path: String?, systemErrno: Int32 = 0) -> LedgerError {
        let name = path ?? ":memory:"
        let sqlite = "SQLite error \(code): \(message)"
        switch code & 0xFF {
        case SQLITE_CORRUPT, SQLITE_NOTADB: return .damaged(path: name, detail: message)
        // Also an I/O error whose cause was ENOSPC (a write-ahead log or shared memory that could not grow).
        case SQLITE_FULL: return .diskFull(path: name, detail: sqlite)
        case SQLITE_IOERR where systemErrno == ENOSPC: return .diskFull(path: name, detail: sqlite)
        // SQLite's own words ("unable to open database file") name neither the cause nor a way out.
        case SQLITE_CANTOPEN, SQLITE_READONLY, SQLITE_PERM: return .failed(path: name, detail: cannotOpen(name, sqlite))
        default: return .failed(path: name, detail: sqlite)
        }
    }
}
