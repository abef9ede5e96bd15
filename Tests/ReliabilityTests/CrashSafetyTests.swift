import Foundation
import Testing
import StoreClient
import StoreCore
@testable import StoreEngine
import StorefrontTestSupport
import StoreVerification

/// Opens the state directory as a freshly launched app would, lets StoreKit's redelivery of
/// unfinished transactions drain, and checks the ledger and the wallet against each other.
/// `ledger`: the PostgreSQL ledger the state directory's app bought on.
func checkAfterCleanLaunch(_ state: String, ledger: PostgresLocation? = nil, printed: [(id: Int64, product: String, quantity: Int)]) async throws {
    let stack = try await StoreStack.open(catalog: Repo.testCatalog, stateDirectory: state, ledger: ledger.map { .postgresql($0) })
    let (store, manager) = (stack.store, stack.manager)
    var unfinished = await store.unfinishedTransactions().count
    for _ in 0..<600 where unfinished > 0 {
        try await Task.sleep(for: .milliseconds(50))
        unfinished = await store.unfinishedTransactions().count
    }
    #expect(unfinished == 0, "unfinished transactions remain after the relaunch delivered them")
    await manager.stop()

    let entries = await store.ledgerEntries()
    await store.shutdown()
    let verifier = SignedDataVerifier(trustedRoots: [store.certificate])
    let unverified = entries.filter { $0.jws.map { !verifier.transaction($0).isVerified } ?? false }.map(\.id)
    #expect(unverified.count == 0, "transactions that do not verify against the state directory's certificate: \(unverified.prefix(5))")
    // By ID: a scan of the entries for each of tens of thousands of purchases took minutes.
    let byID = Dictionary(entries.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    #expect(byID.count == entries.count, "duplicate transaction IDs in the ledger")
    let lost = printed.filter { byID[$0.id] == nil }
    #expect(lost.count == 0, "transactions the worker saw succeed are missing from the ledger: \(lost.prefix(5))")
    for purchase in printed {
        guard let entry = byID[purchase.id] else { continue }
        #expect(entry.payload.productID == purchase.product && entry.payload.quantity == purchase.quantity && entry.status == .completed)
    }

    // Every completed consumable credited exactly once, and nothing else credited.
    var expected: [Int64: Int64] = [:]
    for entry in entries where entry.status == .completed && entry.payload.productType == .consumable {
        expected[entry.id] = Int64(entry.payload.quantity)
    }
    let walletDB = try SQLiteDatabase(path: state + "/wallet.sqlite")
    var credited: [Int64: Int64] = [:]
    for row in try walletDB.query("SELECT transaction_id, quantity FROM credits") {
        let id = row[0].int!
        #expect(credited[id] == nil, "transaction \(id) credited twice")
        credited[id] = row[1].int!
    }
    #expect(credited == expected, "wallet credits differ from completed consumables: missing \(Set(expected.keys).subtracting(credited.keys).sorted().prefix(5)), extra \(Set(credited.keys).subtracting(expected.keys).sorted().prefix(5))")
    #expect(credited.values.reduce(0, +) == expected.values.reduce(0, +))

    for file in ledger == nil ? ["ledger.sqlite", "wallet.sqlite"] : ["wallet.sqlite"] {
        let result = try SQLiteDatabase(path: state + "/" + file).query("PRAGMA integrity_check")
        #expect(result == [[.text("ok")]], "\(file): \(result)")
    }
}

@Suite("Crash safety and concurrency", .tags(.slow), .notInFastLoop, .serialized)
struct CrashSafetyTests {
    @Test("A worker app (StoreManager on LocalAppStore) SIGKILLed at seeded-random points loses nothing and credits each consumable once")
    func killedWorkers() async throws {
        try await killWorkers(ledger: nil)
    }

    @Test("A worker app SIGKILLed at seeded-random points on a PostgreSQL ledger loses nothing and credits each consumable once",
          .tags(.postgres), .enabled(if: PostgresTestServer.enabled, "needs a PostgreSQL server (set CI to fail instead of skipping)"))
    func killedWorkersOnPostgres() async throws {
        try await killWorkers(ledger: PostgresTestServer.freshLedger())
    }

    func killWorkers(ledger: PostgresLocation?) async throws {
        let seed = testSeed("crash safety")
        var random = SeededRandom(seed: seed)
        let state = temporaryDirectory("crash")
        defer { try? FileManager.default.removeItem(atPath: state) }
        let kills = longTests ? 200 : 20
        var printed: [(id: Int64, product: String, quantity: Int)] = []
        var unexpected: [String] = []
        let start = ContinuousClock.now
        for round in 0..<kills {
            let worker = try WorkerProcess(state: state, ledger: ledger, seed: seed &+ UInt64(round))
            // The kill point: after a seeded number of purchases (0: during start-up), plus a seeded delay,
            // so a busy machine shifts the points but does not remove them.
            let purchases = Int.random(in: 0...3, using: &random)
            // Stops waiting once they are made (a `where` clause only skips the sleep: with fast purchases,
            // reading a log that grew by thousands of lines 3,000 times took longer than the whole suite).
            for _ in 0..<3000 {
                guard purchases > 0, worker.process.isRunning, worker.output().purchases.count < purchases else { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...400, using: &random)))
            let exitedByItself = !worker.process.isRunning
            try await worker.kill()
            let output = worker.output()
            printed += output.purchases
            if exitedByItself { unexpected.append("round \(round): worker exited by itself (\(worker.process.terminationStatus))") }
            // A kill can cut the last line short; anything else is a purchase that failed.
            unexpected += output.other.dropLast().map { "round \(round): \($0)" }
        }
        print("[crash safety\(ledger == nil ? "" : ", PostgreSQL")] \(kills) kills, \(printed.count) purchases printed, \(ContinuousClock.now - start)")
        #expect(unexpected.isEmpty, "\(unexpected.prefix(10))")
        #expect(!printed.isEmpty, "no worker got as far as a purchase: raise the kill delays")
        try await checkAfterCleanLaunch(state, ledger: ledger, printed: printed)
    }

    /// The workers pick from 4 non-consumables (not 5,000), so they race to buy the same ones.
    /// The same, for the real `storefront` binary: `storefront run` buying consumables on a state directory.
    @Test("storefront SIGKILLed at seeded-random points loses nothing and credits each consumable once")
    func killedStorefront() async throws {
        let seed = testSeed("storefront crash safety")
        var random = SeededRandom(seed: seed)
        let state = temporaryDirectory("storefront-crash")
        defer { try? FileManager.default.removeItem(atPath: state) }
        let scenario = state + "/buy.scenario"
        // More steps than a run gets through before its kill point: a purchase takes well under a millisecond.
        try (["catalog \(Repo.catalogPath)"] + (0..<5000).map { _ in
            Bool.random(using: &random) ? "buy com.lumenquest.coins.100" : "buy com.lumenquest.gems.500 quantity \(Int.random(in: 1...5, using: &random))"
        }).joined(separator: "\n").write(toFile: scenario, atomically: true, encoding: .utf8)
        let kills = longTests ? 30 : 8
        var printed: [(id: Int64, product: String, quantity: Int)] = []
        for _ in 0..<kills {
            let run = try startStorefront(["run", scenario, "--state", state])
            // A seeded number of purchases (0: during start-up), plus a seeded delay.
            let purchases = Int.random(in: 0...4, using: &random)
            for _ in 0..<3000 {
                guard purchases > 0, run.process.isRunning, Self.reportedPurchases(run.output()).count < purchases else { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...300, using: &random)))
            #expect(run.process.isRunning, "storefront ended by itself: \(run.output().suffix(300))")
            try await killAndAwaitExit(run.process)
            // Line-buffered output: every purchase storefront reported is a whole line.
            printed += Self.reportedPurchases(run.output())
        }
        print("[storefront crash safety] \(kills) kills, \(printed.count) purchases reported")
        #expect(!printed.isEmpty, "no run got as far as a purchase: raise the kill delays")
        let store = try LocalAppStore(catalog: Repo.testCatalog, stateDirectory: state)
        let completed = await store.ledgerEntries().filter { $0.status == .completed }.count
        await store.shutdown()
        #expect(completed >= printed.count, "storefront reported \(printed.count) purchases, the ledger holds \(completed)")
        // Each reported purchase by its ID, product and quantity: a count alone misses one lost and another doubled.
        try await checkAfterCleanLaunch(state, printed: printed)
    }

    /// `✓ 2   buy com.lumenquest.gems.500 quantity 3  → purchased (transaction 2000000042)`, one a line.
    static func reportedPurchases(_ output: String) -> [(id: Int64, product: String, quantity: Int)] {
        output.split(separator: "\n").compactMap { line in
            guard let arrow = line.range(of: "  → purchased (transaction "), line.hasSuffix(")"),
                  let id = Int64(line[arrow.upperBound...].dropLast()) else { return nil }
            let words = line[..<arrow.lowerBound].split(separator: " ")
            guard let buy = words.firstIndex(of: "buy"), buy + 1 < words.count else { return nil }
            let quantity = words.firstIndex(of: "quantity").flatMap { $0 + 1 < words.count ? Int(words[$0 + 1]) : nil } ?? 1
            return (id, String(words[buy + 1]), quantity)
        }
    }

    @Test("Two processes purchasing on one ledger: unique IDs, counts add up, nothing lost, no non-consumable sold twice")
    func twoProcesses() async throws {
        let seed = testSeed("two processes")
        let state = temporaryDirectory("two")
        defer { try? FileManager.default.removeItem(atPath: state) }
        // First launch creates the identity and the ledger; the two workers then share them.
        try await LocalAppStore(catalog: Repo.testCatalog, stateDirectory: state).shutdown()
        let count = longTests ? 100 : 40
        let contended = 4
        let workers = try [WorkerProcess(state: state, seed: seed, count: count, nonConsumables: contended),
                           WorkerProcess(state: state, seed: seed &+ 1, count: count, nonConsumables: contended)]
        let deadline = ContinuousClock.now + .seconds(1800)  // a safety net only: the machine may be very busy
        while workers.contains(where: { $0.process.isRunning }), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
        let timedOut = workers.contains { $0.process.isRunning }
        #expect(!timedOut, "workers still running after 30 minutes")
        for worker in workers { try await worker.kill() }
        var printed: [(id: Int64, product: String, quantity: Int)] = []
        for worker in workers {
            #expect(timedOut || worker.process.terminationReason == .exit && worker.process.terminationStatus == 0, "worker did not finish cleanly")
            let output = worker.output()
            printed += output.purchases
            let failures = output.other
            #expect(failures.isEmpty, "purchases failed: \(failures.prefix(5))")
            #expect(timedOut || output.purchases.count + output.other.count == count, "each worker prints one line per purchase")
        }
        // Buying a non-consumable the customer owns (the other worker may have just bought it) hands back its transaction.
        let byID = Dictionary(grouping: printed, by: \.id)
        #expect(byID.values.allSatisfy { same in same.allSatisfy { $0.product == same[0].product } && (same.count == 1 || same[0].product.hasPrefix("bench.nc")) },
                "two purchases got the same transaction ID")
        let store = try LocalAppStore(catalog: Repo.testCatalog, stateDirectory: state)
        let entries = await store.ledgerEntries()
        await store.shutdown()
        // A worker killed at the deadline may have committed a purchase it never printed.
        #expect(timedOut ? entries.count >= byID.count : entries.count == byID.count, "the ledger holds \(entries.count) transactions, the workers made \(byID.count)")
        let nonConsumables = entries.filter { $0.payload.productType == .nonConsumable }.map(\.payload.productID)
        #expect(Set(nonConsumables).count == nonConsumables.count, "a non-consumable was sold twice")
        // They did contend: one bought a non-consumable the other owned already, and was handed its transaction.
        let nonConsumableIDs = workers.map { Set($0.output().purchases.filter { $0.product.hasPrefix("bench.nc") }.map(\.id)) }
        #expect(!nonConsumableIDs[0].intersection(nonConsumableIDs[1]).isEmpty,
                "neither worker met a non-consumable the other had bought: no contention")
        try await checkAfterCleanLaunch(state, printed: printed)
    }

    /// Machines are state directories (each its own app and wallet) on one PostgreSQL ledger.
    @Test("Four processes on four machines buying from one PostgreSQL ledger: unique IDs, nothing lost, no non-consumable sold twice",
          .tags(.postgres), .enabled(if: PostgresTestServer.enabled, "needs a PostgreSQL server (set CI to fail instead of skipping)"))
    func fourMachinesOnPostgres() async throws {
        let seed = testSeed("four machines")
        let ledger = try PostgresTestServer.freshLedger()
        let machines = (0..<4).map { temporaryDirectory("machine\($0)") }
        defer { for machine in machines { try? FileManager.default.removeItem(atPath: machine) } }
        let count = longTests ? 60 : 25
        let workers = try machines.enumerated().map { index, machine in
            try WorkerProcess(state: machine, ledger: ledger, seed: seed &+ UInt64(index), count: count, nonConsumables: 4)
        }
        let deadline = ContinuousClock.now + .seconds(900)  // a safety net only
        while workers.contains(where: { $0.process.isRunning }), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
        for worker in workers { try await worker.kill() }
        var printed: [(id: Int64, product: String, quantity: Int)] = []
        for worker in workers {
            #expect(worker.process.terminationReason == .exit && worker.process.terminationStatus == 0, "worker did not finish cleanly")
            #expect(worker.output().other.isEmpty, "purchases failed: \(worker.output().other.prefix(5))")
            printed += worker.output().purchases
        }
        let store = try LocalAppStore(catalog: Repo.testCatalog, stateDirectory: nil, ledger: .postgresql(ledger))
        let entries = await store.ledgerEntries()
        await store.shutdown()
        let byID = Dictionary(grouping: printed, by: \.id)
        #expect(entries.count == byID.count, "the ledger holds \(entries.count) transactions, the machines made \(byID.count)")
        #expect(Set(entries.map(\.id)).count == entries.count, "duplicate transaction IDs")
        let nonConsumables = entries.filter { $0.payload.productType == .nonConsumable }.map(\.payload.productID)
        #expect(Set(nonConsumables).count == nonConsumables.count, "a non-consumable was sold twice")
        #expect(nonConsumables.count <= 4 && printed.filter { $0.product.hasPrefix("bench.nc") }.count > nonConsumables.count,
                "the machines did not contend for the same non-consumables")
        let verifier = SignedDataVerifier(trustedRoots: [store.certificate])
        #expect(entries.allSatisfy { $0.jws.map { verifier.transaction($0).isVerified } ?? true }, "a transaction does not verify against the shared identity")
    }

    /// Two stores on one state directory are two SQLite connections, as two processes have; this
    /// shows the error that the two-process test only sees as StoreKitError.unknown.
    /// The race needs the stores to overlap, so it tries a few rounds.
    @Test("Four stores on one ledger purchasing at once: no purchase fails")
    func twoStoresOneLedger() async throws {
        for round in 0..<5 {
            let state = temporaryDirectory("stores")
            defer { try? FileManager.default.removeItem(atPath: state) }
            let stores = try (0..<4).map { _ in try LocalAppStore(catalog: Repo.testCatalog, stateDirectory: state) }
            let errors = await withTaskGroup(of: [String].self) { group in
                for store in stores {
                    group.addTask {
                        var errors: [String] = []
                        for _ in 0..<250 {
                            do { _ = try await store.purchase("com.lumenquest.coins.100", options: PurchaseOptions(), answer: .confirm) }
                            catch { errors.append("\(type(of: error)): \(error)") }
                        }
                        return errors
                    }
                }
                return await group.reduce(into: []) { $0 += $1 }
            }
            #expect(errors.count == 0, "round \(round): \(errors.count) of 1000 purchases failed, e.g. \(errors.first ?? "")")
            #expect(await stores[0].ledgerEntries().count == 1000 - errors.count)
            for store in stores { await store.shutdown() }
            if !errors.isEmpty { break }
        }
    }

    @Test("Two first launches at once on a fresh state directory agree on one signing identity")
    func twoFirstLaunches() async throws {
        let seed = testSeed("two first launches")
        for attempt in 0..<(longTests ? 20 : 5) {
            let state = temporaryDirectory("fresh")
            defer { try? FileManager.default.removeItem(atPath: state) }
            let workers = try [WorkerProcess(state: state, seed: seed &+ UInt64(2 * attempt), count: 3),
                               WorkerProcess(state: state, seed: seed &+ UInt64(2 * attempt + 1), count: 3)]
            for _ in 0..<1200 where workers.contains(where: { $0.process.isRunning }) { try await Task.sleep(for: .milliseconds(50)) }
            for worker in workers { try await worker.kill() }
            let store = try LocalAppStore(catalog: Repo.testCatalog, stateDirectory: state)
            let verifier = SignedDataVerifier(trustedRoots: [store.certificate])
            let entries = await store.ledgerEntries()
            await store.shutdown()
            // The check below holds for an empty ledger too: the workers must have bought something.
            let printed = workers.flatMap { $0.output().purchases }
            #expect(!printed.isEmpty && entries.count == printed.count,
                    "attempt \(attempt): the workers printed \(printed.count) purchases, the ledger holds \(entries.count): \(workers.flatMap { $0.output().other }.prefix(3))")
            let unverified = entries.filter { !verifier.transaction($0.jws ?? "").isVerified }
            #expect(unverified.count == 0, "attempt \(attempt): \(unverified.count) of \(entries.count) transactions were signed by a key whose certificate another first launch overwrote")
            // Failed purchases here are the transaction-ID race that twoStoresOneLedger pins down.
            if !unverified.isEmpty { break }
        }
    }
}
