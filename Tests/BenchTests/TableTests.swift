import Testing
@testable import storefront_bench

/// The results table, as the README shows it.
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
}
