import TerminalUI

/// An outcome to acknowledge: a purchase result, an error.
struct MessageSheet: SheetView, Equatable {
    var title: String
    var text: String

    var stacked: SheetState { .message(self) }

    func draw(_ state: AppState, in area: Rect, on canvas: inout Canvas) {
        Sheet(title: title, body: [text], buttons: ["OK"], selectedButton: 0).draw(in: area, on: &canvas)
    }
}
