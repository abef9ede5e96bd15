import TerminalUI

/// A yes/no question before something that cannot be undone. Its buttons name what they do
/// (`[ Cancel Subscription ] [ Keep ]`): a bare Cancel beside a cancellation reads both ways. The
/// safe one is the default, as for destructive actions on iOS and macOS: Enter keeps things as they
/// are until ←→ picks the action; y does it at once.
struct ConfirmSheet: SheetView, Equatable {
    var title: String
    var message: String
    var effect: Effect
    /// The buttons: the action, and leaving things as they are.
    var yes = "Confirm", no = "Cancel"
    /// The selected button: 0 the action, 1 the safe one.
    var button = 1

    var stacked: SheetState { .confirm(self) }

    func bindings(_ state: AppState) -> [Binding] {
        [Binding(keys: [.enter], name: "Enter", label: button == 0 ? yes : no, action: .activate),
         Binding(keys: [.left, .right, .tab], name: "←→", label: "Button", action: .right),
         Binding(keys: [.character("y")], name: "y", label: yes, action: .confirm),
         Binding(keys: [.escape, .character("n")], name: "Esc", label: no, action: .back)]
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
        Sheet(title: title, body: [message], buttons: [yes, no], selectedButton: button)
    }
}
