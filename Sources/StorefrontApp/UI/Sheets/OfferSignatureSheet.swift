import TerminalUI

/// The payment sheet's "Signature…": the file holding what the team's server signed for the chosen
/// promotional offer (a compact JWS, or the legacy signature's JSON). Enter hands the path to the
/// payment sheet below, which passes the file's contents with the purchase; empty goes back to the
/// local store's own signature.
struct OfferSignatureSheet: SheetView, Equatable {
    var field: TextField

    init(current: String?) {
        field = TextField(text: current ?? "", maxLength: 500)
    }

    var stacked: SheetState { .offerSignature(self) }

    func bindings(_ state: AppState) -> [Binding] {
        [Binding(keys: [.enter], name: "Enter", label: "Use", action: .activate),
         Binding(keys: [.escape], name: "Esc", label: "Cancel", action: .back)]
    }

    /// Every key but Enter and Esc edits the path.
    mutating func edit(_ key: Key) -> Bool {
        guard key != .enter, key != .escape else { return false }
        field.handle(key)
        return true
    }

    mutating func perform(_ action: Action, _ state: inout AppState) -> SheetStep {
        guard action == .activate else { return action == .back ? .close : .stay }
        let path = field.text.trimmingCharacters(in: .whitespaces)
        if state.sheets.count >= 2, case .payment(var payment) = state.sheets[state.sheets.count - 2] {
            payment.signatureFile = path.isEmpty ? nil : path
            state.sheets[state.sheets.count - 2] = .payment(payment)
        }
        return .close
    }

    func sheet(_ state: AppState, in area: Rect) -> Sheet {
        Sheet(title: "Offer signature", body: ["The file your server's signature is in: a JWS, or the",
                                               "legacy signature's JSON. Empty: the local store signs.", "", ""],
              buttons: [], maxTextWidth: 60)
    }

    func decorate(_ state: AppState, frame: Rect, on canvas: inout Canvas) {
        field.draw(at: frame.x + 2, frame.y + 3, width: frame.width - 4, on: &canvas, placeholder: "offer-signature.jws")
    }
}
