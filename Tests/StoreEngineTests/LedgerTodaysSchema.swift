/// The schema as Storefront wrote it before its migrations were one timeline (main at 5477253), word
/// for word: ledgers made then must open, keep what they hold, and go on as ledgers made now.
enum TodaysSchema {
    /// Each open ran all of it, then listed the unfinished transactions and set `user_version` to 2.
    static let sqlite = """
        CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS transactions(
            id INTEGER PRIMARY KEY, original_id INTEGER NOT NULL, product_id TEXT NOT NULL,
            product_type TEXT NOT NULL, status TEXT NOT NULL, finished INTEGER NOT NULL DEFAULT 0,
            revoked INTEGER NOT NULL DEFAULT 0, payload TEXT NOT NULL, jws TEXT, refund_request TEXT);
        DROP INDEX IF EXISTS transactions_entitled;
        DROP INDEX IF EXISTS transactions_unfinished;
        CREATE INDEX IF NOT EXISTS one_time_purchases ON transactions(id) WHERE product_type IN ('nonConsumable', 'nonRenewing');
        CREATE TABLE IF NOT EXISTS subscriptions(original_id INTEGER PRIMARY KEY, group_id TEXT NOT NULL, record TEXT NOT NULL);
        CREATE INDEX IF NOT EXISTS subscriptions_group ON subscriptions(group_id);
        CREATE TABLE IF NOT EXISTS events(seq INTEGER PRIMARY KEY, transaction_id INTEGER NOT NULL,
            kind TEXT NOT NULL, origin TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS redemptions(code TEXT NOT NULL, transaction_id INTEGER NOT NULL);
        CREATE TABLE IF NOT EXISTS upgrade_refunds(transaction_id INTEGER PRIMARY KEY, milliunits INTEGER NOT NULL);
        CREATE TABLE IF NOT EXISTS nonces(nonce TEXT PRIMARY KEY);
        CREATE TABLE IF NOT EXISTS notifications(
            seq INTEGER PRIMARY KEY, uuid TEXT, type TEXT NOT NULL, subtype TEXT,
            product_id TEXT, original_id INTEGER, transaction_id INTEGER, created INTEGER NOT NULL,
            environment TEXT NOT NULL, transaction_payload TEXT, renewal_payload TEXT, status INTEGER,
            test_token TEXT, signed TEXT, delivery TEXT NOT NULL, attempts TEXT NOT NULL DEFAULT '',
            next_attempt INTEGER, lease_until INTEGER);
        CREATE INDEX IF NOT EXISTS notifications_due ON notifications(next_attempt) WHERE delivery = 'pending';
        CREATE INDEX IF NOT EXISTS notifications_in_line ON notifications(original_id, seq) WHERE delivery = 'pending';
        CREATE INDEX IF NOT EXISTS notifications_test ON notifications(test_token) WHERE test_token IS NOT NULL;
        CREATE INDEX IF NOT EXISTS notifications_by_transaction ON notifications(transaction_id) WHERE transaction_payload IS NULL;
        CREATE TRIGGER IF NOT EXISTS notifications_keep_changed_payload BEFORE UPDATE OF payload ON transactions
            WHEN old.payload IS NOT new.payload
            BEGIN UPDATE notifications SET transaction_payload = old.payload WHERE transaction_id = old.id AND transaction_payload IS NULL; END;
        CREATE TRIGGER IF NOT EXISTS notifications_keep_deleted_payload BEFORE DELETE ON transactions
            BEGIN UPDATE notifications SET transaction_payload = old.payload WHERE transaction_id = old.id AND transaction_payload IS NULL; END;
        CREATE TABLE IF NOT EXISTS completed_count(n INTEGER NOT NULL);
        DELETE FROM completed_count WHERE (SELECT COUNT(*) FROM completed_count) > 1;
        INSERT INTO completed_count(n) SELECT (SELECT COUNT(*) FROM transactions WHERE status = 'completed')
            WHERE NOT EXISTS (SELECT 1 FROM completed_count);
        CREATE TRIGGER IF NOT EXISTS completed_inserted AFTER INSERT ON transactions WHEN new.status = 'completed'
            BEGIN UPDATE completed_count SET n = n + 1; END;
        CREATE TRIGGER IF NOT EXISTS completed_deleted AFTER DELETE ON transactions WHEN old.status = 'completed'
            BEGIN UPDATE completed_count SET n = n - 1; END;
        CREATE TRIGGER IF NOT EXISTS completed_changed AFTER UPDATE OF status ON transactions
            WHEN (old.status = 'completed') != (new.status = 'completed')
            BEGIN UPDATE completed_count SET n = n + (new.status = 'completed') - (old.status = 'completed'); END;
        CREATE TABLE IF NOT EXISTS unfinished(id INTEGER PRIMARY KEY);
        CREATE TRIGGER IF NOT EXISTS unfinished_inserted AFTER INSERT ON transactions WHEN new.finished = 0
            BEGIN INSERT OR IGNORE INTO unfinished(id) VALUES (new.id); END;
        CREATE TRIGGER IF NOT EXISTS unfinished_written AFTER UPDATE OF finished ON transactions
            BEGIN
                DELETE FROM unfinished WHERE id = new.id AND new.finished != 0;
                INSERT OR IGNORE INTO unfinished(id) SELECT new.id WHERE new.finished = 0;
            END;
        CREATE TRIGGER IF NOT EXISTS unfinished_deleted AFTER DELETE ON transactions
            BEGIN DELETE FROM unfinished WHERE id = old.id; END;
        CREATE TABLE IF NOT EXISTS consumption(transaction_id INTEGER PRIMARY KEY, information TEXT NOT NULL, received INTEGER NOT NULL);
        CREATE TABLE IF NOT EXISTS renewal_extensions(request_id TEXT PRIMARY KEY, original_id INTEGER NOT NULL,
            days INTEGER NOT NULL, reason INTEGER NOT NULL, effective INTEGER NOT NULL, web_order_line_item_id TEXT);
        PRAGMA user_version = 2;
        """

    /// Each open ran all of it, then set `schemaVersion` in `meta` to 2.
    static let postgresql = """
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
        DELETE FROM completed_count WHERE (SELECT COUNT(*) FROM completed_count) > 1;
        INSERT INTO completed_count(n) SELECT (SELECT COUNT(*) FROM transactions WHERE status = 'completed')
            WHERE NOT EXISTS (SELECT 1 FROM completed_count);
        -- Each row's change is added up in a setting local to the transaction, and folded into the
        -- counter once, at commit: updating the one counter row per row written made a transaction
        -- of n rows walk n row versions each time, quadratic in n.
        CREATE OR REPLACE FUNCTION storefront_count_completed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM set_config('storefront.completed_change', (COALESCE(NULLIF(current_setting('storefront.completed_change', true), '')::bigint, 0)
                + (CASE WHEN TG_OP <> 'DELETE' AND NEW.status = 'completed' THEN 1 ELSE 0 END)
                - (CASE WHEN TG_OP <> 'INSERT' AND OLD.status = 'completed' THEN 1 ELSE 0 END))::text, true);
            RETURN NULL;
        END $$;
        CREATE OR REPLACE TRIGGER completed_count AFTER INSERT OR DELETE OR UPDATE OF status ON transactions
            FOR EACH ROW EXECUTE FUNCTION storefront_count_completed();
        CREATE OR REPLACE FUNCTION storefront_fold_completed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF COALESCE(NULLIF(current_setting('storefront.completed_change', true), '')::bigint, 0) <> 0 THEN
                UPDATE completed_count SET n = n + COALESCE(NULLIF(current_setting('storefront.completed_change', true), '')::bigint, 0);
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
        INSERT INTO meta(key, value) VALUES ('schemaVersion', '2');
        """
}
