import Foundation
import StoreCore

/// The ledger on PostgreSQL, for a team that shares one store across machines. The tables are
/// SQLite's with PostgreSQL's types (64-bit integers, identity columns for sequence numbers) and
/// its triggers; the schema is created, and later migrated, by Storefront under the write lock.
extension Ledger {
    /// The schema this Storefront writes; a newer one in the database is refused, never changed.
    static let postgresSchemaVersion = 2

    /// Opens (creating on first use) the ledger in the database at `location`. A database holding
    /// anything but a Storefront ledger, or a ledger of a newer schema, is refused before anything is written.
    convenience init(postgres location: PostgresLocation) throws {
        self.init(database: try PostgresDatabase(location), name: location.description, postgres: location)
        try db.transaction {
            let version = try checkPostgresSchema(location)
            try db.execute(Self.postgresSchema)
            // 2: the unfinished transactions are listed in `unfinished` (see `unfinishedSchema`), read from the index it replaces.
            if let version, version < 2 {
                try db.execute("""
                    INSERT INTO unfinished(id) SELECT id FROM transactions WHERE finished = 0 ON CONFLICT DO NOTHING;
                    DROP INDEX IF EXISTS unfinished_transactions;
                    """)
            }
            try db.query("""
                INSERT INTO meta(key, value) VALUES ('schemaVersion', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value
                """, [.text(String(Self.postgresSchemaVersion))])
        }
        (db as? PostgresDatabase)?.readsCommitsAtBegin = true
    }

    /// The schema version of the ledger in the database; nil when the database is empty.
    private func checkPostgresSchema(_ location: PostgresLocation) throws -> Int? {
        let tables = try db.query("""
            SELECT table_name::text FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name
            """).compactMap { $0.first?.text }
        guard !tables.isEmpty else { return nil }
        func foreign() -> PostgresError {
            PostgresError(kind: .foreignSchema, location: location.description, detail: tables.prefix(5).joined(separator: ", ")
                          + (tables.count > 5 ? ", …" : ""))
        }
        guard tables.contains("meta"), tables.contains("transactions") else { throw foreign() }
        let version = try? db.query("SELECT value FROM meta WHERE key = 'schemaVersion'").first?.first?.text
        guard let version, let number = Int(version) else { throw foreign() }
        if number > Self.postgresSchemaVersion {
            throw PostgresError(kind: .newerSchema, location: location.description,
                                detail: "the ledger is of schema version \(number), newer than this storefront's \(Self.postgresSchemaVersion)")
        }
        return number
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

    /// What tells this process of other processes' commits: a `LISTEN` on the ledger's channel. nil on
    /// SQLite, whose readers look for them at each tick.
    func changeFeed(_ changed: @escaping @Sendable () -> Void) -> LedgerChangeFeed? {
        guard let postgres, let channel = try? (db as? PostgresDatabase)?.channel() else { return nil }
        return LedgerChangeFeed(location: postgres, channel: channel, changed: changed)
    }

    /// What this transaction's rows have changed the completed count by, not yet folded into `completed_count`.
    static let pendingCompletedChange = "COALESCE(NULLIF(current_setting('storefront.completed_change', true), '')::bigint, 0)"

    private static let postgresSchema = """
        CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS ledger_version(n BIGINT NOT NULL);
        INSERT INTO ledger_version(n) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM ledger_version);
        CREATE TABLE IF NOT EXISTS transactions(
            id BIGINT PRIMARY KEY, original_id BIGINT NOT NULL, product_id TEXT NOT NULL,
            product_type TEXT NOT NULL, status TEXT NOT NULL, finished BIGINT NOT NULL DEFAULT 0,
            revoked BIGINT NOT NULL DEFAULT 0, payload TEXT NOT NULL, jws TEXT, refund_request TEXT);
        CREATE INDEX IF NOT EXISTS one_time_purchases ON transactions(id) WHERE product_type IN ('nonConsumable', 'nonRenewing');
        CREATE TABLE IF NOT EXISTS subscriptions(original_id BIGINT PRIMARY KEY, group_id TEXT NOT NULL, record TEXT NOT NULL);
        CREATE INDEX IF NOT EXISTS subscriptions_group ON subscriptions(group_id);
        CREATE TABLE IF NOT EXISTS events(seq BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            transaction_id BIGINT NOT NULL, kind TEXT NOT NULL, origin TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS redemptions(code TEXT NOT NULL, transaction_id BIGINT NOT NULL);
        CREATE TABLE IF NOT EXISTS upgrade_refunds(transaction_id BIGINT PRIMARY KEY, milliunits BIGINT NOT NULL);
        CREATE TABLE IF NOT EXISTS nonces(nonce TEXT PRIMARY KEY);
        CREATE TABLE IF NOT EXISTS notifications(
            seq BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, uuid TEXT, type TEXT NOT NULL, subtype TEXT,
            product_id TEXT, original_id BIGINT, transaction_id BIGINT, created BIGINT NOT NULL,
            environment TEXT NOT NULL, transaction_payload TEXT, renewal_payload TEXT, status BIGINT,
            test_token TEXT, signed TEXT, delivery TEXT NOT NULL, attempts TEXT NOT NULL DEFAULT '',
            next_attempt BIGINT, lease_until BIGINT);
        CREATE INDEX IF NOT EXISTS notifications_due ON notifications(next_attempt) WHERE delivery = 'pending';
        CREATE INDEX IF NOT EXISTS notifications_in_line ON notifications(original_id, seq) WHERE delivery = 'pending';
        CREATE INDEX IF NOT EXISTS notifications_test ON notifications(test_token) WHERE test_token IS NOT NULL;
        CREATE INDEX IF NOT EXISTS notifications_by_transaction ON notifications(transaction_id) WHERE transaction_payload IS NULL;
        CREATE TABLE IF NOT EXISTS consumption(transaction_id BIGINT PRIMARY KEY, information TEXT NOT NULL, received BIGINT NOT NULL);
        CREATE TABLE IF NOT EXISTS renewal_extensions(request_id TEXT PRIMARY KEY, original_id BIGINT NOT NULL,
            days BIGINT NOT NULL, reason BIGINT NOT NULL, effective BIGINT NOT NULL, web_order_line_item_id TEXT);

        CREATE TABLE IF NOT EXISTS completed_count(n BIGINT NOT NULL);
        \(completedRecount)
        -- Each row's change is added up in a setting local to the transaction, and folded into the
        -- counter once, at commit: updating the one counter row per row written made a transaction
        -- of n rows walk n row versions each time, quadratic in n.
        CREATE OR REPLACE FUNCTION storefront_count_completed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM set_config('storefront.completed_change', (\(pendingCompletedChange)
                + (CASE WHEN TG_OP <> 'DELETE' AND NEW.status = 'completed' THEN 1 ELSE 0 END)
                - (CASE WHEN TG_OP <> 'INSERT' AND OLD.status = 'completed' THEN 1 ELSE 0 END))::text, true);
            RETURN NULL;
        END $$;
        CREATE OR REPLACE TRIGGER completed_count AFTER INSERT OR DELETE OR UPDATE OF status ON transactions
            FOR EACH ROW EXECUTE FUNCTION storefront_count_completed();
        CREATE OR REPLACE FUNCTION storefront_fold_completed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF \(pendingCompletedChange) <> 0 THEN
                UPDATE completed_count SET n = n + \(pendingCompletedChange);
                PERFORM set_config('storefront.completed_change', '0', true);
            END IF;
            RETURN NULL;
        END $$;
        DO $$ BEGIN
            IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = 'completed_fold' AND tgrelid = 'transactions'::regclass) THEN
                CREATE CONSTRAINT TRIGGER completed_fold AFTER INSERT OR DELETE OR UPDATE OF status ON transactions
                    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION storefront_fold_completed();
            END IF;
        END $$;

        CREATE TABLE IF NOT EXISTS unfinished(id BIGINT PRIMARY KEY);
        CREATE OR REPLACE FUNCTION storefront_keep_unfinished() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND NEW.finished <> 0) THEN
                DELETE FROM unfinished WHERE id = OLD.id;
            END IF;
            IF TG_OP <> 'DELETE' AND NEW.finished = 0 THEN
                INSERT INTO unfinished(id) VALUES (NEW.id) ON CONFLICT DO NOTHING;
            END IF;
            RETURN NULL;
        END $$;
        CREATE OR REPLACE TRIGGER unfinished AFTER INSERT OR DELETE OR UPDATE OF finished ON transactions
            FOR EACH ROW EXECUTE FUNCTION storefront_keep_unfinished();

        CREATE OR REPLACE FUNCTION storefront_keep_notified_payload() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'DELETE' OR OLD.payload IS DISTINCT FROM NEW.payload THEN
                UPDATE notifications SET transaction_payload = OLD.payload
                    WHERE transaction_id = OLD.id AND transaction_payload IS NULL;
            END IF;
            IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
            RETURN NEW;
        END $$;
        CREATE OR REPLACE TRIGGER notifications_keep_payload BEFORE DELETE OR UPDATE OF payload ON transactions
            FOR EACH ROW EXECUTE FUNCTION storefront_keep_notified_payload();
        """
}

extension StoreIdentity {
    /// The signing identity of the ledger at `location` (made by the first process to open it).
    public static func shared(ledger location: PostgresLocation) throws -> StoreIdentity {
        try Ledger(postgres: location).sharedIdentity()
    }
}

extension PostgresLocation {
    /// Opens the ledger here once (making it on first use): a command that opens many stores on it
    /// (`run`) refuses a database that cannot be used before it starts, not once per scenario.
    public func check() throws { _ = try Ledger(postgres: self) }
}
