import StoreCore
import TerminalUI

/// The QA panel's "Notification URL": where App Store Server Notifications V2 go. Enter saves the
/// URL typed (an empty one stops sending: notifications are then recorded, not sent).
struct NotificationURLSheet: SheetView, Equatable {
    var field: TextField
    var problem: String?

    init(current: String?) {
        field = TextField(text: current ?? "", maxLength: 300)
    }

    var stacked: SheetState { .notificationURL(self) }

    func bindings(_ state: AppState) -> [Binding] {
        [Binding(keys: [.enter], name: "Enter", label: "Save", action: .activate),
         Binding(keys: [.escape], name: "Esc", label: "Cancel", action: .back)]
    }

    /// Every key but Enter and Esc edits the URL.
    mutating func edit(_ key: Key) -> Bool {
        guard key != .enter, key != .escape else { return false }
        if case .character(let c) = key { field.insert(String(c)) } else { field.handle(key) }
        problem = nil
        return true
    }

    mutating func perform(_ action: Action, _ state: inout AppState) -> SheetStep {
        switch action {
        case .back:
            return .close
        case .activate:
            let text = field.text.trimmingCharacters(in: .whitespaces)
            if !text.isEmpty, let problem = TestSettings.notificationURLProblem(text) {
                self.problem = problem
                return .stay
            }
            state.awaitingStore = true
            return SheetStep(effects: [.command(.notificationURL(text.isEmpty ? nil : text))], closes: true)
        default:
            return .stay
        }
    }

    func sheet(_ state: AppState, in area: Rect) -> Sheet {
        Sheet(title: "Notification URL", body: ["App Store Server Notifications V2 are POSTed here.",
                                                "Empty: recorded, not sent.", "", problem ?? ""],
              buttons: [], maxTextWidth: 60)
    }

    func decorate(_ state: AppState, frame: Rect, on canvas: inout Canvas) {
        field.draw(at: frame.x + 2, frame.y + 3, width: frame.width - 4, on: &canvas, placeholder: "http://127.0.0.1:8080/notifications")
    }
}
