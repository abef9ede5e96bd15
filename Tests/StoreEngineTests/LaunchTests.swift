import Foundation
import Testing
import StoreCore
import StoreClient
@testable import StoreEngine
import StorefrontTestSupport

extension LocalAppStore {
    /// The statements one tick runs on a SQLite ledger.
    func statementsOfOneTick() -> [String] {
        let db = ledger.db as! SQLiteDatabase
        db.recordedStatements = []
        defer { db.recordedStatements = nil }
        tick()
        return db.recordedStatements ?? []
    }
}

/// What a launch leaves for after the first frame, and what an idle storefront reads: nothing that
/// grows with the ledger before the first frame, nothing at all while nothing changes.
@Suite("Launch and idle")
struct LaunchTests {
    @Test("an app buys a product it did not load at launch by loading it first, as an app loads what it sells")
    func aProductNotLoadedAtLaunchIsLoadedBeforeItIsBought() async throws {
        let stack = try await StoreStack.open(catalog: Repo.instantCatalog, stateDirectory: nil, productIDs: ["com.lumenquest.coins.100"])
        #expect(await stack.manager.snapshot.products.map(\.id) == ["com.lumenquest.coins.100"])
        let result = await stack.manager.purchase("com.lumenquest.pro")
        guard case .success(.verified(let transaction)) = result else { Issue.record("\(result)"); return }
        #expect(transaction.productID == "com.lumenquest.pro")
        #expect(await stack.manager.snapshot.entitlements.contains("com.lumenquest.pro"))
        await stack.close()
    }

    @Test("the first frame does not wait for history: start leaves it to loadHistory, and the snapshot says it is loading")
    func historyAfterFirstFrame() async throws {
        let store = try LocalAppStore(catalog: Repo.instantCatalog, stateDirectory: nil, time: ManualTime())
        _ = try await store.purchase(ID.pro, options: PurchaseOptions(), answer: .confirm)
        let app = try await StoreStack.launchApp(on: store, stateDirectory: nil, historyAfterFirstFrame: true)
        let first = await app.snapshot
        #expect(first.isLoadingHistory && first.history.isEmpty)
        #expect(first.entitlements == [ID.pro] && first.transactionCount == 1, "the first frame's entitlements and counts are there")
        await app.refresh()
        let refreshed = await app.snapshot
        #expect(refreshed.isLoadingHistory && refreshed.history.isEmpty, "a refresh before loadHistory leaves the history out")
        await app.loadHistory()
        let loaded = await app.snapshot
        #expect(!loaded.isLoadingHistory && loaded.history.compactMap(\.payload?.productID) == [ID.pro])
        await app.purchase(ID.removeAds)
        #expect(await app.snapshot.history.compactMap(\.payload?.productID) == [ID.removeAds, ID.pro], "refreshes include it from then on")
        await app.stop()
        await store.shutdown()
    }

    @Test("an app that does not draw a first frame (scenarios, run, tests) has the history when start returns")
    func startLoadsTheHistory() async throws {
        let store = try LocalAppStore(catalog: Repo.instantCatalog, stateDirectory: nil, time: ManualTime())
        _ = try await store.purchase(ID.pro, options: PurchaseOptions(), answer: .confirm)
        let app = try await StoreStack.launchApp(on: store, stateDirectory: nil)
        let snapshot = await app.snapshot
        #expect(!snapshot.isLoadingHistory && snapshot.history.compactMap(\.payload?.productID) == [ID.pro])
        await app.loadHistory()  // nothing was left for it
        #expect(await app.snapshot.history.count == 1)
        await app.stop()
        await store.shutdown()
    }

    @Test("a non-renewing entitlement's end is in the snapshot: the time it goes out of date with nothing in the store changing")
    func nonRenewingEndIsKnown() async throws {
        let harness = try await Harness.make()
        let bought = try #require(await harness.manager.purchase(ID.season).transaction)
        let end = Period(3, .month).advance(bought.purchaseDate)
        #expect(await harness.snapshot().nonRenewingEnds == [ID.season: end])
        #expect(await harness.snapshot().nextTimedChange == end)
        await harness.close()
    }

    @Test("an idle tick with nothing due reads nothing but the ledger's version")
    func idleTickReadsNothing() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let time = ManualTime()
        let store = try LocalAppStore(catalog: Repo.instantCatalog, stateDirectory: directory, time: time)
        _ = try await store.purchase(ID.proMonthly, options: PurchaseOptions(), answer: .confirm)
        await store.tick()
        let idle = await store.statementsOfOneTick()
        #expect(!idle.isEmpty && idle.allSatisfy { $0 == "PRAGMA data_version" }, "\(idle)")
        // Another process's commit is read (and its events delivered) at the next tick.
        let other = try LocalAppStore(catalog: Repo.instantCatalog, stateDirectory: directory, time: time)
        try await other.buyOutsideApp(productID: ID.removeAds, familyShared: false)
        #expect(await store.statementsOfOneTick().contains { $0.contains("FROM events") })
        #expect(await store.statementsOfOneTick().allSatisfy { $0 == "PRAGMA data_version" })
        await other.shutdown()
        await store.shutdown()
    }

    @Test("the change version moves with every commit, this process's or another's, and not with time")
    func changeVersionFollowsCommits() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let time = ManualTime()
        let store = try LocalAppStore(catalog: Repo.instantCatalog, stateDirectory: directory, time: time)
        let start = try #require(await store.changeVersion())
        _ = await store.currentEntitlements()
        time.advance(3600)
        #expect(await store.changeVersion() == start, "reads and time leave it as it was")
        _ = try await store.purchase(ID.pro, options: PurchaseOptions(), answer: .confirm)
        let bought = try #require(await store.changeVersion())
        #expect(bought != start)
        await store.finish(transactionID: try #require(await store.ledgerEntries().first?.id))
        let finished = try #require(await store.changeVersion())
        #expect(finished != bought, "a write outside a transaction (finish) moves it too")
        let other = try LocalAppStore(catalog: Repo.instantCatalog, stateDirectory: directory, time: time)
        await other.update { $0.askToBuy = true }
        #expect(await store.changeVersion() != finished, "another process's commit moves it")
        await other.shutdown()
        await store.shutdown()
    }
}

/// `PRAGMA quick_check` reads every page: a large ledger is checked beside the store, not before it opens.
@Suite("Ledger checked beside the store", .serialized)
struct IntegrityCheckTests {
    /// A ledger file of `rows` transactions, closed.
    func ledgerFile(rows: Int) throws -> String {
        let directory = try createdTemporaryDirectory()
        let path = directory + "/ledger.sqlite"
        let ledger = try Ledger(path: path, tokenPrefix: "")
        try ledger.db.execute("""
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows))
            INSERT INTO transactions(id, original_id, product_id, product_type, status, finished, payload)
            SELECT i, i, 'coins', 'consumable', 'completed', 1, printf('{"transactionId":"%d","pad":"%.600c"}', i, 'x') FROM n
            """)
        return path
    }

    /// Garbage over the header of a page in the middle of the file: a transactions page the open never reads.
    func damageMiddlePage(_ path: String) throws {
        var bytes = [UInt8](try #require(FileManager.default.contents(atPath: path)))
        let page = 4096, middle = bytes.count / page / 2 * page
        for i in middle..<middle + 64 { bytes[i] = 0xFF }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    func outcome(of ledger: Ledger) async throws -> IntegrityCheck.Outcome {
        let check = try #require(ledger.integrityCheck, "the ledger was checked at open")
        // The check runs on a thread of lower priority: a loaded machine may leave it waiting for seconds.
        let deadline = ContinuousClock.now + .seconds(60)
        while check.outcome == .running, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        return check.outcome
    }

    @Test("a ledger larger than the open's check opens at once, is checked beside the store, and stays writable when sound")
    func soundLedgerPasses() async throws {
        let path = try ledgerFile(rows: 300)
        defer { try? FileManager.default.removeItem(atPath: LedgerError.directory(path)) }
        let ledger = try Ledger(path: path, tokenPrefix: "", checkedAtOpen: 0)
        #expect(try await outcome(of: ledger) == .passed)
        try ledger.setMeta("written", "after the check")
        #expect(try ledger.meta("written") == "after the check")
    }

    @Test("damage the check finds beside the store is reported, and the ledger refuses writes from then on; reads go on")
    func damageFoundBesideTheStore() async throws {
        let path = try ledgerFile(rows: 300)
        defer { try? FileManager.default.removeItem(atPath: LedgerError.directory(path)) }
        try damageMiddlePage(path)
        #expect(throws: LedgerError.self, "small enough, it is refused at open") { try Ledger(path: path, tokenPrefix: "") }
        let ledger = try Ledger(path: path, tokenPrefix: "", checkedAtOpen: 0)
        guard case .damaged(.damaged(let named, _)) = try await outcome(of: ledger) else {
            Issue.record("the check found nothing")
            return
        }
        #expect(named == path)
        #expect(throws: LedgerError.self) { try ledger.setMeta("written", "after the damage") }
        #expect(try ledger.meta("written") == nil && ledger.completedCount() == 300)
    }

    @Test("a check beside the store that finds damage before the open's own writes leaves the ledger open, read-only")
    func damageFoundBeforeTheOpenEnds() async throws {
        let path = try ledgerFile(rows: 300)
        defer { try? FileManager.default.removeItem(atPath: LedgerError.directory(path)) }
        try damageMiddlePage(path)
        // The check ends before the open goes on, as it may on a machine that runs its thread first.
        let ledger = try Ledger(path: path, tokenPrefix: "", checkedAtOpen: 0, checkStarted: { $0.wait() })
        guard case .damaged = try await outcome(of: ledger) else {
            Issue.record("the check found nothing")
            return
        }
        #expect(throws: LedgerError.self) { try ledger.setMeta("written", "after the damage") }
        #expect(try ledger.completedCount() == 300)
    }

    @Test("a store on a large damaged ledger says so through damage() once the check has run")
    func storeReportsTheCheck() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        await (try LocalAppStore(catalog: Repo.catalog, stateDirectory: directory)).shutdown()
        let path = directory + "/ledger.sqlite"
        let rows = Ledger.checkedAtOpen / 600
        try SQLiteDatabase(path: path).execute("""
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows))
            INSERT INTO transactions(id, original_id, product_id, product_type, status, finished, payload)
            SELECT i, i, 'coins', 'consumable', 'completed', 1, printf('{"pad":"%.600c"}', 'x') FROM n
            """)
        try damageMiddlePage(path)
        let store = try LocalAppStore(catalog: Repo.catalog, stateDirectory: directory)
        // The check runs on a thread of lower priority: a loaded machine may leave it waiting for seconds.
        #expect(await eventually(within: .seconds(60)) { await store.damage()?.contains("the ledger is damaged") == true })
        await store.shutdown()
    }
}
