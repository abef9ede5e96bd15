import Foundation
import Locking
import Testing
import StoreCore
@testable import StorefrontApp

/// Lines a command printed.
final class Lines: Sendable {
    let lines = Locked<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var text: String { lines.withLock { $0.joined(separator: "\n") } }
    var last: String? { lines.withLock { $0.last } }
}

@Suite("Scenario runner and storefront run")
struct ScenarioRunnerTests {
    func write(_ text: String, name: String = "t.scenario") throws -> String {
        let dir = NSTemporaryDirectory() + "scenario-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let path = dir + "/" + name
        try ("catalog \(ScenarioPaths.catalog)\n" + text).write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func run(_ text: String) async throws -> ScenarioResult {
        let scenario = try ScenarioParser.parse(file: try write(text))
        let runner = ScenarioRunner(scenario: scenario, catalog: try CatalogLoader.load(path: ScenarioPaths.catalog))
        await runner.setPatience(.milliseconds(100))
        return await runner.run()
    }

    @Test("a failing expectation reports expected and actual, and later steps still run")
    func failingExpectation() async throws {
        let result = try await run("buy com.lumenquest.pro\nexpect not entitled com.lumenquest.pro\nexpect balance com.lumenquest.coins.100 0")
        #expect(!result.passed)
        #expect(result.steps.map(\.outcome) == [.passed, .failed, .passed])
        #expect(result.steps[1].expected == "no" && result.steps[1].actual == "yes")
        #expect(ScenarioReport.line(result.steps[1]).contains("expected: no\n        actual:   yes"))
        #expect(result.steps[0].note?.wholeMatch(of: /purchased \(transaction [0-9]+\)/) != nil, "\(result.steps[0].note ?? "")")
    }

    @Test("a failed action stops the scenario: the rest is skipped")
    func failedAction() async throws {
        let result = try await run("approve com.lumenquest.pro\nexpect ledger 0")
        #expect(result.steps.map(\.outcome) == [.failed, .skipped])
        #expect(result.steps[0].note?.contains("no matching transaction for com.lumenquest.pro") == true)
    }

    @Test("check reads a value now, for a walk mode")
    func check() async throws {
        let scenario = try ScenarioParser.parse("buy com.lumenquest.gems.500 quantity 2", path: "/tmp/w.scenario")
        let runner = ScenarioRunner(scenario: scenario, catalog: try CatalogLoader.load(path: ScenarioPaths.catalog))
        try await runner.start()
        _ = await runner.perform(scenario.steps[0])
        let check = await runner.check(ScenarioExpectation(probe: .balance, subject: ["com.lumenquest.gems.500"], expected: "2"))
        #expect(check.passed && check.actual == "2")
        await runner.close()
    }

    @Test("storefront run: exit 0 and the summary line when all pass")
    func runPasses() async throws {
        var options = CommandLineOptions()
        options.command = .run
        options.files = [try write("# Good\nbuy com.lumenquest.pro\nexpect entitled com.lumenquest.pro")]
        let out = Lines()
        #expect(try await RunCommand.run(options, output: out.append) == 0)
        #expect(out.text.contains("▶ Good (t.scenario)"))
        #expect(out.text.contains("  ✓ 4   expect entitled com.lumenquest.pro"), "\(out.text)")
        #expect(out.last == "1 passed, 0 failed")
    }

    @Test("storefront run: exit 1 on a failure, JUnit XML and Markdown written")
    func runFails() async throws {
        let dir = NSTemporaryDirectory() + "scenario-out-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        var options = CommandLineOptions()
        options.command = .run
        options.files = [try write("# Good\nbuy com.lumenquest.pro\nexpect entitled com.lumenquest.pro", name: "good.scenario"),
                         try write("# Bad <one>\nexpect balance com.lumenquest.coins.100 5", name: "bad.scenario")]
        options.junitPath = dir + "/junit.xml"
        options.reportPath = dir + "/report.md"
        let out = Lines()
        #expect(try await RunCommand.run(options, output: out.append) == 1)
        #expect(out.last == "1 passed, 1 failed")
        #expect(out.text.contains("expected: 5\n        actual:   0"))

        let xml = try String(contentsOfFile: dir + "/junit.xml", encoding: .utf8)
        #expect(xml.contains("<testsuite name=\"good.scenario\" tests=\"1\" failures=\"0\""))
        #expect(xml.contains("<testsuite name=\"bad.scenario\" tests=\"1\" failures=\"1\""))
        #expect(xml.contains("<testcase classname=\"Bad &lt;one&gt;\" name=\"line 3: expect balance com.lumenquest.coins.100 5\">"))
        #expect(xml.contains("<failure message=\"expected 5, got 0\">bad.scenario:3: expected 5, got 0</failure>"))

        let md = try String(contentsOfFile: dir + "/report.md", encoding: .utf8)
        #expect(md.contains("# Storefront scenario report"))
        #expect(md.contains("- Result: 1 passed, 1 failed"))
        #expect(md.contains("## ❌ Bad <one>"))
        #expect(md.contains("- Storefront: USA"))
        #expect(md.contains("- Catalog: `\(ScenarioPaths.catalog)`"))
        #expect(md.contains("| 3 | `expect balance com.lumenquest.coins.100 5` | ✗ failed | expected `5`, got `0` |"))
        #expect(md.contains(/\| 3 \| `buy com.lumenquest.pro` \| ✓ \| purchased \(transaction [0-9]+\) \|/))
    }

    @Test("storefront run: exit 2 on a parse error, before anything runs")
    func runParseError() async throws {
        var options = CommandLineOptions()
        options.command = .run
        options.files = [try write("buy com.lumenquest.pro"), try write("refnd com.lumenquest.pro")]
        let out = Lines()
        #expect(try await RunCommand.run(options, output: out.append) == 2)
        #expect(out.text.isEmpty)
    }

    @Test("expect message matches any event since the last action, not only the last one")
    func messageSinceLastAction() async throws {
        let scenario = try ScenarioParser.parse(file: try write("buy com.lumenquest.pro\nexpect message \"Purchased com.lumenquest.pro\""))
        let runner = ScenarioRunner(scenario: scenario, catalog: try CatalogLoader.load(path: ScenarioPaths.catalog))
        try await runner.start()
        _ = await runner.perform(scenario.steps[0])
        await runner.note(.renewed(productID: "com.lumenquest.plus.monthly"))  // something else spoke last
        let expectation = try #require(scenario.steps[1].isExpectation ? scenario.steps[1] : nil)
        #expect(await runner.perform(expectation).outcome == .passed)
        _ = await runner.perform(ScenarioStep(line: 3, text: "refresh", kind: .action(.refresh)))
        #expect(await runner.perform(expectation).outcome == .failed, "events are read since the last action")
        await runner.close()
    }

    @Test("a transaction field compares with another product's same field")
    func sameAsComparesFields() async throws {
        let result = try await run("""
            buy com.lumenquest.pro
            buy com.lumenquest.removeads
            expect transaction com.lumenquest.pro originalTransactionId same-as com.lumenquest.removeads
            """)
        let check = try #require(result.steps.last)
        #expect(check.outcome == .failed, "two purchases have their own original transactions")
        #expect(check.actual?.contains("(com.lumenquest.removeads: ") == true)
    }

    @Test("storefront run applies --environment to the store it opens")
    func runAppliesEnvironment() async throws {
        var options = CommandLineOptions()
        options.command = .run
        options.environment = .xcode
        options.files = [try write("buy com.lumenquest.pro\nexpect transaction com.lumenquest.pro environment Xcode")]
        let out = Lines()
        #expect(try await RunCommand.run(options, output: out.append) == 0, "\(out.text)")
    }

    @Test("export FILE writes every signed token for a backend, and each verifies against the store's root")
    func exportStep() async throws {
        let path = NSTemporaryDirectory() + "storefront-export-\(UUID().uuidString).json"
        let result = try await run("buy com.lumenquest.pro\nbuy com.lumenquest.plus.monthly\nexport \(path)")
        #expect(result.passed, "\(result.steps.map(ScenarioReport.line))")
        let json = try JSONParser.parse(String(contentsOfFile: path, encoding: .utf8))
        #expect(json["transactions"]?.arrayValue?.count == 2)
        #expect(json["renewalInfo"]?.arrayValue?.count == 1)
        #expect(json["appTransaction"]?.stringValue?.split(separator: ".").count == 3)
    }
}

@Suite("Scenario runner helpers")
struct ScenarioRunnerHelperTests {
    @Test("durations read as ISO periods")
    func durations() {
        let start = Date(timeIntervalSince1970: 1_780_000_000)
        #expect(ScenarioRunner.duration(from: start, to: Period(1, .week).advance(start)) == "P1W")
        #expect(ScenarioRunner.duration(from: start, to: Period(3, .month).advance(start)) == "P3M")
        #expect(ScenarioRunner.duration(from: start, to: Period(1, .year).advance(start)) == "P1Y")
        #expect(ScenarioRunner.duration(from: start, to: start.addingTimeInterval(90)) == "90s")
        #expect(ScenarioRunner.duration(from: start, to: nil) == "none")
    }
}
