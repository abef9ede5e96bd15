import Foundation
import Testing
import StorefrontTestSupport
import StoreCore
@testable import StoreEngine

/// The ledger's schema is one timeline of migrations both engines run (`LedgerSchema`): a ledger
/// that Storefront wrote before it, on either engine, opens with everything it holds and goes on.
@Suite("One schema for both engines")
struct LedgerMigrationTests {
    /// Three completed purchases, the second finished, a setting and an event: written as the schema before did.
    static func fill(_ db: any LedgerDatabase) throws {
        for id in Int64(1)...3 {
            try db.query("""
                INSERT INTO transactions(id, original_id, product_id, product_type, status, finished, payload, jws)
                VALUES (?, ?, 'coins', 'consumable', 'completed', 0, ?, ?)
                """, [.int(id), .int(id), .text(UnfinishedListTests().row(id).payload.json.compact), .text("signature\(id)")])
        }
        try db.execute("""
            DELETE FROM unfinished WHERE id = 2;
            INSERT INTO meta(key, value) VALUES ('clock', 'kept');
            INSERT INTO events(transaction_id, kind, origin) VALUES (1, 'update', 'the schema before');
            INSERT INTO renewal_extensions(request_id, original_id, days, reason, effective) VALUES ('r', 1, 3, 0, 1000);
            """)
    }

    /// What `fill` wrote is read as it was written, and the triggers keep working on it.
    static func expectKept(_ open: () throws -> Ledger) throws {
        let ledger = try open()
        #expect(try ledger.allRows().count == 3 && ledger.completedCount() == 3)
        #expect(try ledger.unfinishedRows().map(\.payload.transactionID) == [1, 3])
        #expect(try ledger.meta("clock") == "kept")
        #expect(try ledger.events(after: 0).map(\.origin) == ["the schema before"])
        // v3: an extension made before is answered as it was, and counts toward twice a year.
        #expect(try ledger.renewalExtension(requestID: "r")?.effectiveDate == Date(timeIntervalSince1970: 1))
        #expect(try ledger.renewalExtensionCount(originalTransactionID: 1, since: Date(timeIntervalSince1970: 1)) == 1)
        try ledger.db.transaction { try ledger.insert(UnfinishedListTests().row(4)) }
        try ledger.setFinished(1)
        #expect(try ledger.appendEvent(transactionID: 4, kind: .update, origin: "now") == 2)
        // Opened again, nothing migrates twice: what was finished stays finished.
        let reopened = try open()
        #expect(try reopened.completedCount() == 4)
        #expect(try reopened.unfinishedRows().map(\.payload.transactionID) == [3, 4])
        #expect(try reopened.db.appliedMigrations() == LedgerSchema.migrator.migrations.count)
    }

    @Test("a SQLite ledger written by the schema before the one timeline opens, keeps what it holds, and has a new ledger's schema")
    func sqliteLedgerOfTheSchemaBefore() throws {
        let directory = try createdTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/ledger.sqlite"
        do {
            let old = try SQLiteDatabase(path: path)
            try old.execute(TodaysSchema.sqlite)
            try Self.fill(old)
        }
        try Self.expectKept { try Ledger(path: path, tokenPrefix: "") }
        let objects = "SELECT type, name, tbl_name FROM sqlite_master ORDER BY type, name"
        let fresh = try Ledger(path: directory + "/fresh.sqlite", tokenPrefix: "")
        #expect(try Ledger(path: path, tokenPrefix: "").db.query(objects) == fresh.db.query(objects))
        #expect(try fresh.db.query("PRAGMA user_version") == [[.int(LedgerSchema.version)]], "the version the schema before wrote: it still refuses newer ledgers")
    }

    @Test("a PostgreSQL ledger written by the schema before the one timeline opens, keeps what it holds, and has a new ledger's schema",
          .enabled(if: PostgresTestServer.enabled, "needs a PostgreSQL server (set CI to fail instead of skipping)"))
    func postgresLedgerOfTheSchemaBefore() throws {
        let location = try PostgresTestServer.freshLedger()
        do {
            let old = try PostgresDatabase(location)
            try old.execute(TodaysSchema.postgresql)
            try Self.fill(old)
        }
        try Self.expectKept { try Ledger(postgres: location) }
        let objects = """
            SELECT 'table', table_name::text, '' FROM information_schema.tables WHERE table_schema = current_schema()
            UNION ALL SELECT 'trigger', trigger_name::text, event_manipulation::text FROM information_schema.triggers
                WHERE trigger_schema = current_schema()
            UNION ALL SELECT 'index', indexname::text, tablename::text FROM pg_indexes WHERE schemaname = current_schema()
            ORDER BY 1, 2, 3
            """
        let fresh = try Ledger(postgres: try PostgresTestServer.freshLedger())
        #expect(try Ledger(postgres: location).db.query(objects) == fresh.db.query(objects))
        #expect(try fresh.meta("schemaVersion") == String(LedgerSchema.version))
    }

    @Test("each engine runs the same migrations: the same tables with the same columns")
    func bothEnginesHaveOneSchema() throws {
        let sqlite = SQLDialect(engine: .sqlite), postgresql = SQLDialect(engine: .postgresql)
        for migration in LedgerSchema.migrator.migrations {
            let tables = { (sql: String) in
                // ledger_version: PostgreSQL's count of commits, which SQLite keeps itself (`PRAGMA data_version`).
                sql.split(separator: "\n").filter { $0.contains("CREATE TABLE") && !$0.contains("ledger_version") }
                    .map { $0.replacingOccurrences(of: "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY", with: "INTEGER PRIMARY KEY")
                        .replacingOccurrences(of: "BIGINT", with: "INTEGER") }
            }
            #expect(tables(migration.sql(sqlite)) == tables(migration.sql(postgresql)), "\(migration.name)")
        }
    }

    @Test("a ledger is refused, unchanged, when it has applied more migrations than this Storefront knows")
    func moreMigrationsThanKnownAreRefused() throws {
        let db = try SQLiteDatabase(path: nil)
        try db.execute("PRAGMA user_version = \(LedgerSchema.migrator.migrations.count + 1)")
        #expect(throws: LedgerError.newerSchema(path: "mem", version: Ledger.schemaVersion + 1)) {
            try LedgerSchema.migrator.migrate(db, name: "mem")
        }
        #expect(try db.query("SELECT name FROM sqlite_master").isEmpty)
    }
}
