import Foundation
import Testing
import TerminalUI
@testable import StorefrontApp

/// The walk checklist as pure state: ticks, ✗ with why, navigation, set-up steps applying themselves.
@Suite struct WalkthroughTests {
    static let text = """
        # Ask to Buy
        set askToBuy on
        buy com.lumenquest.removeads
        expect result pending askToBuy
        expect transactions 0
        approve com.lumenquest.removeads
        expect entitled com.lumenquest.removeads
        restart
        expect entitled com.lumenquest.removeads
        """

    static func walking(isDemo: Bool = false) async throws -> WalkthroughState {
        WalkthroughState(app: try await fixtureState(purchases: false),
                         walk: WalkState(scenario: try ScenarioParser.parse(text, path: "/tmp/ask.scenario"), isDemo: isDemo))
    }

    @Test func setUpStepsApplyThemselvesThenTheCursorWaitsOnTheTestersAction() async throws {
        var state = try await Self.walking()
        #expect(reduce(&state, .walk(.begin)) == [.walk(.apply(0))])
        let applied = StepResult(step: state.walk.items[0].step, outcome: .passed)
        #expect(reduce(&state, .walk(.applied(0, applied))).isEmpty)
        #expect(state.walk.current == 1)
        #expect(state.walk.items[0].mark == .passed)
        // On an action nothing is checked: a check that holds before the tester acts proves nothing.
        #expect(state.walk.live.isEmpty)
    }

    @Test func checksTickAndTheCursorSkipsWhatHolds() async throws {
        var state = try await Self.walking()
        state.walk.current = 1
        press(&state, .character("n"))
        #expect(state.walk.items[1].mark == .passed && state.walk.items[1].note == "done by hand")
        #expect(state.walk.live == [2, 3])
        _ = reduce(&state, .walk(.checked([WalkCheck(index: 2, passed: false, actual: "none"),
                                           WalkCheck(index: 3, passed: true, actual: "0")])))
        #expect(state.walk.items[3].mark == .passed)
        #expect(state.walk.current == 2, "stays on the check that does not hold yet")
        _ = reduce(&state, .walk(.checked([WalkCheck(index: 2, passed: true, actual: "pending askToBuy")])))
        #expect(state.walk.current == 4, "on to the next action once its checks hold")
    }

    @Test func movingPastACheckThatDoesNotHoldFailsItWithWhy() async throws {
        var state = try await Self.walking()
        state.walk.current = 2
        _ = reduce(&state, .walk(.checked([WalkCheck(index: 2, passed: false, actual: "purchased")])))
        press(&state, .character("n"))
        let item = state.walk.items[2]
        #expect(item.mark == .failed)
        #expect(state.walk.current == 3)
        #expect(state.status == "✗ expect result pending askToBuy: got purchased")
        let why = WalkPanel.lines(state.walk, width: 60).map(\.text)
        #expect(why.contains("      expected pending askToBuy, got purchased"))
    }

    @Test func previousGoesBackToTheActionAndReopensItsChecks() async throws {
        var state = try await Self.walking()
        state.walk.current = 2
        press(&state, .character("n"), .character("p"))
        #expect(state.walk.current == 1)
        #expect(state.walk.items[1...3].allSatisfy { $0.mark == .pending })
    }

    @Test func applyRunsTheStepThroughTheRunnerButNotARestart() async throws {
        var state = try await Self.walking()
        state.walk.current = 4
        #expect(press(&state, .character("x")) == [.walk(.apply(4))])
        state.walk.current = 2
        #expect(press(&state, .character("x")).isEmpty)
        #expect(state.status == "Only actions can be applied: this is a check")
        // A restart is skipped when reached: the TUI is the app.
        state.walk.current = 5
        press(&state, .character("n"))
        #expect(state.walk.items[6].mark == .skipped)
        #expect(state.walk.current == 7)
    }

    /// The app's mouse handling knows no walk: the layer takes clicks on its own footer hints.
    @Test func clickingAWalkHintInTheFooterDoesWhatItsKeyDoes() async throws {
        var state = try await Self.walking()
        state.walk.current = 4
        let x = try #require((0..<state.size.width).first { MouseInput.footerHint(x: $0, state.app)?.label == "Apply" })
        #expect(press(&state, .mouse(Mouse(.click, x: x, y: state.size.height - 1))) == [.walk(.apply(4))])
    }

    @Test func theEndWritesTheReport() async throws {
        var state = try await Self.walking()
        state.walk.current = 7
        _ = reduce(&state, .walk(.checked([WalkCheck(index: 7, passed: false, actual: "no")])))
        #expect(press(&state, .character("n")) == [.walk(.save)])
        #expect(state.status == "Walk finished: 0 checks passed, 1 failed")
        let result = state.walk.result(try ScenarioParser.parse(Self.text, path: "/tmp/ask.scenario"), catalogPath: "c.json",
                                        storefront: "USA", duration: 0)
        #expect(result.steps.map(\.outcome) == [.skipped, .skipped, .skipped, .skipped, .skipped, .skipped, .skipped, .failed])
        #expect(ScenarioReport.markdown([result]).contains("| 9 | `expect entitled com.lumenquest.removeads` | ✗ failed | expected `yes`, got `no` |"))
    }

    @Test func aWalkLeftEarlyDoesNotPass() async throws {
        var state = try await Self.walking()
        state.walk.current = 1
        press(&state, .character("n"))
        let result = state.walk.result(try ScenarioParser.parse(Self.text, path: "/tmp/ask.scenario"), catalogPath: "c.json",
                                        storefront: "USA", duration: 0)
        #expect(!result.passed)
        #expect(result.steps[1].outcome == .passed && result.steps[2].outcome == .notReached)
    }

    @Test func demoKeysPauseAndQQuits() async throws {
        var state = try await Self.walking(isDemo: true)
        press(&state, .enter)
        #expect(state.walk.paused && state.sheets.isEmpty, "a key pauses; it does not reach the store")
        press(&state, .character("x"))
        #expect(!state.walk.paused)
        #expect(press(&state, .character("q")) == [.app(.quit)])
        // The driver's own keys do reach the store, and show in the status line.
        var demo = try await Self.walking(isDemo: true)
        _ = reduce(&demo, .walk(.demoKey(.enter)))
        #expect(demo.top != nil && demo.status == "⌨ Enter  Buy")
        #expect(demo.walk.isDemo)
    }
}
