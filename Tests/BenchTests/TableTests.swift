import Foundation
import Testing
@testable import storefront_bench

/// The results table, as docs/performance.md shows it.
@Suite("Bench table")
struct TableTests {
    func row(ratio: Double, target: String, pass: Bool) -> Result {
        Result(id: "1b", figure: "1b", measured: 1, baseline: 1, unit: "/s", ratio: ratio, target: target, pass: pass)
    }

    /// A run printed "0.80× | ≥ 0.80× | MISS" for a ratio of 0.796.
    @Test("a ratio that two decimals would round onto its target gets a third, so the row does not contradict its status")
    func ratioNeverReadsAsItsTarget() {
        #expect(Bench.cells(row(ratio: 0.7957, target: "≥ 0.80×", pass: false))[4] == "0.796×")
        #expect(Bench.cells(row(ratio: 1.2049, target: "≤ 1.2×", pass: false))[4] == "1.20×", "the target's own text is \"1.2×\"")
        #expect(Bench.cells(row(ratio: 0.8213, target: "≥ 0.80×", pass: true))[4] == "0.82×")
        #expect(Bench.cells(row(ratio: 0.5, target: "≥ 0.50×", pass: true))[4] == "0.500×")
    }

    /// docs/performance.md says its table is `--markdown`'s output; a change to the format must move the page too.
    @Test("the performance page's table is in the format storefront-bench --markdown writes")
    func performancePageHoldsTheMarkdownTable() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let page = try String(contentsOf: root.appendingPathComponent("docs/performance.md"), encoding: .utf8)
        let heading = Bench.markdown([])
        let start = try #require(page.range(of: heading), "the page has no table headed as --markdown writes it")
        let rows = page[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false).prefix { $0.hasPrefix("| ") }
        #expect(rows.count >= 20, "one whole run's rows")
        for row in rows {
            let cells = row.dropFirst(2).dropLast(2).replacingOccurrences(of: "\\|", with: "").components(separatedBy: " | ")
            #expect(cells.count == Bench.header.count && ["PASS", "MISS", "n/a"].contains(cells[6]), "\(row)")
        }
    }
}
