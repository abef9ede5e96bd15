import Foundation
import Testing
import StoreCore
import StoreEngine
@testable import StorefrontApp
import StorefrontTestSupport

/// One vocabulary for every way a person acts on the store: the scenario language, the QA panel, the
/// demo and the performer all read `TesterControl.table`, `CommandTable` and `TestSetting`, so none drifts.
@Suite struct CommandVocabularyTests {
    static let plus = "com.lumenquest.plus.monthly"

    func command(_ line: String) throws -> StoreCommand {
        guard case .action(let c) = try ScenarioParser.parse(line, path: "/tmp/v.scenario").steps[0].kind else { throw CancellationError() }
        return c
    }

    @Test("every tester control is a scenario step")
    func everyControlParses() throws {
        for spec in TesterControl.table {
            let words = spec.step.split(separator: " ")
            let line = ([words[0], "p"] + words.dropFirst()).joined(separator: " ")
            #expect(try command(line) == .control(spec.control, .newest(productID: "p")), "\(line)")
        }
    }

    @Test("a control's usage lists its forms")
    func controlUsage() {
        let reference = ScenarioParser.reference
        for usage in ["refund PRODUCT [prorated] [developerIssue]", "auto-renew PRODUCT on|off", "price-increase PRODUCT request|agree|decline", "approve PRODUCT"] {
            #expect(reference.contains(usage), "\(usage)")
        }
        #expect(throws: ScenarioError.self) { try command("auto-renew p sometimes") }
        #expect(throws: ScenarioError.self) { try command("price-increase p") }
    }

    @Test("the QA panel's transaction menu is the table's rows that apply, in table order")
    func menuFollowsTheTable() async throws {
        let state = try await fixtureState()
        let plus = try #require(state.ledger.first { $0.payload.productID == Self.plus })
        #expect(QAPanel.actions(plus, state).map(\.label) == [
            "Refund", "Refund (prorated)", "Refund (app issue)", "Refund (prorated, app issue)", "Expire subscription", "Force renewal", "Turn auto-renew off",
            "Request price increase consent", "Agree to price increase", "Decline price increase", "Resolve billing issue",
            "Delete transaction",
        ])
        let pending = try #require(state.ledger.first { $0.status == .pendingApproval })
        #expect(QAPanel.actions(pending, state).map(\.label) == ["Approve Ask to Buy", "Decline Ask to Buy", "Delete transaction"])
    }

    @Test("the demo presses every control the QA menu offers, on the transaction a scenario means")
    func demoShowsEveryOfferedControl() async throws {
        let base = try await fixtureState()
        let entry = try #require(base.ledger.first { $0.payload.productID == Self.plus })
        for item in QAPanel.actions(entry, base) {
            guard case .command(.control(let control, _)) = item.effect else { Issue.record("\(item.label)"); continue }
            var state = WalkthroughState(app: base, walk: WalkState(scenario: Scenario(path: "d.scenario", title: "d", steps: []), isDemo: true))
            let moves = try #require(DemoPlan.moves(for: .control(control, .newest(productID: Self.plus)), in: state.app), "\(item.label)")
            var effects: [WalkthroughEffect] = []
            for case .key(let key) in moves { effects += reduce(&state, .walk(.demoKey(key))) }
            #expect(effects.last == .app(.command(.control(control, .id(entry.id)))), "\(item.label)")
        }
    }

    @Test("the demo shows every test setting through its QA row")
    func demoShowsEverySetting() async throws {
        let state = try await fixtureState(purchases: false)
        for setting in TestSetting.allCases {
            #expect(DemoPlan.moves(for: .set(setting, true), in: state) != nil, "\(setting)")
        }
    }

    @Test("scenarios name settings as the catalog does, and billingRetry still reads")
    func settingNames() throws {
        for setting in TestSetting.allCases {
            #expect(try command("set \(setting.rawValue) on") == .set(setting, true))
        }
        #expect(try command("set billingRetry on") == .set(.billingRetryOnRenewal, true))
    }

    @Test("a scenario's storefront step rejects a malformed locale as the command line does")
    func storefrontLocaleIsChecked() {
        do {
            _ = try ScenarioParser.parse("storefront JPN locale garbage!!", path: "/q/s.scenario")
            Issue.record("accepted a malformed locale")
        } catch {
            #expect("\(error)".hasPrefix("s.scenario:1: unknown locale 'garbage!!'"))
        }
    }

    @Test("a control that cannot apply fails and says why, never a silent success")
    func controlWithoutTargetFails() async throws {
        let (store, manager) = try await liveStore()
        let performer = CommandPerformer(manager: manager, controls: store)
        await #expect(throws: TestControlError("no matching transaction for com.lumenquest.pro in the ledger")) {
            try await performer.perform(.control(.approve, .newest(productID: "com.lumenquest.pro")))
        }
        await manager.stop()
    }

    @Test("a refund request says who decides: the tester in the QA panel, or nobody when requests are approved at once")
    func refundRequestSaysWhoDecides() async throws {
        let (store, manager) = try await liveStore()
        let performer = CommandPerformer(manager: manager, controls: store)
        for approvesAtOnce in [false, true] {
            await store.update { $0.autoApproveRefunds = approvesAtOnce }
            await manager.purchase(approvesAtOnce ? "com.lumenquest.pro" : "com.lumenquest.removeads")
            guard case .done(let message) = try await performer.perform(.requestRefund(.newest(productID: approvesAtOnce ? "com.lumenquest.pro" : "com.lumenquest.removeads"), reason: "Other")) else {
                Issue.record("the request failed"); continue
            }
            #expect(message.contains(approvesAtOnce ? "approved at once" : "decides in the QA panel"), "\(message)")
        }
        await manager.stop()
    }

    @Test("the scenario-steps page names every step")
    func stepsPageListsEveryStep() throws {
        let page = try String(contentsOf: Repo.root.appendingPathComponent("docs/scenario-steps.md"), encoding: .utf8)
        for step in CommandTable.steps {
            #expect(page.contains("`\(step.keyword)"), "\(step.keyword)")
        }
    }
}
