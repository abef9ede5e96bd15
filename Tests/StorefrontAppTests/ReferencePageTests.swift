import Foundation
import Testing
import StorefrontTestSupport
@testable import StorefrontApp

/// The generated pages under `docs/` against the code they are made from. `RECORD_DOCS=1` rewrites them
/// (review the diff as you would the code change that caused it).
@Suite struct ReferencePageTests {
    static let record = ProcessInfo.processInfo.environment["RECORD_DOCS"] == "1"

    @Test("each generated page under docs/ is what the key map and the command table make now",
          arguments: ReferencePages.all.map(\.path))
    func pageMatchesTheCode(path: String) throws {
        let text = try #require(ReferencePages.all.first { $0.path == path }).text
        let url = Repo.root.appendingPathComponent(path)
        if Self.record { try text.write(to: url, atomically: true, encoding: .utf8); return }
        let page = try String(contentsOf: url, encoding: .utf8)
        if page != text {
            Issue.record(Comment(rawValue: "\(path) differs from the code (RECORD_DOCS=1 rewrites it):\n"
                + LineDiff.unified(from: page, to: text, oldName: path, newName: "generated")))
        }
    }

    @Test("the keys page names every key of every screen and sheet")
    func keysPageNamesEveryBinding() {
        for place in ReferencePages.places {
            #expect(ReferencePages.keys.contains("## \(place.title)\n"))
            for binding in place.bindings {
                #expect(ReferencePages.keys.contains("| \(binding.label) |"), "\(place.title): \(binding.label)")
            }
        }
        #expect(ReferencePages.places.contains { $0.title == "Payment sheet" && $0.bindings.contains { $0.action == .nextPlan } })
    }

    @Test("the scenario-steps page gives every step's usage and help")
    func stepsPageGivesUsageAndHelp() {
        let page = ReferencePages.scenarioSteps
        #expect(page.contains("| `wait DURATION` | Wall-clock time passes. · 500ms, 31s, 2m; at most 10m |"))
        #expect(page.contains("| `refund PRODUCT [prorated] [developerIssue]` | QA panel: *Refund*, *Refund (prorated)*, *Refund (app issue)*, *Refund (prorated, app issue)* |"))
        #expect(page.contains("| `catalog FILE` |"))
        #expect(page.contains("| `expect [not] entitled PRODUCT` |"))
        #expect(page.contains("`set SETTING on\\|off \\| set timeRate RATE \\| set appAccountToken UUID\\|none`"), "a | in a cell is escaped")
    }

    @Test("every step and every check has help: a step that is not a tester control needs a line in stepHelp")
    func everyStepHasHelp() {
        for step in CommandTable.steps {
            let isControl = TesterControl.table.contains { $0.step.split(separator: " ")[0] == step.keyword }
            #expect(isControl || ReferencePages.stepHelp[step.keyword] != nil, "\(step.keyword) has no help")
        }
        for probe in ScenarioExpectation.Probe.allCases {
            #expect(ReferencePages.checkHelp[probe] != nil, "expect \(probe.rawValue) has no help")
        }
    }
}
