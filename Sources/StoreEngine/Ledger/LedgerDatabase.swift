/// A value bound to or read from a ledger statement. Ledger columns hold integers and text only.
public enum SQLValue: Equatable, Sendable {
    case int(Int64), text(String), null

    public var int: Int64? { if case .int(let v) = self { v } else { nil } }
    public var text: String? { if case .text(let v) = self { v } else { nil } }
}

/// The engines the ledger runs on.
enum LedgerEngine { case sqlite, postgresql }

/// What the ledger needs of a database: statements with `?` placeholders (`?N` for the Nth) in
/// the SQL both engines speak, write transactions that exclude every other writer, and a version
/// that tells whether another connection has committed. One connection, owned by one actor.
protocol LedgerDatabase: AnyObject {
    var engine: LedgerEngine { get }

    /// Runs a statement and returns its rows.
    @discardableResult
    func query(_ sql: String, _ arguments: [SQLValue]) throws -> [[SQLValue]]

    /// Runs a write whose rows nobody reads. Inside a transaction on PostgreSQL it goes with the next
    /// statement, in one round trip with it (an error in it is thrown there, and the transaction fails
    /// as it would have); elsewhere it runs at once.
    func queue(_ sql: String, _ arguments: [SQLValue]) throws

    /// Runs statements without arguments (several, separated by semicolons).
    func execute(_ sql: String) throws

    /// Runs an INSERT of one row and returns the integer key `column` the row was given.
    func insert(_ sql: String, _ arguments: [SQLValue], returning column: String) throws -> Int64?

    /// Runs `body` in one write transaction that holds the ledger's write lock from its start, so two
    /// processes never interleave a write. Nested calls join the outer one, so a batch commits once.
    func transaction<T>(_ body: () throws -> T) throws -> T

    var isInTransaction: Bool { get }

    /// Inside a write transaction on PostgreSQL: how many write transactions the ledger had committed
    /// when this one took the write lock (read in the same round trip). nil elsewhere, and on SQLite,
    /// whose reads cost no round trip.
    var commitsAtBegin: Int64? { get }

    /// Runs `body`'s reads on one snapshot of the ledger, up to a write in it.
    func reading<T>(_ body: () throws -> T) rethrows -> T

    /// Changes when, and only when, another connection committed a change since the last call.
    func dataVersion() throws -> Int64
    /// A change feed heard another connection commit: the next `dataVersion` must not miss it.
    func othersCommitted()
    func takeDiskFull() -> LedgerError?

    /// Grows with every change this connection makes (`dataVersion` leaves them out): the two together
    /// tell a reader that nothing in the ledger changed since it last looked. Inside a write transaction
    /// it is where the write will leave it once it commits: a store describing its own write to the app
    /// stamps it inside the write (see `ChangeJournal`).
    var ownChanges: Int64 { get }

    /// How many of `LedgerSchema`'s migrations the ledger has applied (0: none, an empty database),
    /// where this engine's ledgers have always kept their schema version.
    func appliedMigrations() throws -> Int
    func recordAppliedMigrations(_ count: Int) throws
}

extension LedgerDatabase {
    @discardableResult
    func query(_ sql: String) throws -> [[SQLValue]] { try query(sql, []) }

    func queue(_ sql: String, _ arguments: [SQLValue]) throws { try query(sql, arguments) }

    var commitsAtBegin: Int64? { nil }

    /// Each statement reads on its own where a read transaction would cost round trips (PostgreSQL).
    func reading<T>(_ body: () throws -> T) rethrows -> T { try body() }
    /// The first full disk met since the last call; only a local file's engine meets one.
    func takeDiskFull() -> LedgerError? { nil }
    /// Engines that read their version afresh each time have nothing to forget.
    func othersCommitted() {}
}

extension SQLValue {
    /// A `LIMIT` of at most `count` rows; nil: all of them.
    static func limit(_ count: Int?) -> SQLValue { .int(count.map(Int64.init) ?? Int64.max) }
}
