import Foundation
import StoreClient
import StoreCore
import StoreEngine
import TerminalUI

extension ScenarioRunner {
    /// Walk and demo: check and apply steps on the TUI's own store and app rather than opening new ones,
    /// so a ✓ reads exactly what the screen shows.
    func attach(store: LocalAppStore, manager: StoreManager) {
        self.store = store
        self.manager = manager
        appRunning = true
    }

    /// A purchase made through the TUI's payment sheet, for `expect result`.
    func record(_ result: PurchaseResult) { lastResult = result }
}

/// Rides along `StorefrontTUI`'s run loop in walk and demo mode: sees every event, re-checks the live
/// expectations when the store changes, runs walk effects, and (demo) plays the scenario as key presses.
@MainActor
final class WalkSession: LoopCompanion {
    let scenario: Scenario
    let runner: ScenarioRunner
    let catalogPath: String
    let isDemo: Bool
    let speed: Double
    /// `--report`; a walk falls back to `walk-report.md`, a demo writes none without it.
    let reportPath: String?
    /// The customer's locale: the checklist and captions name products in it.
    let locale: String
    /// Injected so tests never wait.
    var sleep: @Sendable (Duration) async -> Void = { try? await Task.sleep(for: $0) }
    private let started = Date()
    private lazy var latest = WalkthroughState(app: AppState(), walk: initialState)
    private var checking = false
    private var send: @Sendable (WalkEvent) -> Void = { _ in }

    init(scenario: Scenario, catalog: Catalog, catalogPath: String, store: LocalAppStore, manager: StoreManager,
         options: CommandLineOptions) async {
        self.scenario = scenario
        self.catalogPath = catalogPath
        isDemo = options.command == .demo
        speed = options.speed
        reportPath = options.reportPath
        runner = ScenarioRunner(scenario: scenario, catalog: catalog, stateDirectory: options.statePath, ledger: try? StoreContext.ledger(options))
        locale = await manager.snapshot.locale
        await runner.attach(store: store, manager: manager)
    }

    var initialState: WalkState {
        var walk = WalkState(scenario: scenario, isDemo: isDemo, naming: (runner.catalog, locale))
        walk.reportPath = reportPath ?? "walk-report.md"
        walk.writesReport = !isDemo || reportPath != nil
        return walk
    }

    /// Walk: applies the opening set-up steps. Demo: starts playing (the task is the caller's to cancel).
    func start(send: @escaping @Sendable (WalkEvent) -> Void) -> Task<Void, Never> {
        self.send = send
        send(.begin)
        return Task { if isDemo { await play() } }
    }

    /// Called after every event is reduced.
    func observe(_ input: WalkthroughInput, _ state: WalkthroughState) {
        latest = state
        let walk = state.walk
        guard !isDemo, !walk.live.isEmpty, !checking else { return }
        switch input {
        case .event(.tick) where state.tick % 4 != 0, .event(.clock), .event(.inputReady), .event(.resize), .message(.checked): return
        default: break
        }
        checking = true
        let live = walk.live.map { ($0, walk.items[$0].expectation!) }
        Task {
            var checks: [WalkCheck] = []
            for (i, e) in live {
                let (passed, actual) = await runner.check(e)
                checks.append(WalkCheck(index: i, passed: passed, actual: actual))
            }
            checking = false
            send(.checked(checks))
        }
    }

    /// A purchase result reaches the runner before the UI hears of it, so `expect result` sees it.
    func heard(_ outcome: CommandOutcome) async {
        if case .purchase(_, let result) = outcome { await runner.record(result) }
    }

    func perform(_ work: WalkEffect, _ state: WalkthroughState) { run(work, state) }

    func run(_ effect: WalkEffect, _ state: WalkthroughState) {
        switch effect {
        case .apply(let i):
            let step = scenario.steps[i]
            Task { send(.applied(i, await runner.perform(step))) }
        case .save:
            let walk = state.walk
            let result = walk.result(scenario, catalogPath: catalogPath, storefront: state.snapshot.storefront.code,
                                     duration: Date().timeIntervalSince(started))
            do {
                try ScenarioReport.markdown([result]).write(toFile: walk.reportPath, atomically: true, encoding: .utf8)
                send(.saved("Report saved to \(walk.reportPath)"))
            } catch {
                send(.saved("⚠ Cannot save \(walk.reportPath): \(error.localizedDescription)"))
            }
        }
    }

    /// Leaving early still leaves the report that `--report` asked for.
    func close(_ state: WalkthroughState) {
        if reportPath != nil, !state.walk.isFinished { run(.save, state) }
    }

    // MARK: Demo

    private func beat(_ beats: Double) async {
        await sleep(.milliseconds(Int(beats * 1000 / speed)))
        while latest.walk.paused { await sleep(.milliseconds(100)) }
    }

    /// Until the store has answered what the last key set off (bounded: a demo never hangs).
    private func waitIdle() async {
        for _ in 0..<200 where !latest.app.isSettled { await sleep(.milliseconds(50)) }
    }

    private func play() async {
        await beat(1.5)
        for (i, step) in scenario.steps.enumerated() {
            send(.demoCursor(i))
            await beat(0.3)
            switch step.kind {
            case .expect:
                send(.demoCaption("✔ Check: " + DemoCaption.text(step, catalog: runner.catalog, locale: locale)))
                send(.demoDone(i, await runner.perform(step)))
                await beat(0.8)
            case .action(let action) where action.needsRelaunch:
                send(.demoCaption("⤼ " + DemoCaption.text(step, catalog: runner.catalog, locale: locale) + ": skipped, the app cannot restart inside the demo"))
                send(.demoDone(i, StepResult(step: step, outcome: .skipped, note: "needs an app restart")))
                await beat(1.5)
            case .action(let action):
                await dismissSheets()
                if let moves = DemoPlan.moves(for: action, in: latest.app) {
                    send(.demoCaption("▶ " + DemoCaption.text(step, catalog: runner.catalog, locale: locale)))
                    await beat(1)
                    for move in moves {
                        switch move {
                        case .key(let key): send(.demoKey(key)); await beat(0.4)
                        case .pause(let beats): await beat(beats)
                        case .waitIdle: await waitIdle()
                        }
                    }
                    send(.demoDone(i, StepResult(step: step, outcome: .passed, note: "shown with keys")))
                    await beat(0.5)
                    await dismissSheets(showing: 2)
                } else {
                    send(.demoCaption(DemoCaption.direct(step, catalog: runner.catalog, locale: locale)))
                    let result = await runner.perform(step)
                    send(.demoDone(i, result))
                    await beat(1.5)
                }
            }
        }
        send(.demoFinished)
        if reportPath != nil { await beat(0.5); run(.save, latest) }
    }

    /// A result sheet (Ask to Buy, failure) stays up a moment for the audience, then OK.
    private func dismissSheets(showing beats: Double = 0) async {
        guard latest.top != nil else { return }
        await beat(beats)
        for _ in 0..<5 {
            guard let top = latest.top else { return }
            if case .payment = top { return }  // still purchasing: never cancel it
            send(.demoKey(.escape))
            await beat(0.5)
        }
    }
}
