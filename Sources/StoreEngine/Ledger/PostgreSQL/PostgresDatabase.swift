import CLibPQ
import Foundation
import Locking
import Synchronization

/// A ledger on PostgreSQL through libpq. Writers take a transaction-scoped advisory lock (one per
/// schema), so they exclude each other as SQLite's `BEGIN IMMEDIATE` does; each commit counts in
/// `ledger_version` and sends `NOTIFY` on the ledger's channel (see `LedgerChangeFeed`).
/// Not Sendable: it lives inside the one actor that owns it.
final class PostgresDatabase: LedgerDatabase {
    var engine: LedgerEngine { .postgresql }
    let location: PostgresLocation
    private var connection: OpaquePointer
    /// The server process serving `connection`, for a change feed to tell this connection's commits from others'.
    let backend = PostgresBackend()
    /// Statement names by SQL, for this connection (a reconnect starts afresh).
    private var statements: [String: String] = [:]
    private var depth = 0
    /// Commits this connection made: `dataVersion` leaves them out, as SQLite's does.
    private var ownCommits: Int64 = 0
    /// Statements outside a transaction that may have written (each commits on its own).
    private var ownWrites: Int64 = 0
    /// A write transaction under way counts as the commit it becomes once it has written.
    var ownChanges: Int64 { ownCommits + ownWrites + (depth > 0 && wroteInTransaction ? 1 : 0) }
    /// Round trips to the server so far: what a shared ledger costs, counted for the tests that keep it low.
    private(set) var roundTrips = 0
    /// Whether the write transaction under way has written (see `ownChanges`).
    private var wroteInTransaction = false
    /// Writes waiting for the next statement (see `queue`): prepared, with their arguments as text.
    private var queued: [Statement] = []
    /// Each queued write's result is a line; the server never waits for us to read this many, so
    /// sending them all before reading any cannot deadlock.
    private static let pipelineLimit = 64

    private struct Statement {
        var sql: String
        var name: String
        var texts: [String?]
    }

    init(_ location: PostgresLocation) throws {
        self.location = location
        localCommits = LocalCommits.of(location)
        connection = try Self.connect(location)
        backend.pid = PQbackendPID(connection)
    }

    deinit { PQfinish(connection) }

    /// Opens a connection: a 5 s connect timeout unless the URL sets one, server notices silenced
    /// (`CREATE … IF NOT EXISTS` would print them on the terminal).
    static func connect(_ location: PostgresLocation) throws -> OpaquePointer {
        let keys = ["connect_timeout", "application_name", "dbname"]
        let values = ["5", "storefront", location.url]
        let connection = withCStringArray(keys) { k in withCStringArray(values) { v in PQconnectdbParams(k, v, 1) } }
        guard let connection else { throw LedgerError.unreachable(path: location.description, detail: "out of memory") }
        guard PQstatus(connection) == CONNECTION_OK else {
            let detail = message(PQerrorMessage(connection))
            PQfinish(connection)
            throw LedgerError.unreachable(path: location.description, detail: detail)
        }
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        return connection
    }

    func execute(_ sql: String) throws { PQclear(try executeKeepingResult(sql)) }

    /// `execute`, returning the last statement's result for the caller to read and clear. `writes`:
    /// whether it counts among this connection's writes (a transaction's beginning does not).
    private func executeKeepingResult(_ sql: String, writes: Bool = true) throws -> OpaquePointer? {
        try reconnectIfLost()
        if !queued.isEmpty { PQclear(try sendQueued()) }
        roundTrips += 1
        let result = PQexec(connection, sql)
        do { try check(result) } catch { PQclear(result); throw error }
        if writes { wrote() }
        return result
    }

    @discardableResult
    func query(_ sql: String, _ arguments: [SQLValue]) throws -> [[SQLValue]] {
        try reconnectIfLost()
        do {
            return try run(sql, arguments)
        } catch LedgerError.connectionLost where depth == 0 && sql.hasPrefix("SELECT") {
            try reconnectIfLost()  // a read outside a transaction changes nothing: try it once more
            return try run(sql, arguments)
        }
    }

    func queue(_ sql: String, _ arguments: [SQLValue]) throws {
        guard depth > 0 else { try query(sql, arguments); return }
        wrote()
        queued.append(Statement(sql: sql, name: try prepared(sql), texts: Self.texts(arguments)))
        if queued.count >= Self.pipelineLimit { PQclear(try sendQueued()) }
    }

    /// A statement that may have written: outside a transaction it committed on its own.
    private func wrote() {
        if depth == 0 { ownWrites += 1 } else { wroteInTransaction = true }
    }

    private func run(_ sql: String, _ arguments: [SQLValue]) throws -> [[SQLValue]] {
        let statement = Statement(sql: sql, name: try prepared(sql), texts: Self.texts(arguments))
        roundTrips += queued.isEmpty ? 1 : 0  // else counted as the pipeline's
        let result = if queued.isEmpty {
            withOptionalCStringArray(statement.texts) { PQexecPrepared(connection, statement.name, Int32(statement.texts.count), $0, nil, nil, 0) }
        } else {
            try sendQueued(then: statement)
        }
        defer { PQclear(result) }
        try check(result)
        if strncmp(PQcmdStatus(result), "SELECT", 6) != 0 { wrote() }
        let (rows, columns) = (PQntuples(result), PQnfields(result))
        guard rows > 0 else { return [] }
        let integer = (0..<columns).map { [20, 21, 23].contains(PQftype(result, $0)) }  // int8, int2, int4
        return (0..<rows).map { row in
            (0..<columns).map { column in
                if PQgetisnull(result, row, column) == 1 { return .null }
                let text = String(cString: PQgetvalue(result, row, column))
                return integer[Int(column)] ? Int64(text).map(SQLValue.int) ?? .text(text) : .text(text)
            }
        }
    }

    private static func texts(_ arguments: [SQLValue]) -> [String?] {
        arguments.map {
            switch $0 {
            case .int(let v): String(v)
            case .text(let v): v
            case .null: nil
            }
        }
    }

    /// The queued writes and then `last`, in one round trip (libpq's pipeline mode); `last`'s result,
    /// or the first error among them. After an error the server skips the rest, and the transaction
    /// they are in can only roll back.
    private func sendQueued(then last: Statement? = nil) throws -> OpaquePointer? {
        let statements = queued + (last.map { [$0] } ?? [])
        queued = []
        guard PQenterPipelineMode(connection) == 1 else { throw lostOrFailed("cannot enter pipeline mode") }
        defer { PQexitPipelineMode(connection) }
        for statement in statements {
            let sent = withOptionalCStringArray(statement.texts) {
                PQsendQueryPrepared(connection, statement.name, Int32(statement.texts.count), $0, nil, nil, 0)
            }
            guard sent == 1 else { throw lostOrFailed("cannot send a statement") }
        }
        guard PQpipelineSync(connection) == 1 else { throw lostOrFailed("cannot send a pipeline") }
        roundTrips += 1
        var (kept, failure): (OpaquePointer?, Error?) = (nil, nil)
        for (index, statement) in statements.enumerated() {
            while let result = PQgetResult(connection) {
                if failure == nil, PQresultStatus(result) != PGRES_PIPELINE_ABORTED {
                    do { try check(result, sql: statement.sql) } catch { failure = error }
                }
                if index == statements.count - 1, last != nil, failure == nil { PQclear(kept); kept = result } else { PQclear(result) }
            }
        }
        while let result = PQgetResult(connection) {  // the sync's
            let status = PQresultStatus(result)
            PQclear(result)
            if status == PGRES_PIPELINE_SYNC { break }
        }
        if let failure { PQclear(kept); throw failure }
        return kept
    }

    private func lostOrFailed(_ what: String) -> LedgerError {
        let detail = what + ": " + Self.message(PQerrorMessage(connection))
        let path = location.description
        return PQstatus(connection) == CONNECTION_OK ? .failed(path: path, detail: detail) : .connectionLost(path: path, detail: detail)
    }

    func insert(_ sql: String, _ arguments: [SQLValue], returning column: String) throws -> Int64? {
        try query(sql + " RETURNING " + column, arguments).first?.first?.int
    }

    var isInTransaction: Bool { depth > 0 }
    private(set) var commitsAtBegin: Int64?
    /// Set once the ledger's tables exist (see `Ledger(postgres:)`); until then there is no count to read.
    private var readsCommitsAtBegin = false

    /// The ledger's commit count as last read, while nothing says another connection has committed
    /// since (see `dataVersion`; trusted only while listening, when notices can say so); nil: read it.
    private var knownCommits: (count: Int64, localCommits: Int64)?
    /// The commit notices of the ledger's channel reach this connection (see `noticesFromOthers`).
    private var listening = false
    /// Commits to this ledger by every connection of this process: another store in the process (a
    /// test's second machine) has committed when it moved, before its notice can arrive.
    private let localCommits: LocalCommits

    /// The ledger's tables exist: each write transaction reads the commit count as it takes the lock,
    /// and this connection listens on the ledger's channel so that `dataVersion` needs no round trip
    /// while no other connection commits.
    func ledgerIsReady() throws {
        readsCommitsAtBegin = true
        try listen()
    }

    private func listen() throws {
        roundTrips += 1
        let result = PQexec(connection, "LISTEN \"" + (try channel()).replacingOccurrences(of: "\"", with: "\"\"") + "\"")
        defer { PQclear(result) }
        try check(result)
        listening = true
    }

    func transaction<T>(_ body: () throws -> T) throws -> T {
        if depth > 0 {
            depth += 1
            defer { depth -= 1 }
            return try body()
        }
        // One round trip to begin, take the lock and read the commit count, one to count, notify and
        // commit: a write's round trips were half of a purchase on a loopback server.
        let begin = "BEGIN; SELECT pg_advisory_xact_lock(hashtext(current_schema()))"
        if readsCommitsAtBegin {
            let result = try executeKeepingResult(begin + "; SELECT n FROM ledger_version", writes: false)
            defer { PQclear(result) }
            commitsAtBegin = PQntuples(result) == 1 ? Int64(String(cString: PQgetvalue(result, 0, 0))) : nil
        } else {
            PQclear(try executeKeepingResult(begin, writes: false))
        }
        (depth, wroteInTransaction) = (1, false)
        defer { (depth, commitsAtBegin, wroteInTransaction) = (0, nil, false) }
        do {
            let result = try body()
            try execute("UPDATE ledger_version SET n = n + 1; SELECT pg_notify('storefront_' || current_schema(), ''); COMMIT")
            ownCommits += 1
            let local = localCommits.count.add(1, ordering: .sequentiallyConsistent).newValue
            // Under the lock no one else committed: the count stands at this commit.
            knownCommits = commitsAtBegin.map { ($0 + 1, local) }
            return result
        } catch {
            queued = []  // not sent: they were in what rolls back
            if PQstatus(connection) == CONNECTION_OK { _ = try? execute("ROLLBACK") }
            throw error
        }
    }

    func dataVersion() throws -> Int64 {
        // Under the write lock no other connection commits: the count read as it was taken stands.
        if let commitsAtBegin { return commitsAtBegin - ownCommits }
        // Nor has anyone while no notice of a commit arrived: a purchase's catch-up and a refresh's
        // reads cost no round trip to ask. (Another machine's commit is seen when its notice arrives,
        // as its app's `updates()` is told.)
        // Drained either way: a read below counts the commits they tell of.
        let othersNoticed = noticesFromOthers()
        let local = localCommits.count.load(ordering: .sequentiallyConsistent)
        if let known = knownCommits, othersNoticed == false, known.localCommits == local { return known.count - ownCommits }
        let commits = try query("SELECT n FROM ledger_version").first?.first?.int ?? 0
        knownCommits = (commits, local)
        return commits - ownCommits
    }

    func othersCommitted() { knownCommits = nil }

    /// Takes the commit notices the socket holds (no round trip): whether one came from another
    /// connection's commit; nil when this connection cannot tell (not listening, or lost).
    private func noticesFromOthers() -> Bool? {
        guard listening, PQconsumeInput(connection) == 1 else { return nil }
        var noticed = false
        while let notice = PQnotifies(connection) {
            if notice.pointee.be_pid != backend.pid { noticed = true }
            PQfreemem(notice)
        }
        return noticed
    }

    /// The ledger's `NOTIFY` channel: one per schema, so ledgers side by side in one database stay apart.
    func channel() throws -> String {
        "storefront_" + (try query("SELECT current_schema()").first?.first?.text ?? "public")
    }

    // MARK: Connection and errors

    /// A dropped connection is reopened before the next statement, never inside a transaction
    /// (the server rolled it back; its caller has been told).
    private func reconnectIfLost() throws {
        guard PQstatus(connection) != CONNECTION_OK, depth == 0 else { return }
        PQreset(connection)
        statements = [:]
        knownCommits = nil
        guard PQstatus(connection) == CONNECTION_OK else {
            throw LedgerError.unreachable(path: location.description, detail: Self.message(PQerrorMessage(connection)))
        }
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        backend.pid = PQbackendPID(connection)
        if listening {
            listening = false
            try listen()  // a new backend: it listens afresh
        }
    }

    private func prepared(_ sql: String) throws -> String {
        if let name = statements[sql] { return name }
        let name = "s\(statements.count + 1)"
        roundTrips += 1
        let result = PQprepare(connection, name, Self.numbered(sql), 0, nil)
        defer { PQclear(result) }
        try check(result, sql: sql)
        statements[sql] = name
        return name
    }

    private func check(_ result: OpaquePointer?, sql: String? = nil) throws {
        let status = result.map(PQresultStatus) ?? PGRES_FATAL_ERROR
        guard status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK else { return }
        if PQstatus(connection) != CONNECTION_OK {
            statements = [:]
            throw LedgerError.connectionLost(path: location.description, detail: Self.message(PQerrorMessage(connection)))
        }
        let detail = result.map { Self.message(PQresultErrorMessage($0)) } ?? Self.message(PQerrorMessage(connection))
        throw LedgerError.failed(path: location.description, detail: detail + (sql.map { " in: \($0.prefix(80))" } ?? ""))
    }

    /// libpq's message, on one line.
    static func message(_ text: UnsafePointer<CChar>?) -> String {
        let lines = text.map { String(cString: $0) }?.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) } ?? []
        return lines.filter { !$0.isEmpty }.joined(separator: "; ")
    }

    /// The ledger's `?` and `?N` placeholders as PostgreSQL's `$N` (quoted text is left alone).
    static func numbered(_ sql: String) -> String {
        var out = ""
        var next = 0
        var quoted = false
        var characters = sql[...]
        while let c = characters.popFirst() {
            if c == "'" { quoted.toggle() }
            guard c == "?", !quoted else { out.append(c); continue }
            let digits = characters.prefix { $0.isNumber }
            characters = characters.dropFirst(digits.count)
            if digits.isEmpty { next += 1 }
            out += "$" + (digits.isEmpty ? String(next) : String(digits))
        }
        return out
    }
}

/// The commits this process made to one ledger (see `PostgresDatabase.localCommits`), shared by its connections.
final class LocalCommits: Sendable {
    let count = Atomic<Int64>(0)
    private static let byLedger = Locked<[String: LocalCommits]>([:])

    static func of(_ location: PostgresLocation) -> LocalCommits {
        byLedger.withLock { known in
            if let counter = known[location.url] { return counter }
            let counter = LocalCommits()
            known[location.url] = counter
            return counter
        }
    }
}

/// The server process a connection talks to, read from other threads (see `LedgerChangeFeed`).
final class PostgresBackend: Sendable {
    private let id = Atomic<Int32>(0)

    var pid: Int32 {
        get { id.load(ordering: .relaxed) }
        set { id.store(newValue, ordering: .relaxed) }
    }
}

/// Calls `body` with `strings` as a NULL-terminated C array (the form libpq takes).
func withCStringArray<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    withOptionalCStringArray(strings, body)
}

/// The same, where nil is SQL NULL; the array always ends with one more nil, so it is never empty.
func withOptionalCStringArray<R>(_ strings: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    let copies = strings.map { $0.map { UnsafePointer(strdup($0)!) } } + [nil]
    defer { copies.forEach { free(UnsafeMutablePointer(mutating: $0)) } }
    return copies.withUnsafeBufferPointer { body($0.baseAddress!) }
}
