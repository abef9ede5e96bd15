import Foundation
import Testing
import TerminalUI
@testable import StorefrontApp
import StorefrontTestSupport

/// Walk mode as the tester sees it: the checklist below the store at 80×24 and beside it at 120×30,
/// mid-walk with a ✓, a ✗ with why, and a check that does not hold yet.
@Suite struct WalkthroughScreenTests {
    static func midWalk(size: Size) async throws -> WalkthroughState {
        var app = try await fixtureState(purchases: false)
        app.size = size
        let scenario = try ScenarioParser.parse(file: Repo.root.appendingPathComponent("Tests/Scenarios/ask-to-buy-approved.scenario").path)
        var state = WalkthroughState(app: app, walk: WalkState(scenario: scenario, naming: (Repo.catalog, "en_US")))
        _ = reduce(&state, .walk(.applied(0, StepResult(step: scenario.steps[0], outcome: .passed))))
        state.selection[.store] = 3
        press(&state, .character("n"))
        _ = reduce(&state, .walk(.checked([
            WalkCheck(index: 2, passed: true, actual: "pending askToBuy"),
            WalkCheck(index: 3, passed: false, actual: "Purchase cancelled"),
        ])))
        press(&state, .character("n"))
        _ = reduce(&state, .walk(.checked([WalkCheck(index: 4, passed: false, actual: "yes")])))
        return state
    }

    @Test func walk80x24() async throws {
        let size = Size(width: 80, height: 24)
        try GoldenScreenTests().assertScreen("walk-80x24", render(try await Self.midWalk(size: size), size: size).text)
    }

    @Test func walk120x30() async throws {
        let size = Size(width: 120, height: 30)
        try GoldenScreenTests().assertScreen("walk-120x30", render(try await Self.midWalk(size: size), size: size).text)
    }

    @Test func walkHiddenAt80x24KeepsOneLine() async throws {
        let size = Size(width: 80, height: 24)
        var state = try await Self.midWalk(size: size)
        press(&state, .character("w"))
        try GoldenScreenTests().assertScreen("walk-hidden-80x24", render(state, size: size).text)
    }

    @Test func demoWithPaymentSheet120x30() async throws {
        let size = Size(width: 120, height: 30)
        var state = WalkthroughState(app: try await fixtureState(purchases: false), walk: WalkState(scenario: try ScenarioParser.parse(file: Repo.root.appendingPathComponent("Tests/Scenarios/ask-to-buy-approved.scenario").path), isDemo: true, naming: (Repo.catalog, "en_US")))
        state.walk.current = 1
        state.selection[.store] = 3
        _ = reduce(&state, .walk(.demoKey(.enter)))
        try GoldenScreenTests().assertScreen("demo-payment-120x30", render(state, size: size).text)
    }
}
