import Foundation

/// How results are written: console lines, JUnit XML (a testsuite per file, a testcase per step that is an
/// expectation or that failed), and a Markdown report for a QA ticket.
public enum ScenarioReport {
    public static func header(_ scenario: Scenario) -> String { "▶ \(scenario.title) (\(scenario.name))" }

    /// One step: `  ✓ 12  expect entitled com.lumenquest.pro`, and on ✗ what differed.
    public static func line(_ r: StepResult) -> String {
        let mark = switch r.outcome { case .passed: "✓"; case .failed: "✗"; case .skipped: "-"; case .notReached: "·" }
        var text = "  \(mark) \(String(r.step.line).padding(toLength: 4, withPad: " ", startingAt: 0))\(r.step.text)"
        if r.outcome == .passed, let note = r.note { text += "  → \(note)" }
        if r.outcome == .failed {
            if let expected = r.expected { text += "\n        expected: \(expected)\n        actual:   \(r.actual ?? "")" }
            if let note = r.note { text += "\n        error: \(note)" }
        }
        return text
    }

    public static func footer(_ result: ScenarioResult) -> String {
        if let error = result.setupError { return "  ✗ \(error)" }
        let failed = result.steps.filter { $0.outcome == .failed }.count
        return failed == 0 ? "  passed" : "  FAILED (\(failed) step\(failed == 1 ? "" : "s"))"
    }

    public static func summary(_ results: [ScenarioResult]) -> String {
        let passed = results.filter(\.passed).count
        return "\(passed) passed, \(results.count - passed) failed"
    }

    // MARK: JUnit

    public static func junit(_ results: [ScenarioResult]) -> String {
        var xml = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>", "<testsuites name=\"storefront run\">"]
        for result in results {
            let cases = result.steps.filter { $0.step.isExpectation || $0.outcome == .failed }
            let failures = cases.filter { $0.outcome == .failed }.count
            let skipped = cases.filter { $0.outcome == .skipped }.count
            xml.append("  <testsuite name=\"\(escape(result.scenario.name))\" tests=\"\(cases.count)\" failures=\"\(failures)\" "
                + "errors=\"\(result.setupError == nil ? 0 : 1)\" skipped=\"\(skipped)\" time=\"\(String(format: "%.3f", result.workTime))\">")
            if let error = result.setupError { xml.append("    <error message=\"\(escape(error))\"/>") }
            for r in cases {
                let name = "line \(r.step.line): \(r.step.text)"
                xml.append("    <testcase classname=\"\(escape(result.scenario.title))\" name=\"\(escape(name))\">")
                switch r.outcome {
                case .failed:
                    let message = r.expected.map { "expected \($0), got \(r.actual ?? "")" } ?? r.note ?? "failed"
                    xml.append("      <failure message=\"\(escape(message))\">\(escape("\(result.scenario.name):\(r.step.line): \(message)"))</failure>")
                case .skipped: xml.append("      <skipped/>")
                case .notReached: xml.append("      <skipped message=\"not reached\"/>")
                case .passed: break
                }
                xml.append("    </testcase>")
            }
            xml.append("  </testsuite>")
        }
        xml.append("</testsuites>")
        return xml.joined(separator: "\n") + "\n"
    }

    static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    // MARK: Markdown

    public static func markdown(_ results: [ScenarioResult], date: Date = Date()) -> String {
        var md = ["# Storefront scenario report", "",
                  "- Date: \(ISO8601DateFormatter().string(from: date))",
                  "- Result: \(summary(results))", "",
                  "| Scenario | Result | Passed | Failed | Not reached |", "|---|---|---:|---:|---:|"]
        md += results.map { r in
            let count = { (o: StepResult.Outcome) in r.steps.filter { $0.outcome == o }.count }
            return "| \(cell(r.scenario.title)) | \(r.passed ? "✅ passed" : "❌ failed") | \(count(.passed)) | \(count(.failed)) | \(count(.skipped) + count(.notReached)) |"
        } + [""]
        for result in results {
            md += ["## \(result.passed ? "✅" : "❌") \(result.scenario.title)", "",
                   "- File: `\(normalized(result.scenario.path))`",
                   "- Catalog: `\(normalized(result.catalogPath))`",
                   "- Storefront: \(result.storefront)", ""]
            if let error = result.setupError { md += ["**Could not start:** \(error)", ""] }
            md += ["| Line | Step | Result | Details |", "|---:|---|---|---|"]
            for r in result.steps {
                let details = r.outcome == .failed
                    ? (r.expected.map { "expected `\($0)`, got `\(r.actual ?? "")`" } ?? r.note ?? "")
                    : (r.note ?? "")
                md.append("| \(r.step.line) | `\(cell(r.step.text))` | \(verdict(r)) | \(cell(details)) |")
            }
            md.append("")
        }
        return md.joined(separator: "\n")
    }

    /// A step's result in words: a walk's actions say whether the tester did them or `x` applied them.
    static func verdict(_ r: StepResult) -> String {
        switch r.outcome {
        case .passed where r.note?.hasPrefix(WalkState.appliedNote) == true: "✓ applied (x)"
        case .passed where r.note == WalkState.byHandNote: "✓ done by hand"
        case .passed: "✓"
        case .failed: "✗ failed"
        case .skipped: "skipped"
        case .notReached: "not reached"
        }
    }

    static func cell(_ s: String) -> String { s.replacingOccurrences(of: "|", with: "\\|") }

    /// A path without `..` and `.` (`…/Scenarios/../../catalog.json` is the catalog beside the repository's Tests).
    static func normalized(_ path: String) -> String {
        path.isEmpty ? path : URL(fileURLWithPath: path).standardizedFileURL.path
    }

    // MARK: Colour

    /// A console line with its mark and verdict coloured (green ✓ and passed, red ✗ and FAILED), for a terminal.
    public static func painted(_ line: String) -> String {
        let (green, red, plain) = ("\u{1B}[32m", "\u{1B}[31m", "\u{1B}[0m")
        var text = line
        for (word, colour) in [("✓", green), ("✗", red), ("FAILED", red), ("passed", green)] {
            guard let range = text.range(of: word), text[..<range.lowerBound].allSatisfy(\.isWhitespace) else { continue }
            text.replaceSubrange(range, with: colour + word + plain)
            return text
        }
        if let match = text.wholeMatch(of: /(\d+) passed, (\d+) failed/) {
            return (match.2 == "0" ? green : red) + text + plain
        }
        return text
    }

    /// Colour only on a terminal, never into a pipe or a file, and never under NO_COLOR or TERM=dumb.
    public static func colours(isTerminal: Bool, environment: [String: String]) -> Bool {
        isTerminal && environment["NO_COLOR"] == nil && environment["TERM"] != "dumb"
    }
}
