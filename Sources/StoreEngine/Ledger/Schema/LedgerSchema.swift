/// The ledger's schema, one timeline for every engine: each migration is applied once, in order,
/// when a ledger that lacks it is opened. A new table or column is a new migration at the end,
/// never an edit of one a ledger may already have (it would not run again there).
enum LedgerSchema {
    static let migrator = LedgerMigrator(migrations: [
        LedgerMigration("v1 transactions, subscriptions, events, redemptions, nonces, the outbox, the Server API's records") { sql in
            // Every statement can meet a ledger made before its migration was recorded (SQLite's user_version 0),
            // holding part of it: `IF NOT EXISTS` completes such a ledger.
            tables(sql) + completedCounter(sql) + keptNotificationPayloads(sql)
        },
        LedgerMigration("v2 the unfinished transactions listed in a table of their own") { sql in unfinished(sql) },
        LedgerMigration("v3 the Server API's own records (retention messaging, mass extensions, keys) and when an extension was asked for") { sql in
            serverRecords(sql)
        },
        LedgerMigration("v4 completed transactions indexed in the order the Server API's history lists them") { sql in historyOrder(sql) },
    ])

    /// The schema version a ledger of this Storefront is at: how many migrations it has applied.
    static var version: Int64 { Int64(migrator.migrations.count) }

    private static func tables(_ sql: SQLDialect) -> String {
        let int = sql.integer
        return """
            CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS transactions(
                id \(int) PRIMARY KEY, original_id \(int) NOT NULL, product_id TEXT NOT NULL,
                product_type TEXT NOT NULL, status TEXT NOT NULL, finished \(int) NOT NULL DEFAULT 0,
                revoked \(int) NOT NULL DEFAULT 0, payload TEXT NOT NULL, jws TEXT, refund_request TEXT);
            DROP INDEX IF EXISTS transactions_entitled;
            DROP INDEX IF EXISTS transactions_unfinished;
            CREATE INDEX IF NOT EXISTS one_time_purchases ON transactions(id) WHERE product_type IN ('nonConsumable', 'nonRenewing');
            CREATE TABLE IF NOT EXISTS subscriptions(original_id \(int) PRIMARY KEY, group_id TEXT NOT NULL, record TEXT NOT NULL);
            CREATE INDEX IF NOT EXISTS subscriptions_group ON subscriptions(group_id);
            CREATE TABLE IF NOT EXISTS events(seq \(sql.sequenceKey), transaction_id \(int) NOT NULL,
                kind TEXT NOT NULL, origin TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS redemptions(code TEXT NOT NULL, transaction_id \(int) NOT NULL);
            CREATE TABLE IF NOT EXISTS upgrade_refunds(transaction_id \(int) PRIMARY KEY, milliunits \(int) NOT NULL);
            CREATE TABLE IF NOT EXISTS nonces(nonce TEXT PRIMARY KEY);
            CREATE TABLE IF NOT EXISTS notifications(
                seq \(sql.sequenceKey), uuid TEXT, type TEXT NOT NULL, subtype TEXT,
                product_id TEXT, original_id \(int), transaction_id \(int), created \(int) NOT NULL,
                environment TEXT NOT NULL, transaction_payload TEXT, renewal_payload TEXT, status \(int),
                test_token TEXT, signed TEXT, delivery TEXT NOT NULL, attempts TEXT NOT NULL DEFAULT '',
                next_attempt \(int), lease_until \(int));
            CREATE INDEX IF NOT EXISTS notifications_due ON notifications(next_attempt) WHERE delivery = 'pending';
            CREATE INDEX IF NOT EXISTS notifications_in_line ON notifications(original_id, seq) WHERE delivery = 'pending';
            CREATE INDEX IF NOT EXISTS notifications_test ON notifications(test_token) WHERE test_token IS NOT NULL;
            CREATE INDEX IF NOT EXISTS notifications_by_transaction ON notifications(transaction_id) WHERE transaction_payload IS NULL;
            CREATE TABLE IF NOT EXISTS consumption(transaction_id \(int) PRIMARY KEY, information TEXT NOT NULL, received \(int) NOT NULL);
            CREATE TABLE IF NOT EXISTS renewal_extensions(request_id TEXT PRIMARY KEY, original_id \(int) NOT NULL,
                days \(int) NOT NULL, reason \(int) NOT NULL, effective \(int) NOT NULL, web_order_line_item_id TEXT);

            """ + sql.on(sqlite: "", postgresql: """
                -- How many write transactions the ledger has committed (see `PostgresDatabase.transaction`).
                CREATE TABLE IF NOT EXISTS ledger_version(n BIGINT NOT NULL);
                INSERT INTO ledger_version(n) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM ledger_version);

                """)
    }

    /// How many transactions are completed, kept by triggers in the writes that change it: counting
    /// them was a scan of the whole table, 96% of a refresh with a million transactions.
    private static func completedCounter(_ sql: SQLDialect) -> String {
        """
        CREATE TABLE IF NOT EXISTS completed_count(n \(sql.integer) NOT NULL);
        \(completedRecount)

        """ + sql.on(sqlite: """
            CREATE TRIGGER IF NOT EXISTS completed_inserted AFTER INSERT ON transactions WHEN new.status = 'completed'
                BEGIN UPDATE completed_count SET n = n + 1; END;
            CREATE TRIGGER IF NOT EXISTS completed_deleted AFTER DELETE ON transactions WHEN old.status = 'completed'
                BEGIN UPDATE completed_count SET n = n - 1; END;
            CREATE TRIGGER IF NOT EXISTS completed_changed AFTER UPDATE OF status ON transactions
                WHEN (old.status = 'completed') != (new.status = 'completed')
                BEGIN UPDATE completed_count SET n = n + (new.status = 'completed') - (old.status = 'completed'); END;

            """, postgresql: """
            -- Each row's change is added up in a setting local to the transaction, and folded into the
            -- counter once, at commit: updating the one counter row per row written made a transaction
            -- of n rows walk n row versions each time, quadratic in n.
            CREATE OR REPLACE FUNCTION storefront_count_completed() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM set_config('storefront.completed_change', (\(Ledger.pendingCompletedChange)
                    + (CASE WHEN TG_OP <> 'DELETE' AND NEW.status = 'completed' THEN 1 ELSE 0 END)
                    - (CASE WHEN TG_OP <> 'INSERT' AND OLD.status = 'completed' THEN 1 ELSE 0 END))::text, true);
                RETURN NULL;
            END $$;
            CREATE OR REPLACE TRIGGER completed_count AFTER INSERT OR DELETE OR UPDATE OF status ON transactions
                FOR EACH ROW EXECUTE FUNCTION storefront_count_completed();
            CREATE OR REPLACE FUNCTION storefront_fold_completed() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF \(Ledger.pendingCompletedChange) <> 0 THEN
                    UPDATE completed_count SET n = n + \(Ledger.pendingCompletedChange);
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

            """)
    }

    /// Counts the completed transactions when the counter holds no row, or more than one. The count is
    /// a scalar subquery, evaluated only then: an aggregate over the table filtered by the condition
    /// (as first written) scanned every row at each open, 0.3 s with a million, and added a row of 0.
    /// Ledgers opened by that version have such rows, which the triggers kept updating: they are
    /// counted afresh, once.
    static let completedRecount = """
        DELETE FROM completed_count WHERE (SELECT COUNT(*) FROM completed_count) > 1;
        INSERT INTO completed_count(n) SELECT (SELECT COUNT(*) FROM transactions WHERE status = 'completed')
            WHERE NOT EXISTS (SELECT 1 FROM completed_count);
        """

    /// A notification names its transaction rather than copying its payload (see `Ledger+Outbox`):
    /// the payload is copied into the notification before the transaction changes or goes.
    private static func keptNotificationPayloads(_ sql: SQLDialect) -> String {
        sql.on(sqlite: """
            CREATE TRIGGER IF NOT EXISTS notifications_keep_changed_payload BEFORE UPDATE OF payload ON transactions
                WHEN old.payload IS NOT new.payload
                BEGIN UPDATE notifications SET transaction_payload = old.payload WHERE transaction_id = old.id AND transaction_payload IS NULL; END;
            CREATE TRIGGER IF NOT EXISTS notifications_keep_deleted_payload BEFORE DELETE ON transactions
                BEGIN UPDATE notifications SET transaction_payload = old.payload WHERE transaction_id = old.id AND transaction_payload IS NULL; END;
            """, postgresql: """
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
            """)
    }

    /// The transactions not yet finished (and the pending ones), listed by ID: finishing one deletes
    /// its entry, one small page, where setting the row's `finished` rewrote the row and its index
    /// entry. `finished` is what a write of the whole row says (an insert, `update`), and the
    /// triggers list the row accordingly; `unfinished` is what is read. Filled from the index of
    /// unfinished rows it replaces.
    private static func unfinished(_ sql: SQLDialect) -> String {
        """
        CREATE TABLE IF NOT EXISTS unfinished(id \(sql.integer) PRIMARY KEY);
        INSERT INTO unfinished(id) SELECT id FROM transactions WHERE finished = 0 ON CONFLICT DO NOTHING;
        DROP INDEX IF EXISTS unfinished_transactions;

        """ + sql.on(sqlite: """
            CREATE TRIGGER IF NOT EXISTS unfinished_inserted AFTER INSERT ON transactions WHEN new.finished = 0
                BEGIN INSERT OR IGNORE INTO unfinished(id) VALUES (new.id); END;
            CREATE TRIGGER IF NOT EXISTS unfinished_written AFTER UPDATE OF finished ON transactions
                BEGIN
                    DELETE FROM unfinished WHERE id = new.id AND new.finished != 0;
                    INSERT OR IGNORE INTO unfinished(id) SELECT new.id WHERE new.finished = 0;
                END;
            CREATE TRIGGER IF NOT EXISTS unfinished_deleted AFTER DELETE ON transactions
                BEGIN DELETE FROM unfinished WHERE id = old.id; END;
            """, postgresql: """
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
            """)
    }

    /// What a backend keeps at the App Store through the Server API, one row per item by kind
    /// (`ServerRecordKind`); and the `effectiveDate` each extension was answered with, the new expiry
    /// (`renewal_extensions.effective` stays the request's date, which the twice-a-year rule counts:
    /// it was all an answer said before); a notification's `data` fields beyond its transaction (a
    /// consumption request's reason). A notification no longer waits behind an earlier one of its
    /// original transaction (Apple documents no such order), so the index that found those goes. New tables, not columns: SQLite cannot add a column only if
    /// it is missing, and a ledger of user_version 0 runs every migration again.
    private static func serverRecords(_ sql: SQLDialect) -> String {
        """
        CREATE TABLE IF NOT EXISTS server_records(kind TEXT NOT NULL, id TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY(kind, id));
        CREATE TABLE IF NOT EXISTS renewal_extension_answers(request_id TEXT PRIMARY KEY, effective \(sql.integer) NOT NULL);
        CREATE TABLE IF NOT EXISTS notification_data(seq \(sql.integer) PRIMARY KEY, fields TEXT NOT NULL);
        DROP INDEX IF EXISTS notifications_in_line;
        """
    }

    /// When a transaction was last signed, in milliseconds: Get Transaction History's order (then ID).
    /// SQLite's is NULL for a payload that is not JSON: an index over `json_extract` alone refused every
    /// write to a damaged row and would stop the migration on a damaged ledger; its reader reports the damage.
    static func signedDate(_ sql: SQLDialect) -> String {
        sql.on(sqlite: "(CASE WHEN json_valid(payload) THEN json_extract(payload, '$.signedDate') END)",
               postgresql: "((payload::json->>'signedDate')::bigint)")
    }

    /// Completed transactions by `signedDate`, so a page of the history reads the page alone rather
    /// than every transaction (80 ms at 1k transactions, growing with the ledger).
    private static func historyOrder(_ sql: SQLDialect) -> String {
        "CREATE INDEX IF NOT EXISTS transactions_history ON transactions(\(signedDate(sql)), id) WHERE status = 'completed';\n"
    }
}
