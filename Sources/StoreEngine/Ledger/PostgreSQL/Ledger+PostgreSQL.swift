import Foundation
import StoreCore

/// The ledger on PostgreSQL, for a team that shares one store across machines. Its schema is the
/// one timeline both engines run (`LedgerSchema`), applied by Storefront under the write lock; its
/// version is in `meta`.
extension Ledger {
    /// Opens (creating on first use) the ledger in the database at `location`. A database holding
    /// anything but a Storefront ledger, or a ledger of a newer schema, is refused before anything is written.
    convenience init(postgres location: PostgresLocation) throws {
        let db = try PostgresDatabase(location)
        self.init(database: db, location: .postgresql(location), tokenPrefix: "")
        try db.transaction { try migrate() }
        try db.ledgerIsReady()
    }

    /// The store's signing identity, kept in the ledger: every machine on a shared ledger signs as the
    /// one store its transactions came from, so each machine's app verifies the others' purchases.
    /// The first process to open the ledger makes it.
    func sharedIdentity() throws -> StoreIdentity {
        let fresh = try StoreIdentity.ephemeral()
        let pem = try db.transaction { try meta("signingIdentity") { fresh.pemRepresentation } }
        let identity = try StoreIdentity.parse(pem, path: "\(path ?? "the ledger") (meta signingIdentity)").identity
        tokenPrefix = identity.signer.tokenPrefix
        return identity
    }

    /// What this transaction's rows have changed the completed count by, not yet folded into `completed_count`.
    static let pendingCompletedChange = "COALESCE(NULLIF(current_setting('storefront.completed_change', true), '')::bigint, 0)"
}

extension StoreIdentity {
    /// The signing identity of the ledger at `location` (made by the first process to open it).
    public static func shared(ledger location: LedgerLocation) throws -> StoreIdentity {
        try Ledger(location, tokenPrefix: "").sharedIdentity()
    }
}

extension PostgresDatabase {
    /// The schema version in `meta` (0: an empty database). A database whose tables are not a
    /// Storefront ledger is refused.
    func appliedMigrations() throws -> Int {
        let tables = try query("""
            SELECT table_name::text FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name
            """).compactMap { $0.first?.text }
        guard !tables.isEmpty else { return 0 }
        let foreign = LedgerError.foreignSchema(path: location.description,
                                                tables: tables.prefix(5).joined(separator: ", ") + (tables.count > 5 ? ", …" : ""))
        guard tables.contains("meta"), tables.contains("transactions") else { throw foreign }
        guard let version = try? query("SELECT value FROM meta WHERE key = 'schemaVersion'").first?.first?.text,
              let number = Int(version) else { throw foreign }
        return number
    }

    func recordAppliedMigrations(_ count: Int) throws {
        try query("INSERT INTO meta(key, value) VALUES ('schemaVersion', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                  [.text(String(count))])
    }
}
