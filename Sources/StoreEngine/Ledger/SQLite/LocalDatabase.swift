/// A database of the app's own on this machine (the consumable wallet): statements on one
/// connection in the ledger's SQL and values, failing as the ledger does (`LedgerError`, naming the
/// file). A SQLite file underneath, which the app need not name.
public protocol LocalDatabase: AnyObject {
    /// Runs statements without arguments (several, separated by semicolons).
    func execute(_ sql: String) throws
    @discardableResult
    func query(_ sql: String, _ arguments: [SQLValue]) throws -> [[SQLValue]]
    /// Runs `body` in one write transaction that excludes every other writer.
    func transaction<T>(_ body: () throws -> T) throws -> T
    /// Rows the last INSERT, UPDATE or DELETE changed.
    var changes: Int64 { get }
    /// Changes when, and only when, another connection committed since the last call.
    func dataVersion() throws -> Int64
    /// The first full disk met since the last call (see `SQLiteDatabase.takeDiskFull`).
    func takeDiskFull() -> LedgerError?
}

extension SQLiteDatabase: LocalDatabase {}

/// Opens (creating) the local database file at `path`; nil: one in memory.
public func openLocalDatabase(path: String?) throws -> any LocalDatabase { try SQLiteDatabase(path: path) }
