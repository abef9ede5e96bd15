import Foundation
import StoreCore

/// `storefront run FILE...`: runs scenarios headless, prints each step with ✓/✗, ends with
/// `N passed, N failed`. Exit 0 when all pass, 1 on any failure, 2 when a file does not parse.
enum RunCommand {
    static func run(_ options: CommandLineOptions) async throws -> Int32 {
        // Each line leaves at once, also into a pipe or a file: a run that is killed still shows its steps.
        try await run(options) { print($0); fflush(nil) }
    }

    static func run(_ options: CommandLineOptions, output: @Sendable (String) -> Void) async throws -> Int32 {
        // Every file parses, and names only what its catalog has, before anything runs.
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
        var results: [ScenarioResult] = []
        for (scenario, context) in scenarios {
            let runner = ScenarioRunner(scenario: scenario, catalog: context.catalog, storefront: context.storefront.code,
                                        locale: context.locale, stateDirectory: options.statePath,
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
