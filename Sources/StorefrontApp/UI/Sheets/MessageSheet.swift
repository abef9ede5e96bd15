import TerminalUI

/// An outcome to acknowledge: a purchase result, an error.
struct MessageSheet: SheetView, Equatable {
    var title: String
    var text: String

    var stacked: SheetState { .message(self) }

    func sheet(_ state: AppState, in area: Rect) -> Sheet {
        Sheet(title: title, body: [text], buttons: [state.words(.okButton)], selectedButton: 0)
    }
}
