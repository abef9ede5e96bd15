import Foundation
import Testing
import TerminalUI
@testable import StorefrontApp

/// Seen walking `ask-to-buy-declined.scenario` by hand: nothing said its first step needs `x`; `p`
/// left the purchase made by hand in place unsaid; the report did not tell applied steps from steps
/// done by hand and marked unreached ones "✗ failed"; `q` ended the walk without asking.
@Suite struct WalkAtTheDeskTests {
    static let text = """
        # Ask to Buy, declined
        buy com.lumenquest.coins.100 ask-to-buy
        expect result pending askToBuy
        buy com.lumenquest.removeads
        expect entitled com.lumenquest.removeads
        decline com.lumenquest.coins.100
        """

    static func walking() async throws -> WalkthroughState {
        WalkthroughState(app: try await fixtureState(purchases: false),
                         walk: WalkState(scenario: try ScenarioParser.parse(text, path: "/tmp/declined.scenario")))
    }

    @Test("a step only x can do says so when the walk reaches it; one keys can do does not")
    func hintForStepsOnlyXCanDo() async throws {
        var state = try await Self.walking()
        #expect(reduce(&state, .walk(.begin)).isEmpty)
        #expect(state.status.hasPrefix("Press x: 'buy 100 Coins ask-to-buy'"), "\(state.status)")
        state.walk.current = 1
        press(&state, .character("n"))  // on to a purchase the payment sheet makes
        #expect(state.walk.current == 2)
        #expect(!state.status.hasPrefix("Press x"), "\(state.status)")
    }

    @Test("p after a step done by hand says what stays in the store and how to undo it")
    func previousSaysWhatStays() async throws {
        var state = try await Self.walking()
        state.walk.current = 2
        press(&state, .character("n"))  // bought by hand
        press(&state, .character("p"))
        #expect(state.walk.current == 2)
        #expect(state.status.contains("stays in the store") && state.status.contains("refund or delete"), "\(state.status)")
    }

    @Test("the report tells applied, done by hand, failed and not reached apart")
    func reportVerdicts() async throws {
        var state = try await Self.walking()
        let step = state.walk.items[0].step
        _ = reduce(&state, .walk(.applied(0, StepResult(step: step, outcome: .passed, note: "pending askToBuy"))))
        state.walk.current = 2
        press(&state, .character("n"))  // done by hand
        press(&state, .character("n"))  // a check that does not hold: failed
        let scenario = try ScenarioParser.parse(Self.text, path: "/tmp/declined.scenario")
        let result = state.walk.result(scenario, catalogPath: "/tmp/../tmp/catalog.json", storefront: "USA", duration: 1)
        #expect(!result.passed)
        let md = ScenarioReport.markdown([result])
        #expect(md.contains("| 2 | `buy com.lumenquest.coins.100 ask-to-buy` | ✓ applied (x) |"), "\(md)")
        #expect(md.contains("| 4 | `buy com.lumenquest.removeads` | ✓ done by hand |"), "\(md)")
        #expect(md.contains("| 5 | `expect entitled com.lumenquest.removeads` | ✗ failed |"), "\(md)")
        #expect(md.contains("| 6 | `decline com.lumenquest.coins.100` | not reached |"), "\(md)")
        #expect(md.contains("`/tmp/catalog.json`"))
    }

    @Test("q asks before it ends a walk; Keep Walking goes on, Quit Walk quits")
    func quitAsksFirst() async throws {
        var state = try await Self.walking()
        #expect(press(&state, .character("q")).isEmpty)
        #expect(!state.shouldQuit)
        guard case .confirm(let sheet)? = state.app.top else { Issue.record("no question: \(String(describing: state.app.top))"); return }
        #expect(sheet.yes == "Quit Walk" && sheet.no == "Keep Walking")
        press(&state, .escape)
        #expect(state.app.top == nil && !state.shouldQuit)
        press(&state, .character("q"))
        #expect(press(&state, .enter).isEmpty && state.app.top == nil, "Enter keeps walking: the safe button is the default")
        press(&state, .character("q"))
        #expect(press(&state, .left, .enter) == [.app(.quit)])
    }
}
