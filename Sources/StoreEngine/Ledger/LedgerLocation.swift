/// Where a store keeps its ledger: one value from the command line to the engine that opens it.
public enum LedgerLocation: Sendable, Equatable, CustomStringConvertible {
    /// A SQLite file (the state directory's `ledger.sqlite`).
    case sqlite(path: String)
    /// A PostgreSQL database a team shares.
    case postgresql(PostgresLocation)
    /// Nothing kept (`--ephemeral`).
    case inMemory

    /// A PostgreSQL URL (`postgresql://user:password@host:port/db`); nil for anything else.
    public init?(url: String) {
        guard let database = PostgresLocation(url) else { return nil }
        self = .postgresql(database)
    }

    /// The ledger of a state directory; in memory without one.
    public static func stateDirectory(_ directory: String?) -> LedgerLocation {
        directory.map { .sqlite(path: $0 + "/ledger.sqlite") } ?? .inMemory
    }

    /// As messages name it: a file's path, a URL without its password.
    public var description: String {
        switch self {
        case .sqlite(let path): path
        case .postgresql(let database): database.description
        case .inMemory: ":memory:"
        }
    }

    /// Opens the ledger here once (making it on first use): a command that opens many stores on it
    /// (`run`) refuses a ledger that cannot be used before it starts, not once per scenario.
    public func check() throws { _ = try Ledger(self, tokenPrefix: "") }
}
