import Foundation
import StoreClient
import StoreCore
import StoreEngine
import StorefrontTestSupport
import Testing
@testable import StorefrontApp

/// `storefront --record-scenario FILE`: a session in the storefront kept as a scenario that
/// `storefront run` replays, in the command layer's own words.
@Suite struct SessionRecorderTests {
    /// A session through the reducer and the effect runner: a purchase on the payment sheet, Ask to
    /// Buy approved, time passing at a fast rate, a tester control, time travel and a refund.
    func recordSession(into path: String) async throws -> String {
        let time = ManualTime()
        let stack = try await StoreStack.open(catalog: Repo.instantCatalog, stateDirectory: nil, time: time)
        let (store, manager) = (stack.store, stack.manager)
        let recorder = await SessionRecorder(path: path, catalogPath: Repo.catalogPath, catalog: Repo.catalog, store: store, manager: manager,
                                             opening: [])
        let runner = EffectRunner(manager: manager, controls: store, recorder: recorder)
        func run(_ effect: Effect) async { _ = await runner.run(effect) }
        func newest(_ product: String) async throws -> Int64 {
            try #require(await store.ledgerEntries().filter { $0.payload.productID == product }.map(\.id).max())
        }
        var state = AppState()
        state.snapshot = await manager.snapshot
        let buy = press(&state, .enter, .enter)  // the first product, confirmed on the payment sheet
        #expect(buy.count == 1)
        for effect in buy { await run(effect) }
        await run(.command(.toggle(.askToBuy)))
        await run(.command(.buy("com.lumenquest.pro", quantity: 1, offer: nil, signature: .valid, askToBuy: false, answer: .confirm)))
        await run(.command(.control(.approve, .id(try await newest("com.lumenquest.pro")))))
        await run(.command(.toggle(.askToBuy)))
        await run(.command(.timeRate(.oneRenewalEveryTenSeconds)))
        await run(.command(.buy("com.lumenquest.plus.monthly", quantity: 1, offer: nil, signature: .valid, askToBuy: false, answer: .confirm)))
        time.advance(25)  // two renewals while the tester watches
        await run(.command(.control(.autoRenew(false), .id(try await newest("com.lumenquest.plus.monthly")))))
        time.advance(12)  // and it expires
        await run(.command(.advance(Period(1, .month))))
        await run(.command(.control(.refund(prorated: false, reason: .other), .id(try await newest("com.lumenquest.pro")))))
        let reply = await runner.run(.saveScenario)
        guard case .finished(.done(let message)) = reply.event else { Issue.record("\(reply.event)"); return "" }
        #expect(message.hasPrefix("Saved 12 steps to "), "\(message)")
        await manager.stop()
        await store.shutdown()
        return try String(contentsOfFile: path, encoding: .utf8)
    }

    func replay(_ text: String, at path: String) async throws -> ScenarioResult {
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let scenario = try ScenarioParser.parse(file: path)
        let runner = ScenarioRunner(scenario: scenario, catalog: try CatalogLoader.load(path: try #require(scenario.catalogPath)))
        await runner.setPatience(.milliseconds(300))
        return await runner.run()
    }

    func scratch() throws -> String {
        let dir = NSTemporaryDirectory() + "session-recorder-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test("a recorded session is the steps performed, in the command layer's words, and replays green")
    func recordedSessionReplaysGreen() async throws {
        let path = try scratch() + "/session.scenario"
        let text = try await recordSession(into: path)
        let steps = text.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.isEmpty && !$0.hasPrefix("expect") }.map(String.init)
        #expect(steps == [
            "catalog " + SessionRecorder.relative(Repo.catalogPath, from: URL(fileURLWithPath: path).deletingLastPathComponent().path),
            "buy com.lumenquest.coins.100", "set askToBuy on", "buy com.lumenquest.pro", "approve com.lumenquest.pro", "set askToBuy off",
            "set timeRate oneRenewalEveryTenSeconds", "buy com.lumenquest.plus.monthly", "advance 25s", "auto-renew com.lumenquest.plus.monthly off",
            "advance 12s", "advance P1M", "refund com.lumenquest.pro",
        ], "\(text)")
        #expect(text.contains("expect balance com.lumenquest.coins.100 1"))
        #expect(text.contains("expect not entitled com.lumenquest.pro"))
        #expect(text.contains("expect status lumenquest.membership expired"))
        #expect(text.contains("expect unfinished 0"))
        let result = try await replay(text, at: path)
        #expect(result.passed, "\(result.steps.filter { !$0.passed }.map { ScenarioReport.line($0) })")
    }

    @Test("a recorded session fails its replay when the state it reaches differs")
    func recordedChecksCatchADifferentState() async throws {
        let path = try scratch() + "/session.scenario"
        let text = try await recordSession(into: path)
        let withoutRefund = text.split(separator: "\n", omittingEmptySubsequences: false).filter { $0 != "refund com.lumenquest.pro" }.joined(separator: "\n")
        #expect(withoutRefund != text)
        let result = try await replay(withoutRefund, at: path)
        #expect(!result.passed)
        #expect(result.steps.filter { !$0.passed }.map(\.step.text) == ["expect not entitled com.lumenquest.pro"])
    }

    @Test("every command the storefront performs is written as the step that parses back to it")
    func everyRecordedCommandParsesBack() throws {
        let token = UUID()
        let commands: [StoreCommand] = [
            .storefront("JPN", locale: "ja_JP"), .storefront("USA", locale: nil), .set(.billingRetryOnRenewal, true), .timeRate(.oneRenewalEveryTwoSeconds),
            .appAccountToken(token), .appAccountToken(nil), .fail(.purchase, .storeKit(.networkError)), .fail(.loadProducts, nil),
            .originalApp(version: "1.0", platform: "macOS", date: nil),
            .buy("com.lumenquest.pro.monthly", quantity: 2, offer: "pro.comeback50", signature: .missing, askToBuy: true, plan: .monthly,
                 appAccountToken: token, introEligibility: "eligibility.jws", answer: .confirm),
            .buy("com.lumenquest.pro", quantity: 1, offer: nil, signature: .valid, askToBuy: false, answer: .cancel),
            .restore, .refresh, .redeem("SPRING"), .requestRefund(.newest(productID: "com.lumenquest.pro"), reason: "Didn't mean to # buy"),
            .manage("lumenquest.membership", .switchTo(productID: "com.lumenquest.pro.monthly")), .manage("lumenquest.membership", .cancel),
            .buyElsewhere("com.lumenquest.pro", family: true), .advance(Period(3, .day)), .elapse(.milliseconds(25_300)), .wait(.seconds(2)),
            .clear, .reset,
        ] + TesterControl.table.map { .control($0.control, .newest(productID: "com.lumenquest.plus.monthly")) }
        for command in commands {
            let line = try #require(CommandTable.line(command), "\(command)")
            let parsed = try ScenarioParser.parse(line, path: "/tmp/x.scenario")
            #expect(parsed.steps.map(\.kind) == [.action(command)], "\(line)")
        }
        #expect(CommandTable.line(.control(.approve, .id(7))) == nil, "a transaction by ID is named by its product first")
        #expect(CommandTable.line(.resendNotification(3)) == nil)
    }

    @Test("W saves the session so far while one is recorded, and is no key otherwise")
    func saveKeyOnlyWhileRecording() {
        var state = AppState()
        #expect(press(&state, .character("W")).isEmpty)
        state.recordsScenario = true
        #expect(press(&state, .character("W")) == [.saveScenario])
        #expect(KeyMap.helpLines(for: state).contains { $0.hasPrefix("W ") && $0.hasSuffix("Save scenario") })
    }

    @Test("--record-scenario with a path that cannot be written: a clear message and exit 2, before the storefront opens")
    func badPathExitsTwoBeforeOpening() throws {
        let folder = try scratch()
        for (path, says) in [("/no/such/folder/s.scenario", "the directory /no/such/folder does not exist"), (folder, "is a directory")] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Repo.storefrontBinary)
            process.arguments = ["--record-scenario", path, "--catalog", Repo.catalogPath]
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = Pipe()
            try process.run()
            process.waitUntilExit()
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(process.terminationStatus == 2)
            #expect(text.contains("--record-scenario") && text.contains(says), "\(text)")
        }
    }
}

/// Seen at the QA desk: `storefront run` had no colour on a terminal; the Markdown report showed
/// `…/Scenarios/../../catalog.json` and no summary table; JUnit time held ~2 s of retries per failed check.
@Suite struct ReportsAtTheDeskTests {
    @Test("storefront run colours marks and verdicts on a terminal, never into a pipe or under NO_COLOR")
    func colourOnATerminal() {
        #expect(ScenarioReport.colours(isTerminal: true, environment: ["TERM": "xterm-256color"]))
        #expect(!ScenarioReport.colours(isTerminal: false, environment: ["TERM": "xterm-256color"]))
        #expect(!ScenarioReport.colours(isTerminal: true, environment: ["TERM": "xterm", "NO_COLOR": "1"]))
        #expect(!ScenarioReport.colours(isTerminal: true, environment: ["TERM": "dumb"]))
        #expect(ScenarioReport.painted("  ✓ 12  expect entitled x") == "  \u{1B}[32m✓\u{1B}[0m 12  expect entitled x")
        #expect(ScenarioReport.painted("  ✗ 3   expect x\n        expected: yes").hasPrefix("  \u{1B}[31m✗\u{1B}[0m 3"))
        #expect(ScenarioReport.painted("  FAILED (1 step)").contains("\u{1B}[31mFAILED"))
        #expect(ScenarioReport.painted("2 passed, 1 failed") == "\u{1B}[31m2 passed, 1 failed\u{1B}[0m")
        #expect(ScenarioReport.painted("▶ Refunds (refunds.scenario)") == "▶ Refunds (refunds.scenario)")
    }

    func result(failing: Bool) async throws -> ScenarioResult {
        let dir = NSTemporaryDirectory() + "reports-" + UUID().uuidString + "/Scenarios"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let path = dir + "/r.scenario"
        try "# Report\ncatalog ../../\(URL(fileURLWithPath: Repo.catalogPath).lastPathComponent)\nbuy com.lumenquest.pro\nexpect \(failing ? "not " : "")entitled com.lumenquest.pro\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        let scenario = try ScenarioParser.parse(file: path)
        let runner = ScenarioRunner(scenario: scenario, catalog: Repo.catalog)
        await runner.setPatience(.seconds(1))
        var result = await runner.run()
        result.catalogPath = try #require(scenario.catalogPath)
        return result
    }

    @Test("the Markdown report has a summary table and paths without ..")
    func markdownSummaryAndPaths() async throws {
        let result = try await result(failing: false)
        #expect(result.catalogPath.contains("/../"))
        let md = ScenarioReport.markdown([result])
        #expect(md.contains("| Scenario | Result | Passed | Failed | Not reached |"))
        #expect(md.contains("| Report | ✅ passed | 2 | 0 | 0 |"), "\(md)")
        #expect(!md.contains("/../") && !md.contains("/./"), "\(md)")
    }

    @Test("JUnit time leaves out the retries of a check that failed")
    func junitTimeWithoutRetries() async throws {
        let result = try await result(failing: true)
        #expect(!result.passed && result.duration >= 1)
        let xml = ScenarioReport.junit([result])
        let time = try #require(xml.firstMatch(of: /time="([0-9.]+)"/).flatMap { Double($0.1) })
        #expect(time < result.duration - 0.9, "\(time) of \(result.duration)")
    }
}
