import Foundation
import StoreCore

/// `storefront run FILE...`: runs scenarios headless, prints each step with ✓/✗, ends with
/// `N passed, N failed`. Exit 0 when all pass, 1 on any failure, 2 when a file does not parse.
enum RunCommand {
    static func run(_ options: CommandLineOptions) async throws -> Int32 {
        // Each line leaves at once, also into a pipe or a file: a run that is killed still shows its steps.
        let paint = ScenarioReport.colours(isTerminal: isatty(STDOUT_FILENO) == 1, environment: ProcessInfo.processInfo.environment)
        return try await run(options) { print(paint ? ScenarioReport.painted($0) : $0); fflush(nil) }
    }

    static func run(_ options: CommandLineOptions, output: @Sendable (String) -> Void) async throws -> Int32 {
        // Every file parses, and names only what its catalog has, and the reports can be written, before anything runs.
        try OutputFile.check(options)
        var scenarios: [(Scenario, StoreContext)] = []
        for path in options.files {
            do {
                let scenario = try ScenarioParser.parse(file: path)
                let context = try StoreContext.resolve(options, catalogPath: scenario.catalogPath)
                try ScenarioParser.validate(scenario, against: context.catalog)
                scenarios.append((scenario, context))
            } catch let error as ScenarioError {
                Console.error("storefront: \(error)")
                return 2
            } catch {
                Console.error("storefront: \(URL(fileURLWithPath: path).lastPathComponent): \(error)")
                return 2
            }
        }
        let ledger = try StoreContext.ledger(options)
        try ledger?.check()
        var results: [ScenarioResult] = []
        for (scenario, context) in scenarios {
            let runner = ScenarioRunner(scenario: scenario, catalog: context.catalog, storefront: context.storefront.code,
                                        locale: context.locale, stateDirectory: options.statePath, ledger: ledger,
                                        prepare: { try await StoreContext.applyOverrides(options, to: $0) })
            output(ScenarioReport.header(scenario))
            var result = await runner.run { output(ScenarioReport.line($0)) }
            result.catalogPath = scenario.catalogPath ?? options.catalogPath ?? "catalog.json"
            output(ScenarioReport.footer(result))
            results.append(result)
        }
        if let path = options.junitPath { try ScenarioReport.junit(results).write(toFile: path, atomically: true, encoding: .utf8) }
        if let path = options.reportPath { try ScenarioReport.markdown(results).write(toFile: path, atomically: true, encoding: .utf8) }
        output(ScenarioReport.summary(results))
        return results.allSatisfy(\.passed) ? 0 : 1
    }
}

/// Report files (`--report`, `--junit`) are checked before anything runs: a run must not end,
/// minutes later, without the report it was for.
enum OutputFile {
    static func check(_ options: CommandLineOptions) throws(UsageError) {
        if let path = options.junitPath { try check(path, option: "--junit") }
        if let path = options.reportPath { try check(path, option: "--report") }
    }

    static func check(_ path: String, option: String) throws(UsageError) {
        func fail(_ problem: String) -> UsageError { UsageError(description: "\(option) \(path): \(problem)") }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            if isDirectory.boolValue { throw fail("is a directory; name a file to write") }
            if access(path, W_OK) != 0 { throw fail("cannot be written (check its permissions)") }
            return
        }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) else { throw fail("the directory \(directory) does not exist") }
        if !isDirectory.boolValue { throw fail("\(directory) is not a directory") }
        if access(directory, W_OK) != 0 { throw fail("cannot create a file in \(directory) (check its permissions)") }
    }
}
