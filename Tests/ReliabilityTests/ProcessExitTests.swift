import Foundation
import Testing
import StoreClient
import StoreCore
import StoreEngine
import StorefrontTestSupport

@Suite("Exit and output of storefront run", .tags(.slow), .notInFastLoop, .serialized)
struct ProcessExitTests {
    /// A scenario whose last steps leave hundreds of renewals on their way to the app through updates.
    static func renewalsAtExit() throws -> String {
        let path = temporaryDirectory("exit") + "/renewals-at-exit.scenario"
        try """
            catalog \(Repo.catalogPath)
            buy com.lumenquest.plus.monthly
            advance P20Y
            buy com.lumenquest.coins.100
            """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Exiting while another thread verifies a signature crashed in OpenSSL's exit-time cleanup
    /// (SIGSEGV in 2 of 15 runs before StoreManager.stop and LocalAppStore.shutdown waited for it).
    @Test("storefront run exits cleanly while updates are still being delivered")
    func exitWhileUpdatesArrive() throws {
        let scenario = try Self.renewalsAtExit()
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: scenario).deletingLastPathComponent().path) }
        for attempt in 0..<(longTests ? 6 : 2) {
            let run = try storefront(["run", scenario])
            #expect(run.reason == .exit && run.status == 0, "attempt \(attempt): \(run.reason == .exit ? "exit" : "signal") \(run.status)\n\(run.output.prefix(600))")
            if run.reason != .exit || run.status != 0 { break }
        }
    }

    /// The rule under the two tests around it, for any thread and any program on the package (an app's
    /// test process too): OpenSSL's atexit cleanup freed its locks under the signing thread (SIGSEGV in
    /// 2 of 3 exits before CCryptoSetup turned it off).
    @Test("A program that exits while other threads sign and verify ends with its own status, not a crash")
    func exitWhileSigning() throws {
        for attempt in 0..<10 {
            // A worker stuck in exit() is killed (and fails), never left to hang the suite.
            let run = try runCrashWorker(["--exit-while-signing"], seconds: 30)
            #expect(run.exited && run.status == 0,
                    "attempt \(attempt): \(run.exited ? "exit" : "signal") \(run.status)\n\(run.errors.prefix(600))")
            if !run.exited || run.status != 0 { break }
        }
    }

    /// A run of the tests used to leave thousands of files and directories in /tmp (key files, ledgers,
    /// recordings). Each test process now works in a TMPDIR of its own (Tests/Scratch), gone when it exits.
    @Test("A test process's temporary files live in its own directory, removed at its exit; a dead process's is removed by the next")
    func testProcessesCleanUpTheirTemporaryFiles() throws {
        let own = "/storefront-tests-\(getpid())"
        #expect(NSTemporaryDirectory().hasSuffix(own + "/"), "\(NSTemporaryDirectory())")
        #expect(ProcessInfo.processInfo.environment["TMPDIR"]?.hasSuffix(own) == true, "programs the tests start inherit it")
        // Outside this process's directory, as a fresh run's would be.
        let base = URL(fileURLWithPath: NSTemporaryDirectory()).deletingLastPathComponent().path + "/scratch-check-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: base) }
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/true")
        try gone.run()
        gone.waitUntilExit()
        let stale = base + "/storefront-tests-\(gone.processIdentifier)"
        try FileManager.default.createDirectory(atPath: stale + "/ledger", withIntermediateDirectories: true)
        try Data("left".utf8).write(to: URL(fileURLWithPath: stale + "/ledger/ledger.sqlite"))

        #expect(try runCrashWorker(["--exit-while-signing"], environment: ["TMPDIR": base]).exited)
        #expect(try FileManager.default.contentsOfDirectory(atPath: base) == [], "neither the dead process's directory nor the worker's own is left")
    }

    /// `import StoreKit` with no session: the store `STOREFRONT_CATALOG` names, opened when first asked for, while
    /// the listener the program starts at launch asks too (it used to wait for ever, or end, if it asked first).
    @Test("A program with no test session buys from the store STOREFRONT_CATALOG names, and its listener lasts")
    func storeKitTalksToTheStoreTheEnvironmentNames() throws {
        let run = try runCrashWorker(["--storekit", "com.lumenquest.coins.100"],
                                     environment: ["STOREFRONT_CATALOG": Repo.catalogPath, "STOREFRONT_STATE": nil])
        #expect(run.exited && run.status == 0, "\(run.errors)")
        #expect(run.output == "bought 2000000001 com.lumenquest.coins.100 listening\n")
    }

    /// Runs `storefront-crash-worker` with `arguments` and these changes to the environment (nil removes a
    /// variable) until it exits, or kills it after `seconds`.
    func runCrashWorker(_ arguments: [String], environment changes: [String: String?] = [:], seconds: Int = 60) throws
        -> (exited: Bool, status: Int32, output: String, errors: String) {
        guard FileManager.default.isExecutableFile(atPath: Repo.crashWorkerBinary) else {
            throw WorkerError(description: "\(Repo.crashWorkerBinary) is missing: run `swift build` before `swift test`")
        }
        let worker = Process(), output = Pipe(), errors = Pipe()
        worker.executableURL = URL(fileURLWithPath: Repo.crashWorkerBinary)
        worker.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        for (name, value) in changes { environment[name] = value }
        worker.environment = environment
        (worker.standardOutput, worker.standardError) = (output, errors)
        try worker.run()
        let deadline = ContinuousClock.now + .seconds(seconds)
        while worker.isRunning && ContinuousClock.now < deadline { usleep(10_000) }
        if worker.isRunning { kill(worker.processIdentifier, SIGKILL) }
        worker.waitUntilExit()
        func text(_ pipe: Pipe) -> String { String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) }
        return (worker.terminationReason == .exit, worker.terminationStatus, text(output), text(errors))
    }

    /// What the end-to-end test above catches now and then, pinned down: nothing is handled after `stop()` returns.
    @Test("StoreManager.stop waits for the update being handled and handles none after it")
    func stopWaitsForUpdates() async throws {
        let state = temporaryDirectory("stop")
        defer { try? FileManager.default.removeItem(atPath: state) }
        let store = try LocalAppStore(catalog: Repo.testCatalog, stateDirectory: state)
        // Bought while the app was not running: all of them are redelivered through updates at launch.
        for _ in 0..<60 { _ = try await store.purchase("com.lumenquest.coins.100", options: PurchaseOptions(), answer: .confirm) }
        let manager = try await StoreStack.launchApp(on: store, stateDirectory: state)
        await manager.stop()
        let atStop = await store.unfinishedTransactions().count
        try await Task.sleep(for: .milliseconds(500))
        let later = await store.unfinishedTransactions().count
        #expect(later == atStop, "\(atStop - later) updates were handled after stop() returned")
        await store.shutdown()
    }

    @Test("storefront run into a pipe or file shows each step as it happens, so a killed run still shows its steps")
    func outputIsLineBuffered() async throws {
        let directory = temporaryDirectory("buffered")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let scenario = directory + "/slow.scenario"
        // The advances take seconds (a century of monthly renewals each): the first steps must be out long before the run ends.
        try (["catalog \(Repo.catalogPath)", "buy com.lumenquest.plus.monthly"]
             + Array(repeating: "advance P100Y", count: 20)).joined(separator: "\n").write(toFile: scenario, atomically: true, encoding: .utf8)
        let run = try startStorefront(["run", scenario])
        defer { if run.process.isRunning { kill(run.process.processIdentifier, SIGKILL) }; run.process.waitUntilExit() }
        let deadline = ContinuousClock.now + .seconds(60)  // a safety net only: the steps take minutes
        while run.process.isRunning && !run.output().contains("buy com.lumenquest.plus.monthly") && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(run.process.isRunning, "the run ended before its first step was seen in its output")
        kill(run.process.processIdentifier, SIGKILL)
        run.process.waitUntilExit()
        #expect(run.output().contains("✓ 2   buy com.lumenquest.plus.monthly"), "after the kill the output holds: \(run.output().prefix(300))")
    }
}
