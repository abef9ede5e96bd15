import Foundation
import Testing
import StoreCore
@testable import StorefrontApp
import StorefrontTestSupport

/// Paths of the repository, found from this file.
enum ScenarioPaths {
    static let tests = Repo.root.appendingPathComponent("Tests")
    static let library = tests.appendingPathComponent("Scenarios")
    static let catalog = tests.deletingLastPathComponent().appendingPathComponent("catalog.json").path

    /// Every `*.scenario` in Tests/Scenarios, by file name.
    static var all: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: library.path)) ?? [])
            .filter { $0.hasSuffix(".scenario") }.sorted()
    }
}

@Suite("Scenario library (Tests/Scenarios)")
struct ScenarioLibraryTests {
    @Test("the library is there")
    func libraryIsNotEmpty() {
        #expect(ScenarioPaths.all.count >= 20)
    }

    /// A domain bug makes its scenario fail here, with the steps that differed.
    @Test("scenario passes", arguments: ScenarioPaths.all)
    func scenarioPasses(_ name: String) async throws {
        let scenario = try ScenarioParser.parse(file: ScenarioPaths.library.appendingPathComponent(name).path)
        let catalog = try CatalogLoader.load(path: scenario.catalogPath ?? ScenarioPaths.catalog)
        try ScenarioParser.validate(scenario, against: catalog)
        let result = await ScenarioRunner(scenario: scenario, catalog: catalog).run()
        if !result.passed {
            let failures = result.steps.filter { $0.outcome == .failed }.map(ScenarioReport.line)
            Issue.record(Comment(rawValue: "\(name) failed:\n" + (result.setupError.map { [$0] } ?? failures).joined(separator: "\n")))
        }
    }
}
