import Foundation
import Testing
import StoreClient
import TerminalUI
@testable import StorefrontApp

/// The demo driver's plans: what a presenter would press for each step, checked against the real reducer.
@Suite struct WalkthroughDemoTests {
    func action(_ line: String) throws -> StoreCommand {
        guard case .action(let a) = try ScenarioParser.parse(line, path: "/tmp/d.scenario").steps[0].kind else { throw CancellationError() }
        return a
    }

    @Test func buyIsNavigateEnterPauseConfirm() async throws {
        let state = try await fixtureState(purchases: false)
        let moves = DemoPlan.moves(for: try action("buy com.lumenquest.removeads"), in: state)
        #expect(moves == [.key(.down), .key(.down), .key(.down), .pause(1), .key(.enter), .pause(1), .pause(2), .key(.enter), .waitIdle])
    }

    @Test func buyFromAnotherScreenSwitchesFirstAndUsesQuantityAndCancel() async throws {
        var state = try await fixtureState(purchases: false)
        press(&state, .character("3"))
        let moves = DemoPlan.moves(for: try action("cancel com.lumenquest.coins.100 quantity 3"), in: state)
        #expect(moves == [.key(.character("1")), .pause(1), .key(.enter), .pause(1), .key(.character("+")), .key(.character("+")),
                          .pause(2), .key(.right), .pause(1), .key(.enter), .waitIdle])
    }

    /// The keys go in as the driver sends them, through a demo's walk state.
    func demo(_ state: AppState) -> WalkthroughState {
        WalkthroughState(app: state, walk: WalkState(scenario: Scenario(path: "d.scenario", title: "d", steps: []), isDemo: true))
    }

    @Test func pressingThePlannedKeysBuysTheProduct() async throws {
        var state = demo(try await fixtureState(purchases: false))
        let moves = try #require(DemoPlan.moves(for: try action("buy com.lumenquest.pro.monthly"), in: state.app))
        var effects: [WalkthroughEffect] = []
        for case .key(let key) in moves { effects += reduce(&state, .walk(.demoKey(key))) }
        guard case .app(.command(.buy(let id, _, _, _, _, _, _, _, .confirm)))? = effects.last else { Issue.record("no purchase: \(effects)"); return }
        #expect(id == "com.lumenquest.pro.monthly")
    }

    @Test func approveGoesThroughTheQAPanelMenu() async throws {
        var state = demo(try await fixtureState())  // Remove Ads waits for approval
        let moves = try #require(DemoPlan.moves(for: try action("approve com.lumenquest.removeads"), in: state.app))
        var effects: [WalkthroughEffect] = []
        for case .key(let key) in moves { effects += reduce(&state, .walk(.demoKey(key))) }
        guard case .app(.command(.control(.approve, _)))? = effects.last else { Issue.record("no approval: \(effects)"); return }
        #expect(moves.first == .key(.character("4")))
    }

    @Test func whatKeysCannotShowIsDoneDirectly() async throws {
        let state = try await fixtureState(purchases: false)
        #expect(DemoPlan.moves(for: try action("buy com.lumenquest.removeads ask-to-buy"), in: state) == nil)
        #expect(DemoPlan.moves(for: try action("advance P3D"), in: state) == nil)
        #expect(DemoPlan.moves(for: try action("approve com.lumenquest.removeads"), in: state) == nil, "nothing pending")
    }

    /// Seen on stage: "Renewed Lumen Quest Pro.yearly".
    @Test func statusNamesTheProductWhoseIDIsAPrefixOfAnother() async throws {
        var state = try await fixtureState(purchases: false)
        _ = reduce(&state, .appEvent(AppEvent.renewed(productID: "com.lumenquest.pro.yearly")))
        #expect(state.status == "Renewed Pro Yearly")
    }
}
