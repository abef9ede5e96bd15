import Foundation
import StoreClient
import StoreCore
import TerminalUI

/// A scenario shown as a checklist beside the store (`storefront walk` and `demo`).
struct WalkState: Sendable, Equatable {
    enum Mark: Sendable, Equatable {
        /// Not reached, or reached and not yet true.
        case pending
        /// An expectation held; an action was performed (by hand, by the demo or applied through the runner).
        case passed
        /// An expectation did not hold when the tester moved past it; an applied action threw.
        case failed
        /// Cannot be done inside the TUI (quit, launch, restart), or never reached.
        case skipped
    }

    struct Item: Sendable, Equatable {
        var step: ScenarioStep
        /// The step as the checklist shows it: in words, products by their display names.
        var label: String
        var mark: Mark = .pending
        /// Expectations: the value last read, shown as "now: …" and, on ✗, as what was there.
        var actual: String?
        /// Actions: how it was done ("by hand", "applied", a purchase result) or why it failed.
        var note: String?

        var expectation: ScenarioExpectation? { if case .expect(let e) = step.kind { e } else { nil } }
        var action: StoreCommand? { if case .action(let a) = step.kind { a } else { nil } }
    }

    var title: String
    var items: [Item]
    /// The step to do now; `items.count` once the walk is over.
    var current = 0
    var isDemo = false
    var paused = false
    /// The demo's caption bar: what the audience is watching, in words (nil outside a demo).
    var caption: String?
    /// A demo played to its end and handed to the presenter.
    var wasDemo = false
    /// `w`: the whole checklist, or one summary line (to see more of the store).
    var showsPanel = true
    var reportPath = "walk-report.md"
    /// The demo writes its report only when asked to (`--report`).
    var writesReport = true

    /// `naming`: the catalog and locale whose display names the checklist uses; without, the steps as written.
    init(scenario: Scenario, isDemo: Bool = false, naming: (catalog: Catalog, locale: String)? = nil) {
        title = scenario.title
        items = scenario.steps.map { step in
            Item(step: step, label: naming.map { DemoCaption.text(step, catalog: $0.catalog, locale: $0.locale) } ?? step.text)
        }
        self.isDemo = isDemo
    }

    var isFinished: Bool { current >= items.count }

    /// How an action was done, as its note and the report say it.
    static let byHandNote = "done by hand", appliedNote = "applied (x)"

    /// The expectations checked live: the current one and those right after it, up to the next action.
    /// None while the cursor is on an action: until the tester has done it, a check that holds proves nothing.
    var live: [Int] {
        var i = current, out: [Int] = []
        while i < items.count, items[i].expectation != nil {
            if items[i].mark == .pending { out.append(i) }
            i += 1
        }
        return out
    }

    var counts: (passed: Int, failed: Int) {
        (items.filter { $0.step.isExpectation && $0.mark == .passed }.count, items.filter { $0.mark == .failed }.count)
    }
}

/// A live check of one expectation.
struct WalkCheck: Sendable, Equatable {
    var index: Int
    var passed: Bool
    var actual: String
}

enum WalkEvent: Sendable {
    case begin
    case checked([WalkCheck])
    /// An action applied through the runner (`a`, set-up steps, or the demo when keys cannot show it).
    case applied(Int, StepResult)
    case saved(String)
    // The demo driver:
    case demoKey(Key)
    case demoCursor(Int)
    case demoCaption(String)
    case demoDone(Int, StepResult)
    /// The demo played to its end: the presenter takes over the storefront.
    case demoFinished
}

enum WalkEffect: Sendable, Equatable {
    case apply(Int)
    case save
}

enum WalkAction: String, Sendable, Equatable {
    case next, previous, apply, togglePanel, save
}

extension WalkState {
    /// An action no key in the storefront performs (a purchase option, an unsigned offer, a prorated
    /// refund…), planned as the demo would press it; one on a transaction not shown yet is not judged.
    static func onlyApplied(_ action: StoreCommand, _ app: AppState) -> Bool {
        var plain = app
        plain.sheets = []
        plain.filter.clear()
        plain.isEditingFilter = false
        if case .control(let control, .newest(let id)) = action, control.target(id, in: app.ledger) == nil { return false }
        return DemoPlan.moves(for: action, in: plain) == nil
    }
}

// MARK: Report

extension WalkState {
    /// The walk as a run result, for the same Markdown report `storefront run --report` writes.
    func result(_ scenario: Scenario, catalogPath: String, storefront: String, duration: TimeInterval) -> ScenarioResult {
        let steps = items.enumerated().map { i, item in
            // A walk left before its end did not pass: what it never reached says so.
            if item.mark == .pending, i >= current { return StepResult(step: item.step, outcome: .notReached) }
            let outcome: StepResult.Outcome = switch item.mark { case .passed: .passed; case .failed: .failed; case .pending, .skipped: .skipped }
            return StepResult(step: item.step, outcome: outcome, expected: item.expectation?.expected,
                              actual: item.actual, note: item.note)
        }
        return ScenarioResult(scenario: scenario, steps: steps, catalogPath: catalogPath, storefront: storefront,
                              setupError: nil, duration: duration)
    }
}
