import TerminalUI

/// A yes/no question before something that cannot be undone. Cancel is the default, as for
/// destructive actions on iOS and macOS: Enter cancels until ←→ picks Confirm; y confirms at once.
struct ConfirmSheet: SheetView, Equatable {
    var title: String
    var message: String
    var effect: Effect
    /// The selected button: 0 Confirm, 1 Cancel.
    var button = 1

    var stacked: SheetState { .confirm(self) }

    func bindings(_ state: AppState) -> [Binding] {
        [Binding(keys: [.enter], name: "Enter", label: button == 0 ? "Confirm" : "Cancel", action: .activate),
         Binding(keys: [.left, .right, .tab], name: "←→", label: "Button", action: .right),
         Binding(keys: [.character("y")], name: "y", label: "Confirm", action: .confirm),
         Binding(keys: [.escape, .character("n")], name: "Esc", label: "Cancel", action: .back)]
    }

    mutating func perform(_ action: Action, _ state: inout AppState) -> SheetStep {
        switch action {
        case .right: button = 1 - button; return .stay
        case .confirm: return SheetStep(effects: [effect], closes: true)
        case .activate where button == 0: return SheetStep(effects: [effect], closes: true)
        default: return .close
        }
    }

    func sheet(_ state: AppState, in area: Rect) -> Sheet {
        Sheet(title: title, body: [message], buttons: ["Confirm", "Cancel"], selectedButton: button)
    }
}
