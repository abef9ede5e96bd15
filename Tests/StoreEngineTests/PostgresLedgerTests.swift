import Foundation
import Testing
import Locking
import StoreCore
import StoreClient
@testable import StoreEngine
import StorefrontTestSupport

/// What the PostgreSQL ledger adds to the rules every engine keeps (those run on it through
/// `SourceKind.postgres` and `STOREFRONT_TEST_ENGINE=postgresql`): machines sharing one store,
/// a connection that drops, and databases that are not the store's.
@Suite("The ledger on PostgreSQL", .tags(.postgres), .notInFastLoop, .enabled(if: PostgresTestServer.enabled, "needs a PostgreSQL server (set CI to fail instead of skipping)"))
struct PostgresLedgerTests {
    static func open(_ ledger: PostgresLocation, directory: String? = nil) async throws -> StoreStack {
        try await StoreStack.open(catalog: Repo.instantCatalog, stateDirectory: directory, ledger: .postgresql(ledger))
    }

    /// The schema a test ledger lives in (its URL's search_path).
    static func schema(_ ledger: PostgresLocation) -> String {
        String(ledger.url.split(separator: "%3D").last!)
    }

    static func count(_ table: String, in ledger: PostgresLocation) throws -> Int64 {
        try PostgresTestServer.admin { try $0.query("SELECT COUNT(*) FROM \(schema(ledger)).\(table)", []) }.first?.first?.int ?? -1
    }

    // MARK: Machines sharing one store

    @Test("machines on one ledger sign as one store: each verifies and credits the others' purchases")
    func machinesShareOneSigningIdentity() async throws {
        let ledger = try PostgresTestServer.freshLedger()
        let (first, second) = (temporaryDirectory(), temporaryDirectory())
        let a = try await Self.open(ledger, directory: first)
        let b = try await Self.open(ledger, directory: second)
        #expect(a.store.certificate.keyFingerprint == b.store.certificate.keyFingerprint)
        #expect(!FileManager.default.fileExists(atPath: first + "/signing.pem"), "the identity lives in the ledger")
        #expect(FileManager.default.fileExists(atPath: first + "/wallet.sqlite"), "the app's wallet stays on the machine")
        _ = try await a.manager.purchase(ID.removeAds)
        #expect(await eventually { await b.manager.snapshot.entitlements.contains(ID.removeAds) })
        await a.close()
        await b.close()
    }

    @Test("another machine's commit is heard through LISTEN/NOTIFY, not by polling the ledger")
    func otherMachinesCommitsArriveByNotify() async throws {
        let ledger = try PostgresTestServer.freshLedger()
        let a = try await Self.open(ledger)
        let b = try await Self.open(ledger)
        #expect(await b.store.follower.wake != nil)
        _ = try await a.manager.purchase(ID.removeAds)
        #expect(await eventually { await b.manager.snapshot.entitlements.contains(ID.removeAds) })
        await a.close()
        await b.close()
    }

    @Test("a tester's time travel and switches on one machine reach the others, woken by the notice of their commit")
    func sharedClockAndSettingsReachOtherMachines() async throws {
        let ledger = try PostgresTestServer.freshLedger()
        let a = try await Self.open(ledger)
        let b = try await Self.open(ledger)
        // Once b hears a's purchase its feed listens (a feed's first connect wakes it anyway).
        _ = try await a.manager.purchase(ID.removeAds)
        #expect(await eventually { await b.manager.snapshot.entitlements.contains(ID.removeAds) })
        try await Task.sleep(for: .milliseconds(300))  // past the tick the purchase's wake ran
        try await a.store.advanceTime(by: Period(1, .month))
        await a.store.update { $0.askToBuy = true }
        let moved = await a.store.now()
        #expect(await eventually { abs(await b.store.now().timeIntervalSince(moved)) < 3600 }, "the clock did not reach the other machine")
        #expect(await eventually { await b.store.settings().askToBuy }, "the switch did not reach the other machine")
        await a.close()
        await b.close()
    }

    @Test("four machines buying one non-consumable at once sell it once")
    func nonConsumableNeverSoldTwiceAcrossMachines() async throws {
        let ledger = try PostgresTestServer.freshLedger()
        var stores: [LocalAppStore] = []
        for _ in 0..<4 { stores.append(try LocalAppStore(catalog: Repo.instantCatalog, stateDirectory: nil, ledger: .postgresql(ledger))) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for store in stores {
                group.addTask { _ = try await store.purchase(ID.pro, options: PurchaseOptions(), answer: .confirm) }
            }
            try await group.waitForAll()
        }
        let sold = try PostgresTestServer.admin {
            try $0.query("SELECT COUNT(*) FROM \(Self.schema(ledger)).transactions WHERE product_id = ?", [.text(ID.pro)])
        }
        #expect(sold.first?.first?.int == 1)
        for store in stores { await store.shutdown() }
    }

    // MARK: Large write transactions

    /// The counter row was updated once per transaction row, so a write of n rows walked up to n row
    /// versions each time: a simulated year of 20,000 renewals took 4 s in its one transaction.
    @Test("the completed count reaches its counter once per write transaction, and is exact inside one and after a rollback")
    func completedCountFoldsOncePerWriteTransaction() throws {
        let ledger = try Ledger(postgres: try PostgresTestServer.freshLedger())
        let rows = LedgerSpeedTests()
        func counterUpdates() throws -> Int64? {
            try ledger.db.query("""
                SELECT n_tup_upd FROM pg_stat_xact_user_tables WHERE schemaname = current_schema() AND relname = 'completed_count'
                """).first?.first?.int
        }
        try ledger.db.transaction {
            for id in Int64(1)...50 { try ledger.insert(rows.row(id, id <= 40 ? .completed : .pendingApproval)) }
            #expect(try counterUpdates() == 0)
            #expect(try ledger.completedCount() == 40)
        }
        #expect(try ledger.completedCount() == 40)
        struct Abandoned: Error {}
        #expect(throws: Abandoned.self) {
            try ledger.db.transaction {
                try ledger.insert(rows.row(51, .completed))
                try ledger.update(rows.row(41, .completed))
                throw Abandoned()
            }
        }
        #expect(try ledger.completedCount() == 40)
        try ledger.db.transaction {
            try ledger.update(rows.row(41, .completed))
            try ledger.update(rows.row(1, .declined))
            try ledger.delete(2)
            try ledger.delete(42)
        }
        let counted = try ledger.db.query("SELECT COUNT(*) FROM transactions WHERE status = 'completed'").first?.first?.int
        #expect(try ledger.completedCount() == 39 && counted == 39)
    }

    // MARK: Writes sent with the next statement

    @Test("writes queued in a transaction are read by the statements after them, and commit with it")
    func queuedWritesAreReadAfterThem() throws {
        let ledger = try Ledger(postgres: try PostgresTestServer.freshLedger())
        let rows = LedgerSpeedTests()
        try ledger.db.transaction {
            for id in Int64(1)...150 { try ledger.insert(rows.row(id, .completed)) }  // more than one pipeline's worth
            #expect(try ledger.db.query("SELECT COUNT(*) FROM transactions").first?.first?.int == 150)
            try ledger.insert(rows.row(151, .completed))
        }
        #expect(try ledger.completedCount() == 151)
        #expect(try ledger.row(151)?.payload.transactionID == 151)
    }

    @Test("a queued write that fails fails its transaction where it is sent; all of it rolls back and the connection goes on")
    func failedQueuedWriteRollsBackItsTransaction() throws {
        let ledger = try Ledger(postgres: try PostgresTestServer.freshLedger())
        let rows = LedgerSpeedTests()
        try ledger.db.transaction { try ledger.insert(rows.row(1, .completed)) }
        #expect(throws: LedgerError.self) {
            try ledger.db.transaction {
                try ledger.insert(rows.row(2, .completed))
                try ledger.insert(rows.row(1, .completed))  // the same ID: refused by the primary key
                try ledger.insert(rows.row(3, .completed))
                _ = try ledger.db.query("SELECT 1")
                Issue.record("the statement after a failed write ran")
            }
        }
        #expect(try ledger.db.query("SELECT id FROM transactions ORDER BY id").map { $0.first?.int } == [1])
        #expect(throws: LedgerError.self) {
            try ledger.db.transaction { try ledger.insert(rows.row(1, .completed)) }  // sent with the commit
        }
        try ledger.db.transaction { try ledger.insert(rows.row(4, .completed)) }
        #expect(try ledger.db.query("SELECT id FROM transactions ORDER BY id").map { $0.first?.int } == [1, 4])
        #expect(try ledger.completedCount() == 2)
    }

    @Test("transaction IDs stay new and rising while machines take turns writing, in batches and after a rollback")
    func transactionIDsStayNewAcrossMachines() throws {
        let location = try PostgresTestServer.freshLedger()
        let (first, second) = (try Ledger(postgres: location), try Ledger(postgres: location))
        let rows = LedgerSpeedTests()
        struct Abandoned: Error {}
        var committed: [Int64] = []
        /// `count` new transactions in one write (a batch, as a catch-up writes) that commits unless `abandoned`.
        func write(_ ledger: Ledger, _ count: Int = 1, batch: Bool = false, abandoned: Bool = false) throws {
            var ids: [Int64] = []
            func body() throws {
                for _ in 0..<count {
                    let id = try ledger.nextTransactionID()
                    try ledger.insert(rows.row(id, .completed))
                    ids.append(id)
                }
                if abandoned { throw Abandoned() }
            }
            func commit() throws { if batch { try ledger.batch(body) } else { try ledger.db.transaction(body) } }
            if abandoned {
                #expect(throws: Abandoned.self) { try commit() }
            } else {
                try commit()
                committed += ids
            }
        }
        try write(first)
        try write(first)  // its own commit last: no query for the ID
        try write(second)
        try write(first)  // another machine's commit since: asks again
        try write(first, 5, batch: true)
        try write(first)  // after the batch's highest, not its first
        try write(first, 2, abandoned: true)
        try write(first)  // the rolled-back IDs were never used: asks again, and may take them
        try write(second, 3, batch: true)
        try write(second)
        try write(first)
        let stored = try first.db.query("SELECT id FROM transactions ORDER BY id").compactMap { $0.first?.int }
        #expect(stored == committed)
        #expect(committed == Array(2_000_000_001...Int64(2_000_000_000 + committed.count)))
    }

    // MARK: Knowing when others committed

    @Test("the ledger's version costs no round trip while no other connection commits, and moves when one does")
    func dataVersionAsksTheServerOnlyAfterANotice() async throws {
        let location = try PostgresTestServer.freshLedger()
        // A round trip would wait behind the lock below: a statement timeout turns it into an error.
        let ledger = try Ledger(postgres: PostgresLocation(location.url + "%20-cstatement_timeout%3D3000")!)
        let rows = LedgerSpeedTests()
        try ledger.db.transaction { try ledger.insert(rows.row(1, .completed)) }
        let before = try ledger.db.dataVersion()
        try ledger.db.transaction { try ledger.insert(rows.row(2, .completed)) }  // its own commit is no news
        let other = try PostgresDatabase(location)  // another machine's connection, written to by hand
        try other.execute("BEGIN; LOCK TABLE ledger_version IN ACCESS EXCLUSIVE MODE")
        #expect(try ledger.db.dataVersion() == before, "read without asking the server")
        #expect(try ledger.db.dataVersion() == before)
        try other.execute("UPDATE ledger_version SET n = n + 1; SELECT pg_notify('storefront_' || current_schema(), ''); COMMIT")
        #expect(await eventually { (try? ledger.db.dataVersion()) != before }, "the other machine's notice moved it")
    }

    @Test("the ledger's stamp moves with every write of this connection, stands inside a write as it will once committed, and moves with another's commit")
    func stampMovesWithEveryWriteOnPostgres() throws {
        let location = try PostgresTestServer.freshLedger()
        let (ledger, other) = (try Ledger(postgres: location), try Ledger(postgres: location))
        let rows = LedgerSpeedTests()
        let start = try ledger.stamp()
        #expect(try ledger.stamp() == start)
        try ledger.setMeta("k", "1")  // a write outside a transaction
        let written = try ledger.stamp()
        #expect(written != start)
        let inside = try ledger.db.transaction { () throws -> (before: ChangeStamp, after: ChangeStamp) in
            let before = try ledger.stamp()
            try ledger.insert(rows.row(1, .completed))
            return (before, try ledger.stamp())
        }
        #expect(inside.before == written && inside.after != written)
        #expect(try ledger.stamp() == inside.after, "the stamp taken after the write, inside it, is where the ledger stands")
        try other.db.transaction { try other.insert(rows.row(2, .completed)) }
        #expect(try ledger.stamp() != inside.after)
    }

    @Test("on PostgreSQL a purchase costs 3 round trips, a finish 3, and the app's refresh after them none")
    func roundTripsOfAPurchase() async throws {
        let store = try LocalAppStore(catalog: Repo.instantCatalog, stateDirectory: nil, ledger: .postgresql(try PostgresTestServer.freshLedger()))
        let source: any TransactionSource = store
        for id in Int64(2_000_000_001)...2_000_000_002 {  // every statement prepared (a fresh ledger's first IDs)
            guard case .success = try await store.purchase(ID.coins, options: PurchaseOptions(), answer: .confirm) else { Issue.record("not bought"); return }
            await store.finish(transactionIDs: [id])
        }
        #expect(await store.unfinishedCount() == 0)
        let stamp = try #require(await source.changeStamp())
        var before = await store.ledgerRoundTrips()
        guard case .success = try await store.purchase(ID.coins, options: PurchaseOptions(), answer: .confirm) else { Issue.record("not bought"); return }
        #expect(await store.ledgerRoundTrips() - before <= 3, "BEGIN with the lock and the commit count; the inserts; COMMIT")
        before = await store.ledgerRoundTrips()
        await store.finish(transactionIDs: [2_000_000_003])
        #expect(await store.ledgerRoundTrips() - before <= 3, "BEGIN; the DELETE saying whether it counted; COMMIT")
        before = await store.ledgerRoundTrips()
        let changes = try #require(await source.changes(since: stamp))
        #expect(await store.ledgerRoundTrips() == before, "the refresh asked the server")
        #expect(changes.transactions.count == 1 && changes.transactionCount == 3)
        await store.shutdown()
    }

    @Test("another store of this process committing moves the ledger's version at once, before its notice arrives")
    func sameProcessCommitsMoveTheVersionAtOnce() throws {
        let location = try PostgresTestServer.freshLedger()
        let (first, second) = (try Ledger(postgres: location), try Ledger(postgres: location))
        let rows = LedgerSpeedTests()
        let before = try first.db.dataVersion()
        try second.db.transaction { try second.insert(rows.row(1, .completed)) }
        #expect(try first.db.dataVersion() != before)
        #expect(try first.completedCount() == 1)
    }

    @Test("a store's change feed stays quiet for the store's own commits and wakes it for another's")
    func changeFeedIgnoresOwnCommits() async throws {
        let location = try PostgresTestServer.freshLedger()
        let (own, other) = (try Ledger(postgres: location), try Ledger(postgres: location))
        let wakes = Locked(0)
        let feed = try #require(own.wake { wakes.withLock { $0 += 1 } })
        defer { feed.stop() }
        let rows = LedgerSpeedTests()
        try await Task.sleep(for: .milliseconds(300))  // the feed's first connect wakes it once
        let settled = wakes.withLock { $0 }
        for id in Int64(1)...5 { try own.db.transaction { try own.insert(rows.row(id, .completed)) } }
        try await Task.sleep(for: .milliseconds(300))
        #expect(wakes.withLock { $0 } == settled, "its own commits woke it")
        try other.db.transaction { try other.insert(rows.row(6, .completed)) }
        #expect(await eventually { wakes.withLock { $0 } > settled })
    }

    // MARK: A connection that drops

    @Test("a connection dropped mid-purchase leaves nothing half-applied, says so, and the next purchase reconnects")
    func droppedConnectionMidPurchase() async throws {
        let ledger = try PostgresTestServer.freshLedger()
        let h = try await Self.open(ledger)
        let schema = Self.schema(ledger)
        // Another session holds the outbox, so the purchase stops after writing its transaction row, inside its write.
        let holder = try PostgresDatabase(PostgresLocation(try PostgresTestServer.url())!)
        try holder.execute("BEGIN; LOCK TABLE \(schema).notifications IN EXCLUSIVE MODE")
        let purchase = Task { await h.manager.purchase(ID.removeAds) }
        let waiting = try await until {
            try PostgresTestServer.admin {
                try $0.query("""
                    SELECT pid FROM pg_stat_activity WHERE application_name = 'storefront' AND wait_event_type = 'Lock'
                    AND query LIKE '%notifications%'
                    """, []).compactMap { $0.first?.int }
            }
        }
        _ = try PostgresTestServer.admin { db in try waiting.map { try db.query("SELECT pg_terminate_backend(?)", [.int($0)]) } }
        try holder.execute("ROLLBACK")
        #expect(await purchase.value == .failed(.storeKit(.networkError)))
        #expect(try Self.count("transactions", in: ledger) == 0)
        #expect(try Self.count("events", in: ledger) == 0)
        #expect(try Self.count("notifications", in: ledger) == 0)
        let retried = try await h.manager.purchase(ID.removeAds)
        #expect(retried.transaction?.productID == ID.removeAds)
        #expect(try Self.count("transactions", in: ledger) == 1)
        #expect(await h.store.damage() == nil)
        await h.close()
    }

    // MARK: Databases that are not the store's

    @Test("an unreachable server is an error naming the URL without its password")
    func unreachableServerNamesTheURLWithoutPassword() throws {
        let url = "postgresql://storefront:s3cret@127.0.0.1:1/storefront"
        let error = #expect(throws: LedgerError.self) { try LocalAppStore(catalog: Repo.instantCatalog, stateDirectory: nil, ledger: LedgerLocation(url: url)!) }
        #expect(error.map { if case .unreachable = $0 { true } else { false } } == true)
        #expect(error?.description.hasPrefix("postgresql://storefront@127.0.0.1:1/storefront: cannot open the ledger's database") == true)
        #expect(error?.description.contains("s3cret") == false)
    }

    @Test("a wrong password is refused, and the message does not repeat it")
    func wrongPasswordIsRefused() throws {
        let good = try PostgresTestServer.url()
        let wrong = good.replacingOccurrences(of: ":storefront@", with: ":wr0ng@")
        try #require(wrong != good)
        let error = #expect(throws: LedgerError.self) { try LocalAppStore(catalog: Repo.instantCatalog, stateDirectory: nil, ledger: LedgerLocation(url: wrong)!) }
        #expect(error?.description.contains("password authentication failed") == true)
        #expect(error?.description.contains("wr0ng") == false)
    }

    @Test("a database holding another application's tables is refused and left as it was")
    func foreignSchemaIsRefused() throws {
        let ledger = try PostgresTestServer.freshLedger()
        try PostgresTestServer.admin { try $0.execute("CREATE TABLE \(Self.schema(ledger)).customers(id INT)") }
        let error = #expect(throws: LedgerError.self) { try LocalAppStore(catalog: Repo.instantCatalog, stateDirectory: nil, ledger: .postgresql(ledger)) }
        #expect(error.map { if case .foreignSchema = $0 { true } else { false } } == true)
        #expect(error?.description.contains("customers") == true)
        let tables = try PostgresTestServer.admin {
            try $0.query("SELECT table_name::text FROM information_schema.tables WHERE table_schema = ?", [.text(Self.schema(ledger))])
        }
        #expect(tables == [[.text("customers")]])
    }

    @Test("a ledger of a newer schema version is refused and left as it was")
    func newerSchemaIsRefused() async throws {
        let ledger = try PostgresTestServer.freshLedger()
        let h = try await Self.open(ledger)
        _ = try await h.manager.purchase(ID.coins)
        await h.close()
        try PostgresTestServer.admin { try $0.execute("UPDATE \(Self.schema(ledger)).meta SET value = '99' WHERE key = 'schemaVersion'") }
        let error = #expect(throws: LedgerError.self) { try LocalAppStore(catalog: Repo.instantCatalog, stateDirectory: nil, ledger: .postgresql(ledger)) }
        #expect(error == .newerSchema(path: ledger.description, version: 99))
        #expect(error?.description.contains("schema version 99") == true)
        #expect(try Self.count("transactions", in: ledger) == 1)
    }

    @Test("a ledger of schema 1 opens at schema 2 with every transaction, its unfinished ones listed")
    func schemaOneLedgerIsMigrated() async throws {
        let ledger = try PostgresTestServer.freshLedger()
        let h = try await Self.open(ledger)
        for _ in 0..<3 { _ = try await h.manager.purchase(ID.coins) }
        await h.close()
        // Back to schema 1: the unfinished transactions in a partial index of the rows, the second one not finished.
        let schema = Self.schema(ledger)
        try PostgresTestServer.admin {
            try $0.execute("""
                DROP TRIGGER unfinished ON \(schema).transactions; DROP TABLE \(schema).unfinished;
                UPDATE \(schema).transactions SET finished = CASE WHEN id = (SELECT MIN(id) + 1 FROM \(schema).transactions) THEN 0 ELSE 1 END;
                CREATE INDEX unfinished_transactions ON \(schema).transactions(id) WHERE finished = 0;
                UPDATE \(schema).meta SET value = '1' WHERE key = 'schemaVersion';
                """)
        }
        let store = try LocalAppStore(catalog: Repo.instantCatalog, stateDirectory: nil, ledger: .postgresql(ledger))
        #expect(await store.unfinishedTransactions().count == 1)
        #expect(await store.transactionCount() == 3)
        #expect(try Self.count("unfinished", in: ledger) == 1)
        let version = try PostgresTestServer.admin { try $0.query("SELECT value FROM \(schema).meta WHERE key = 'schemaVersion'", []) }
        #expect(version == [[.text(String(Ledger.schemaVersion))]])
        let index = try PostgresTestServer.admin { try $0.query("SELECT 1 FROM pg_indexes WHERE schemaname = ? AND indexname = 'unfinished_transactions'", [.text(schema)]) }
        #expect(index.isEmpty)
        await store.shutdown()
    }

    @Test("placeholders become PostgreSQL's numbered parameters, quoted text left alone")
    func placeholdersAreNumbered() {
        #expect(PostgresDatabase.numbered("SELECT a FROM t WHERE b = ? AND c = '?' AND d = ?") == "SELECT a FROM t WHERE b = $1 AND c = '?' AND d = $2")
        #expect(PostgresDatabase.numbered("UPDATE t SET a = ?2 WHERE id = ?1") == "UPDATE t SET a = $2 WHERE id = $1")
    }

    @Test("messages name the URL without the password, in the user part or a parameter")
    func locationsHideThePassword() {
        #expect(PostgresLocation("postgresql://qa:pw@db.local:5432/store")!.description == "postgresql://qa@db.local:5432/store")
        #expect(PostgresLocation("postgres://db.local/store?password=pw&sslmode=disable")!.description == "postgres://db.local/store?sslmode=disable")
        #expect(PostgresLocation("mysql://db") == nil)
    }

    /// Polls `body` (up to 10 s) until it gives a non-empty answer.
    func until<T: Collection>(_ body: () throws -> T) async throws -> T {
        for _ in 0..<500 {
            let value = try body()
            if !value.isEmpty { return value }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw PostgresTestServer.Unavailable(description: "the purchase never waited on the held table")
    }
}

extension LocalAppStore {
    /// The round trips its PostgreSQL connection has made.
    func ledgerRoundTrips() -> Int { (ledger.db as? PostgresDatabase)?.roundTrips ?? 0 }
}
