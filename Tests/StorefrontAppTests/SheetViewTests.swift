import Foundation
import Testing
import TerminalUI
@testable import StorefrontApp

/// Sheets through their protocol: what they draw and which keys they take.
@Suite struct SheetViewTests {
    /// The rows inside a sheet's border that have reverse-video cells (not the status line, which is reversed across).
    func highlightedSheetRows(_ canvas: Canvas) -> [String] {
        (0..<canvas.height).filter { y in
            canvas.lines[y].contains("│") && !canvas[0, y].style.reverse && (0..<canvas.width).contains { canvas[$0, y].style.reverse }
        }.map { canvas.lines[$0] }
    }

    @Test("a menu highlights every line of its selected item, never a line that merely reads like it")
    func menuHighlightsItsSelectedItem() {
        var state = AppState()
        state.sheets = [.menu(title: "Refund", items: [
            MenuItem(label: "Refund", effect: .command(.refresh)),
            MenuItem(label: "Refund (prorated) for the part of the period that is left, as the App Store does", effect: .command(.refresh)),
        ], selected: 1, note: "› Refund (prorated) was chosen last time.")]
        let rows = highlightedSheetRows(render(state, size: Size(width: 80, height: 24)))
        #expect(rows.count == 2)
        #expect(rows.first?.contains("› Refund (prorated) for the part") == true)
        #expect(!rows.contains { $0.contains("chosen last time") })
    }

    @Test("the redeem sheet types every key but Enter and Esc into the code, in capitals")
    func redeemTakesTypedKeys() {
        var state = AppState()
        press(&state, .character("c"), .character("q"), .character("r"), .character("1"))
        #expect(state.top == .redeem(RedeemSheet(field: TextField(text: "QR1", maxLength: 24))))
        #expect(KeyMap.footer(state).map(\.label) == ["Redeem", "Cancel"])
    }

    @Test("the notification URL sheet refuses what is not an http or https URL, saying why, and saves one that is")
    func notificationURLIsValidatedBeforeSaving() {
        var state = AppState()
        state.sheets = [.notificationURL(NotificationURLSheet(current: nil))]
        for c in "ftp://x" { _ = press(&state, .character(c)) }
        #expect(press(&state, .enter).isEmpty)
        guard case .notificationURL(let sheet)? = state.sheets.last else { Issue.record("the sheet closed"); return }
        #expect(sheet.problem?.contains("is not an http or https URL") == true)
        state.sheets = [.notificationURL(NotificationURLSheet(current: "http://127.0.0.1:8080/n"))]
        #expect(press(&state, .enter) == [.command(.notificationURL("http://127.0.0.1:8080/n"))])
        #expect(state.sheets.isEmpty)
    }

    @Test("the payment sheet's s takes the file of the team's server's signature for a promotional offer, and the purchase passes it")
    func paymentSheetTakesTheServersSignatureFromAFile() {
        var state = AppState()
        state.sheets = [.payment(PaymentSheet(productID: "p", offers: [.none, .promotional("o")]))]
        #expect(!KeyMap.footer(state).map(\.label).contains("Signature…"), "only with a promotional offer")
        _ = press(&state, .character("o"))
        #expect(KeyMap.footer(state).map(\.label).contains("Signature…"))
        _ = press(&state, .character("s"))
        for c in "offer.jws" { _ = press(&state, .character(c)) }
        _ = press(&state, .enter)
        guard case .payment(let payment)? = state.sheets.last, state.sheets.count == 1 else { Issue.record("\(state.sheets)"); return }
        #expect(payment.signatureFile == "offer.jws")
        #expect(press(&state, .enter) == [.command(.buy("p", quantity: 1, offer: "o", signature: .file("offer.jws"), askToBuy: false, answer: .confirm))])
    }
}
