import TerminalUI

/// A yes/no question before something that cannot be undone; Enter (or y) runs `effect`.
struct ConfirmSheet: SheetView, Equatable {
    var title: String
    var message: String
    var effect: Effect

    var stacked: SheetState { .confirm(self) }

    func bindings(_ state: AppState) -> [Binding] {
        [Binding(keys: [.enter, .character("y")], name: "Enter", label: "Confirm", action: .activate),
         Binding(keys: [.escape, .character("n")], name: "Esc", label: "Cancel", action: .back)]
    }

    mutating func perform(_ action: Action, _ state: inout AppState) -> SheetStep {
        guard action == .activate else { return .close }
        state.inFlight += 1
        return SheetStep(effects: [effect], closes: true)
    }

    func draw(_ state: AppState, in area: Rect, on canvas: inout Canvas) {
        Sheet(title: title, body: [message], buttons: ["Confirm", "Cancel"], selectedButton: 0).draw(in: area, on: &canvas)
    }
}
