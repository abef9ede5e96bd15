import Foundation

/// Why the ledger cannot be used, thrown by every engine. Each names the file or the database
/// (a PostgreSQL URL without its password) and says how to recover without losing what it holds.
public enum LedgerError: Error, Equatable, CustomStringConvertible {
    // What the ledger holds.
    case damaged(path: String, detail: String)
    case lost(path: String, evidence: String)
    case damagedRow(path: String, table: String, key: String, detail: String)
    case newerSchema(path: String, version: Int64)
    /// The database holds tables that are not a Storefront ledger (`tables`: the first few).
    case foreignSchema(path: String, tables: String)
    // Where it is kept.
    case diskFull(path: String, detail: String)
    /// No server answered, or it refused the login or the database.
    case unreachable(path: String, detail: String)
    /// The connection dropped during a statement: a write transaction in progress was not applied.
    case connectionLost(path: String, detail: String)
    /// The engine refused a statement.
    case failed(path: String, detail: String)

    /// What the ledger holds cannot be read as it is: reported until the ledger is mended, not retried.
    public var isDamage: Bool {
        switch self {
        case .damaged, .lost, .damagedRow, .newerSchema, .foreignSchema: true
        case .diskFull, .unreachable, .connectionLost, .failed: false
        }
    }

    /// The ledger's server is out of reach: nothing was applied, and the same action may succeed later.
    public var isOutOfReach: Bool {
        switch self {
        case .unreachable, .connectionLost: true
        default: false
        }
    }

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
        case .newerSchema(let path, let version) where PostgresLocation(path) != nil:
            "\(path): the ledger is of schema version \(version), newer than this storefront's \(Ledger.schemaVersion); "
                + "this storefront will not change it. Use the newer storefront that made it, or another database."
        case .newerSchema(let path, let version):
            "\(path) was written by a newer Storefront (ledger schema \(version); this one reads up to \(Ledger.schemaVersion)); "
                + "Storefront will not open it, so nothing in it changes. Run the newer Storefront. If none wrote it, its header is damaged. "
                + Self.recovery(path)
        case .foreignSchema(let path, let tables):
            "\(path): the database holds tables that are not a Storefront ledger (\(tables)); Storefront will not write "
                + "beside them. Give it a database of its own (createdb storefront) or a schema (?options=-csearch_path%3Dstorefront)."
        case .diskFull(let path, let detail):
            "\(path): the disk is full; free some space and try again (\(detail))"
        case .unreachable(let path, let detail):
            "\(path): cannot open the ledger's database (\(detail)). Check that the server runs and that the URL's host, port, "
                + "user, password and database are right (--ledger or STOREFRONT_LEDGER)."
        case .connectionLost(let path, let detail):
            "\(path): the connection to the ledger's database was lost (\(detail)); nothing of the change in progress was "
                + "applied. Storefront reconnects at the next action."
        case .failed(let path, let detail):
            "\(path): \(detail)"
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
