import TerminalUI

/// A list of actions to pick one from: a transaction's QA actions, buy outside the app, the
/// refund request and manage-subscriptions sheets.
struct MenuSheet: SheetView, Equatable {
    var title: String
    var items: [MenuItem]
    var selected = 0
    /// Said above the items.
    var note: String?
    /// The status shown when Esc dismisses the menu (a refund request reports `userCancelled`).
    var cancelled: String?

    var stacked: SheetState { .menu(self) }

    func bindings(_ state: AppState) -> [Binding] {
        KeyMap.move + [Binding(keys: [.enter], name: "Enter", label: "Run", action: .activate), KeyMap.close]
    }

    mutating func perform(_ action: Action, _ state: inout AppState) -> SheetStep {
        switch action {
        case .up: selected = max(0, selected - 1)
        case .down: selected = min(max(0, items.count - 1), selected + 1)
        case .pageUp: selected = max(0, selected - KeyMap.page(state))
        case .pageDown: selected = min(max(0, items.count - 1), selected + KeyMap.page(state))
        case .first: selected = 0
        case .last: selected = max(0, items.count - 1)
        case .back:
            if let cancelled { state.status = cancelled }
            return .close
        case .activate:
            guard let item = items[safe: selected] else { return .close }
            if let question = item.confirmation {
                state.sheets.append(.confirm(title: title, message: question, effect: item.effect, yes: item.yes, no: item.no))
                return .close
            }
            return SheetStep(effects: [item.effect], closes: true)
        default: break
        }
        return .stay
    }

    func sheet(_ state: AppState, in area: Rect) -> Sheet {
        let intro = note.map { [$0, ""] } ?? []
        let body = intro + (items.isEmpty ? ["Nothing to choose."] : items.enumerated().map { ($0.offset == selected ? "› " : "· ") + $0.element.label })
        return Sheet(title: title, body: body, selectedParagraph: items.isEmpty ? nil : intro.count + selected, maxTextWidth: 56)
    }
}

struct MenuItem: Sendable, Equatable {
    var label: String
    var effect: Effect
    /// Asked first, with what it costs and when it takes effect (a plan change, a cancellation).
    var confirmation: String?
    /// The confirmation's buttons: the action, and keeping things as they are.
    var yes = "Confirm", no = "Cancel"
}
