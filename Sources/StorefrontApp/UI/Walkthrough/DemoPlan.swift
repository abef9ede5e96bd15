import Foundation
import StoreCore
import StoreEngine
import TerminalUI

/// One beat of a demo: a key the presenter presses, a pause for the audience, or a wait for the store.
enum DemoMove: Sendable, Equatable {
    case key(Key)
    /// A pause, in beats (one beat is a second at speed 1).
    case pause(Double)
    /// Until the store has answered (nothing in flight).
    case waitIdle
}

/// Turns a scenario action into the keys a person would press in the storefront, planned from the
/// current state and checked by running the real reducer on a copy. Nil: keys cannot show it, so the
/// demo performs it through the runner instead.
enum DemoPlan {
    static func moves(for action: StoreCommand, in state: AppState) -> [DemoMove]? {
        guard state.top == nil, state.filter.text.isEmpty, !state.isEditingFilter else { return nil }
        switch action {
        case .buy(let id, let quantity, let offer, let signature, let askToBuy, let plan, let token, let eligibility, let answer):
            // The payment sheet takes no token nor eligibility: a purchase that names one is the runner's.
            guard !askToBuy, signature == .valid, token == nil, eligibility == nil, let product = state.product(id),
                  let row = StoreScreen.products(state).firstIndex(where: { $0.id == id }),
                  let path = select(row, on: .store, state) else { return nil }
            var sheet = draft(for: product, state)
            guard quantity == 1 || (sheet.allowsQuantity && quantity <= PaymentSheet.maximumQuantity) else { return nil }
            // `b` steps through the billing plans; the offers are then the plan's own.
            guard let planPresses = sheet.plans.firstIndex(of: plan) else { return nil }
            sheet.choose(plan: planPresses, state)
            var offerPresses = 0
            if let offer {
                guard let i = sheet.offers.firstIndex(where: { $0 == .promotional(offer) || $0 == .winBack(offer) }) else { return nil }
                offerPresses = i
            }
            // The sheet stays up a moment, so the audience reads price and terms before Confirm.
            return path + [.pause(1), .key(.enter), .pause(1)]
                + Array(repeating: .key(.character("+")), count: quantity - 1)
                + Array(repeating: .key(.character("b")), count: planPresses)
                + Array(repeating: .key(.character("o")), count: offerPresses)
                + [.pause(2)]
                + (answer == .cancel ? [.key(.right), .pause(1)] : [])
                + [.key(.enter), .waitIdle]
        case .restore:
            return show(.store, state).map(DemoMove.key) + [.key(.character("r")), .waitIdle]
        case .redeem(let code):
            return [.key(.character("c")), .pause(0.5)] + code.map { .key(.character($0)) } + [.pause(1), .key(.enter), .waitIdle]
        case .control(let control, .newest(let id)):
            guard let entry = control.target(id, in: state.ledger) else { return nil }
            return qaMenu(entry, control.spec.label, state)
        case .advance(let period):
            return qaRow({ $0.label == "Advance time \(period.iso)" }, in: state, press: true)
        case .set(let setting, let on):
            // Already so: show the row, nothing to press.
            return qaRow({ $0.label == setting.title }, in: state, press: state.settings[keyPath: setting.keyPath] != on)
        default:
            return nil
        }
    }

    /// QA panel, the transaction's row, Enter, the menu item, Enter.
    static func qaMenu(_ entry: LedgerEntry, _ label: String, _ state: AppState) -> [DemoMove]? {
        guard let item = QAPanel.actions(entry, state).firstIndex(where: { $0.label == label }),
              let rows = qaRow({ $0.label.hasPrefix("#\(entry.id) ") }, in: state, press: true) else { return nil }
        return rows.dropLast() + [.pause(1)] + Array(repeating: .key(.down), count: item) + [.pause(1.5), .key(.enter), .waitIdle]
    }

    /// QA panel, the first row matching, and Enter if `press`.
    static func qaRow(_ match: (QAPanel.Row) -> Bool, in state: AppState, press: Bool) -> [DemoMove]? {
        var qa = state
        qa.screen = .qa
        guard let row = QAPanel.rows(qa).firstIndex(where: match), let path = select(row, on: .qa, state) else { return nil }
        return path + [.pause(1)] + (press ? [.key(.enter), .waitIdle] : [])
    }

    static func show(_ screen: Screen, _ state: AppState) -> [Key] {
        state.screen == screen ? [] : [.character(Character(String(screen.rawValue + 1)))]
    }

    /// The shortest key path to `target` on `screen` (switching to it first): arrows from where the
    /// selection is, or from Home / End. Found by pressing the keys on a copy of the state.
    static func select(_ target: Int, on screen: Screen, _ state: AppState) -> [DemoMove]? {
        var start = state
        start.layering = Layering()
        (start.awaitingStore, start.waitingKeys) = (false, [])  // the keys are pressed once the store has settled
        var best: [Key]?
        for jump in [[], [Key.home], [Key.end]] {
            for step in [Key.down, .up] {
                var s = start, keys = show(screen, state) + jump
                for key in keys { _ = reduce(&s, .key(key)) }
                while s.selected(screen) != target, keys.count < 200 {
                    let before = s.selected(screen)
                    _ = reduce(&s, .key(step))
                    keys.append(step)
                    if s.selected(screen) == before { break }
                }
                if s.selected(screen) == target, keys.count < best?.count ?? .max { best = keys }
            }
        }
        return best.map { $0.map(DemoMove.key) }
    }
}
