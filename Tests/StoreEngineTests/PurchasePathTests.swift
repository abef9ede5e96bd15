import CSQLite
import Foundation
import Testing
import StoreCore
import StoreClient
@testable import StoreEngine
import StorefrontTestSupport
import StoreVerification

/// The mechanisms that keep a purchase's writes and reads few: one snapshot for a run of reads, the
/// key of an inserted row without a temporary table, an undelivered event of the store's own seen as
/// written, checkpoints left alone while the integrity check reads, a wallet credit of one page.
@Suite("Purchase path")
struct PurchasePathTests {
    /// Thrown to roll a transaction back.
    struct RolledBack: Error {}

    /// Two connections to a new file with an empty table `t`, and a count of its rows as the first sees them.
    func twoConnections(_ body: (_ db: SQLiteDatabase, _ other: SQLiteDatabase, _ count: () throws -> Int64?) throws -> Void) throws {
        let directory = try createdTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (db, other) = (try SQLiteDatabase(path: directory + "/t.sqlite"), try SQLiteDatabase(path: directory + "/t.sqlite"))
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY)")
        try body(db, other) { try db.query("SELECT COUNT(*) FROM t").first?.first?.int }
    }

    @Test("reading runs its statements on one snapshot: another connection's commit shows after it")
    func readingIsOneSnapshot() throws {
        try twoConnections { db, other, count in
            try db.reading {
                #expect(try count() == 0)
                try other.query("INSERT INTO t(id) VALUES (1)")
                #expect(try count() == 0, "the second read is on the first one's snapshot")
            }
            #expect(try count() == 1)
        }
    }

    @Test("a write inside reading ends its snapshot: the reads after it see it and other connections' commits")
    func writeInsideReading() throws {
        try twoConnections { db, other, count in
            try db.reading {
                #expect(try count() == 0)
                try other.query("INSERT INTO t(id) VALUES (1)")
                try db.transaction { try db.query("INSERT INTO t(id) VALUES (2)") }
                #expect(try count() == 2)
                try other.query("INSERT INTO t(id) VALUES (3)")
                #expect(try count() == 2, "the reads after the write are on one snapshot again")
            }
            #expect(try count() == 3)
        }
    }

    @Test("dataVersion is read once a transaction, and anew in the next: another connection's commit shows after it")
    func dataVersionOnceATransaction() throws {
        try twoConnections { db, other, _ in
            db.recordedStatements = []
            let (first, again) = try db.transaction { (try db.dataVersion(), try db.dataVersion()) }
            #expect(first == again && db.recordedStatements?.filter { $0 == "PRAGMA data_version" }.count == 1)
            let (read, readAgain) = try db.reading {
                let read = try db.dataVersion()
                try other.query("INSERT INTO t(id) VALUES (1)")
                return (read, try db.dataVersion())
            }
            #expect(read == first && readAgain == read, "the snapshot does not see the commit")
            let later = try db.transaction { try db.dataVersion() }
            #expect(later != first, "the next transaction does")
            let (before, inside) = try db.reading {
                let before = try db.dataVersion()
                try other.query("INSERT INTO t(id) VALUES (2)")
                try db.transaction { try db.query("INSERT INTO t(id) VALUES (3)") }
                return (before, try db.dataVersion())
            }
            #expect(before == later && inside != before, "a write inside reading ends its snapshot, and the version read in it")
            try other.query("INSERT INTO t(id) VALUES (4)")
            #expect(try db.dataVersion() != inside, "outside a transaction every read is anew")
            db.recordedStatements = nil
        }
    }

    @Test("insert returns the key the row was given, and nil when it inserted none")
    func insertReturnsTheKey() throws {
        let db = try SQLiteDatabase(path: nil)
        try db.execute("CREATE TABLE t(seq INTEGER PRIMARY KEY, name TEXT UNIQUE)")
        #expect(try db.insert("INSERT INTO t(name) VALUES (?)", [.text("a")], returning: "seq") == 1)
        #expect(try db.insert("INSERT INTO t(name) VALUES (?)", [.text("b")], returning: "seq") == 2)
        #expect(try db.insert("INSERT OR IGNORE INTO t(name) VALUES (?)", [.text("b")], returning: "seq") == nil)
    }

    @Test("a purchase made after another process's update still delivers that update")
    func purchaseDeliversOthersUpdates() async throws {
        let directory = try createdTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try LocalAppStore(catalog: Repo.instantCatalog, stateDirectory: directory, time: ManualTime())
        let other = try LocalAppStore(catalog: Repo.instantCatalog, stateDirectory: directory, time: ManualTime())
        let updates = await store.updates()
        try await other.buyOutsideApp(productID: ID.removeAds, familyShared: false)
        _ = try await store.purchase(ID.coins, options: PurchaseOptions(), answer: .confirm)
        await store.shutdown()  // ends the stream: what it holds was delivered by now
        var delivered: [String] = []
        for await jws in updates { delivered.append(jws) }
        let products = delivered.compactMap { SignedDataVerifier(trustedRoots: [store.certificate]).transaction($0).payload?.productID }
        #expect(products == [ID.removeAds], "the other process's purchase arrives once; the store's own does not come back to it")
        await other.shutdown()
    }

    @Test("the store's own purchases are seen as written: a later update of another process is delivered once")
    func ownPurchasesAreSeenAsWritten() async throws {
        let directory = try createdTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try LocalAppStore(catalog: Repo.instantCatalog, stateDirectory: directory, time: ManualTime())
        let other = try LocalAppStore(catalog: Repo.instantCatalog, stateDirectory: directory, time: ManualTime())
        let updates = await store.updates()
        for _ in 0..<3 { _ = try await store.purchase(ID.coins, options: PurchaseOptions(), answer: .confirm) }
        try await other.buyOutsideApp(productID: ID.removeAds, familyShared: false)
        await store.tick()
        await store.tick()
        await store.shutdown()
        var delivered = 0
        for await _ in updates { delivered += 1 }
        #expect(delivered == 1)
        await other.shutdown()
    }

    /// A new file with an empty table `t` for `writePages`, and its path.
    func pagedDatabase(_ body: (_ db: SQLiteDatabase, _ path: String) async throws -> Void) async throws {
        let directory = try createdTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await body(try Self.pagedTable(directory + "/t.sqlite"), directory + "/t.sqlite")
    }

    /// A connection to a new file with an empty table `t` for `writePages`.
    static func pagedTable(_ path: String) throws -> SQLiteDatabase {
        let db = try SQLiteDatabase(path: path)
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT)")
        return db
    }

    /// Rows of about a page each, one commit each unless inside a transaction.
    func writePages(_ count: Int, to db: SQLiteDatabase) throws { try Self.writePages(count, to: db) }

    static func writePages(_ count: Int, to db: SQLiteDatabase) throws {
        for _ in 0..<count { try db.query("INSERT INTO t(body) VALUES (?)", [.text(String(repeating: "x", count: 3500))]) }
    }

    /// A connection to the file at `path` through SQLite's own unix VFS, not the ledger's: as another process sees it.
    final class PlainConnection {
        private var db: OpaquePointer?
        struct Failed: Error, CustomStringConvertible { let description: String }

        init(_ path: String) throws {
            guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, "unix") == SQLITE_OK else { throw Failed(description: "cannot open \(path)") }
            sqlite3_busy_timeout(db, 5000)
        }
        deinit { sqlite3_close(db) }

        func execute(_ sql: String) throws {
            guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { throw Failed(description: String(cString: sqlite3_errmsg(db))) }
        }

        /// The first column of the first row of `sql`, as text.
        func first(_ sql: String) -> String {
            var statement: OpaquePointer?
            defer { sqlite3_finalize(statement) }
            guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, sqlite3_step(statement) == SQLITE_ROW,
                  let text = sqlite3_column_text(statement, 0) else { return "" }
            return String(cString: text)
        }
    }

    /// What another process reads from the file at `path`: `t`'s rows and the integrity check's answer.
    static func readPlainly(_ path: String) throws -> (rows: Int64, integrity: String) {
        let plain = try PlainConnection(path)
        return (Int64(plain.first("SELECT COUNT(*) FROM t")) ?? -1, plain.first("PRAGMA integrity_check"))
    }

    /// The file and its log as a crash of every process would leave them, in `copy`.
    static func crashCopy(of path: String, to copy: String) throws {
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        try FileManager.default.copyItem(atPath: path + "-wal", toPath: copy + "-wal")
    }

    /// 2000 rows of a kilobyte each, checkpointed (the log is empty), and a page cache of 10 pages, so a
    /// transaction changing a few hundred rows writes frames to the log before it commits.
    func spillingTable(_ body: (_ db: SQLiteDatabase, _ path: String) throws -> Void) throws {
        let directory = try createdTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/t.sqlite"
        let db = try SQLiteDatabase(path: path)
        try db.execute("""
            CREATE TABLE t(id INTEGER PRIMARY KEY, v INTEGER NOT NULL, pad BLOB);
            WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 2000) INSERT INTO t SELECT i, 0, zeroblob(1000) FROM c;
            PRAGMA wal_checkpoint(TRUNCATE);
            PRAGMA cache_size = 10;
            """)
        try body(db, path)
    }

    /// SQLite writes each log frame in two writes, its header and its page: a purchase's seven-page commit
    /// was fourteen, 20 µs against 5 µs for the same bytes in one.
    @Test("a commit's write-ahead-log frames reach the file in one write, there for another process when the commit returns")
    func commitFramesInOneWrite() async throws {
        try await pagedDatabase { db, path in
            try writePages(1, to: db)
            let before = try #require(db.logWrites, "the ledger's log is not written through the batching VFS")
            try db.transaction { try writePages(5, to: db) }
            let after = try #require(db.logWrites)
            #expect(after.frames - before.frames >= 5)
            #expect(after.writes - before.writes == 1, "\(after.frames - before.frames) frames in \(after.writes - before.writes) writes")
            #expect(try Self.readPlainly(path) == (6, "ok"))
        }
    }

    @Test("a commit larger than the frames held at once is written in pieces, and reads back whole")
    func largeCommitInPieces() async throws {
        try await pagedDatabase { db, path in
            try writePages(1, to: db)
            let before = try #require(db.logWrites)
            try db.transaction { try writePages(400, to: db) }  // 1.6 MB of pages, past the 1 MB held
            let after = try #require(db.logWrites)
            #expect(after.writes - before.writes >= 2)
            #expect(try Self.readPlainly(path) == (401, "ok"))
        }
    }

    /// A transaction larger than the page cache writes frames before it commits; rolled back, SQLite
    /// writes the next commit's over them.
    @Test("frames a rolled-back transaction spilled to the log leave it whole for the next commit, also after reopening")
    func spilledFramesRolledBack() async throws {
        try await pagedDatabase { db, path in
            try writePages(1, to: db)
            try db.execute("PRAGMA cache_size=10")
            let before = try #require(db.logWrites)
            #expect(throws: RolledBack.self) { try db.transaction { try writePages(100, to: db); throw RolledBack() } }
            #expect(try #require(db.logWrites).frames > before.frames, "the transaction never spilled")
            try writePages(2, to: db)
            #expect(try Self.readPlainly(path) == (3, "ok"))
            // The log recovered by a connection that opens it anew, as after a crash.
            try Self.crashCopy(of: path, to: path + ".copy")  // closing would checkpoint the log away
            #expect(try Self.readPlainly(path + ".copy") == (3, "ok"))
        }
    }

    /// A page a transaction changes again after spilling it is rewritten in place, and SQLite then
    /// rewrites the checksums of every frame from there, the commit frame's header last, with no page
    /// after it: held, that header waited for a page that never came while the commit was published.
    @Test("a transaction that changes spilled pages again is in the file when its commit returns, as a crash would find it")
    func rewrittenFramesInTheFileAtCommit() throws {
        try spillingTable { db, path in
            try db.transaction {
                try db.execute("UPDATE t SET v = 1 WHERE id <= 600; UPDATE t SET v = 2 WHERE id <= 300; INSERT INTO t(id, v) VALUES (5000, 3)")
            }
            let copy = path + ".copy"
            try Self.crashCopy(of: path, to: copy)
            let plain = try PlainConnection(copy)
            #expect(plain.first("SELECT SUM(v) FROM t") == "\(300 * 2 + 300 + 3)")
            #expect(plain.first("PRAGMA integrity_check") == "ok")
        }
    }

    /// Frames held for a transaction that rolled back were written later, over frames another writer
    /// had committed at the same place in the log since.
    @Test("frames a rolled-back transaction spilled never land on another writer's commit")
    func rolledBackFramesDropped() throws {
        try spillingTable { db, path in
            #expect(throws: RolledBack.self) { try db.transaction { try db.execute("UPDATE t SET v = 666 WHERE id <= 600"); throw RolledBack() } }
            let other = try PlainConnection(path)
            try other.execute("UPDATE t SET v = 1 WHERE id <= 300")
            #expect(try db.query("SELECT SUM(v) FROM t") == [[.int(300)]])  // a read on the first connection
            let after = try PlainConnection(path)
            #expect(after.first("SELECT SUM(v) FROM t") == "300")
            #expect(after.first("SELECT COUNT(*) FROM t WHERE v = 666") == "0")
            #expect(after.first("PRAGMA integrity_check") == "ok")
        }
    }

    @Test("after a transaction that spilled rolls back, the next commit's frames are one write again")
    func batchingResumesAfterARollback() throws {
        try spillingTable { db, _ in
            try db.execute("UPDATE t SET v = 1 WHERE id = 1")  // the log's first commit (its header, synced)
            _ = try? db.transaction { try db.execute("UPDATE t SET v = 666 WHERE id <= 600"); throw RolledBack() }
            let before = try #require(db.logWrites)
            try db.transaction { try db.execute("UPDATE t SET v = 1 WHERE id <= 3") }
            let after = try #require(db.logWrites)
            #expect(after.writes - before.writes == 1, "\(after.frames - before.frames) frames in \(after.writes - before.writes) writes")
        }
    }

    /// SQLite rolls back only the statement of a full disk; frames spilled before it and lost with the
    /// failed write would then have been committed by the transaction's COMMIT, as if in the file.
    @Test("after a failed write of held frames the transaction cannot commit, and the file stays whole")
    func failedWriteFailsTheTransaction() throws {
        try spillingTable { db, path in
            try db.execute("BEGIN; UPDATE t SET v = 1 WHERE id <= 600")
            db.failNextLogWrite()
            #expect(throws: (any Error).self) { try db.execute("UPDATE t SET v = v + 1 WHERE id <= 600") }
            #expect(throws: (any Error).self) { try db.execute("COMMIT") }
            try? db.execute("ROLLBACK")
            let plain = try PlainConnection(path)
            #expect(plain.first("SELECT SUM(v) FROM t") == "0")
            #expect(plain.first("PRAGMA integrity_check") == "ok")
            try db.execute("UPDATE t SET v = 1 WHERE id <= 10")
            #expect(plain.first("SELECT SUM(v) FROM t") == "10", "the connection writes again once the transaction is over")
        }
    }

    /// SQLite's automatic checkpoint synced the log and the file inside the commit that filled the log:
    /// one purchase in about 125 waited 0.2–4.6 ms for it.
    @Test("a commit that fills the write-ahead log leaves its checkpoint to a thread beside it, which empties the log")
    func checkpointsRunBesideCommits() async throws {
        try await pagedDatabase { db, path in
            try db.transaction { try writePages(1100, to: db) }
            #expect(await eventually { db.checkpoints == 1 })
            // The log copied back whole, the next commit writes it from its start: its pages alone are in it.
            try writePages(1, to: db)
            let log = try SQLiteDatabase(path: path).query("PRAGMA wal_checkpoint(PASSIVE)").first?[1].int
            #expect(log.map { $0 < 10 } == true, "\(log ?? -1) pages in the log")
            #expect(db.checkpoints == 1)
            #expect(db.checkpointsInCommits == 0, "no commit came while it ran: none copies anything itself")
            // The log written from its start fills again: the pages the last checkpoint copied are not counted against it.
            try db.transaction { try writePages(1100, to: db) }
            #expect(await eventually { db.checkpoints == 2 })
            #expect(try db.query("SELECT COUNT(*) FROM t") == [[.int(2201)]])
        }
    }

    /// The log starts over only at a transaction that begins once all of it is copied back. A checkpoint
    /// beside commits that never pause never found it so: the log of a purchase loop grew by 33 KB a
    /// purchase (1.8 GB after some 50,000), and each commit's pages went to new blocks of the file.
    @Test("under commits that never pause, the write-ahead log still starts over after each checkpoint")
    func writeAheadLogStartsOverUnderSteadyCommits() async throws {
        let directory = try createdTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // About three pages a commit: the log fills every 330 or so. How many commits come while a
        // checkpoint runs depends on the machine (thousands on a loaded one), so the test counts the
        // log's new starts, and stops at the third. On a thread of its own: a loop that never
        // suspends would hold one of the cooperative pool's few threads for as long as it runs
        // (50 s in the whole suite under CI, which starved another test's task).
        let (restarts, inCommits, commits) = try await offPool {
            let db = try Self.pagedTable(directory + "/t.sqlite")
            var commits = 0
            while db.logRestarts < 3, commits < 60_000 {
                try Self.writePages(1, to: db)
                commits += 1
            }
            return (db.logRestarts, db.checkpointsInCommits, commits)
        }
        #expect(restarts >= 3, "the log never started over in \(commits) commits")
        #expect(inCommits >= 1)
    }

    @Test("while the integrity check reads, commits do not checkpoint; once it ends, they do again")
    func checkpointsWaitForTheIntegrityCheck() async throws {
        let directory = try createdTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/t.sqlite"
        // 12 MB for the check to read, so it is still running when the transaction begins (on an empty
        // file it could end first: then nothing holds the checkpoints back, as under ThreadSanitizer).
        try PlainConnection(path).execute("""
            PRAGMA journal_mode = WAL; CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT);
            WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 3000) INSERT INTO t(body) SELECT printf('%3500d', i) FROM c;
            PRAGMA wal_checkpoint(TRUNCATE);
            """)
        let db = try SQLiteDatabase(path: path)
        db.integrityCheck = IntegrityCheck(path: path)
        // In one transaction, which keeps the check it began with even if the check ends meanwhile.
        try db.transaction { try writePages(1100, to: db) }
        try await Task.sleep(for: .milliseconds(100))
        #expect(db.checkpoints == 0)
        while db.integrityCheck?.outcome == .running { try await Task.sleep(for: .milliseconds(10)) }
        try writePages(1, to: db)
        #expect(db.integrityCheck == nil)
        #expect(await eventually { db.checkpoints == 1 })
    }

    @Test("a wallet made with the product index loses it at open, and keeps its credits")
    func walletDropsItsProductIndex() async throws {
        let directory = try createdTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/wallet.sqlite"
        do {
            let old = try SQLiteDatabase(path: path)
            try old.execute("""
                CREATE TABLE credits(transaction_id INTEGER PRIMARY KEY, product_id TEXT NOT NULL, quantity INTEGER NOT NULL);
                CREATE INDEX credits_product ON credits(product_id);
                INSERT INTO credits VALUES (1, 'coins', 100), (2, 'coins', 100), (3, 'gems', 5);
                """)
        }
        let wallet = try ConsumableWallet(path: path)
        #expect(try await wallet.balances() == ["coins": 200, "gems": 5])
        #expect(try await wallet.credit(transactionID: 3, productID: "gems", quantity: 5) == false)
        #expect(try await wallet.credit(transactionID: 4, productID: "gems", quantity: 5))
        #expect(try await wallet.balances() == ["coins": 200, "gems": 10])
        let indexes = try SQLiteDatabase(path: path).query("SELECT name FROM sqlite_master WHERE type = 'index'")
        #expect(indexes.isEmpty)
    }
}
