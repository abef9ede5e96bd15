import StoreClient
import StoreCore
import TerminalUI

/// `AppStore.presentOfferCodeRedeemSheet`: the code is typed (in capitals), Enter redeems it.
struct RedeemSheet: SheetView, Equatable {
    var field = TextField(maxLength: 24)
    /// Sent to the store: the spinner turns until its answer closes the sheet.
    var isRedeeming = false

    var stacked: SheetState { .redeem(self) }

    func bindings(_ state: AppState) -> [Binding] {
        [Binding(keys: [.enter], name: "Enter", label: "Redeem", action: .activate),
         Binding(keys: [.escape], name: "Esc", label: "Cancel", action: .back)]
    }

    /// Every key but Enter and Esc edits the code, so q or c are typed rather than run.
    mutating func edit(_ key: Key) -> Bool {
        guard key != .enter, key != .escape else { return false }
        if case .character(let c) = key { field.insert(String(c).uppercased()) } else { field.handle(key) }
        return true
    }

    mutating func perform(_ action: Action, _ state: inout AppState) -> SheetStep {
        switch action {
        case .back:
            return .close
        case .activate where !field.text.isEmpty:
            isRedeeming = true
            state.status = "Redeeming \(field.text)…"
            return SheetStep(effects: [.command(.redeem(field.text))])
        default:
            return .stay
        }
    }

    func sheet(_ state: AppState, in area: Rect) -> Sheet {
        Sheet(title: state.words(.redeemTitle), body: [state.words(.redeemPrompt), "", "", ""], buttons: [], maxTextWidth: 40)
    }

    func decorate(_ state: AppState, frame: Rect, on canvas: inout Canvas) {
        field.draw(at: frame.x + 2, frame.y + 3, width: frame.width - 4, on: &canvas, placeholder: state.words(.codePlaceholder))
        if isRedeeming { canvas.put(Spinner.frame(state.tick) + " " + state.words(.redeeming), at: frame.x + 2, frame.y + 4) }
    }

    /// The store's answer: the sheet goes; a refusal says why.
    static func finish(code: String, _ failure: StoreFailure?, _ state: inout AppState) {
        state.sheets.removeAll { if case .redeem = $0 { true } else { false } }
        if let failure {
            state.status = "Code \(code) not redeemed: \(failure.message)"
            state.sheets.append(.message(title: state.words(.codeNotRedeemedTitle), text: state.words.message(for: failure)))
        }
        // The code's transaction may reach the app (through updates) before the store's answer reaches the
        // loop, on a busy machine: its line says what the code gave, and stays.
        else if !state.status.hasPrefix(Self.arrivedPrefix) { state.status = "Code \(code) accepted" }
    }

    /// How the status line begins once a redeemed code's transaction has arrived (see `AppEvent.message`).
    static let arrivedPrefix = String(AppEvent.transactionArrived(productID: "", offer: .code).message)
}
