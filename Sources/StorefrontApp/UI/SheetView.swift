import Foundation
import StoreCore
import TerminalUI

/// Draws one sheet of the stack over the content area.
enum SheetView {
    static func draw(_ sheet: SheetState, _ state: AppState, in area: Rect, on canvas: inout Canvas) {
        switch sheet {
        case .payment(let draft):
            PaymentSheet.draw(draft, state, in: area, on: &canvas)
        case .redeem(let field):
            let sheet = Sheet(title: "Redeem Offer Code", body: ["Enter the code, then press Enter.", "", "", ""],
                              buttons: [], maxTextWidth: 40)
            let frame = sheet.draw(in: area, on: &canvas)
            field.draw(at: frame.x + 2, frame.y + 3, width: frame.width - 4, on: &canvas, placeholder: "CODE")
            if state.inFlight > 0 { canvas.put(Spinner.frame(state.tick) + " Redeeming…", at: frame.x + 2, frame.y + 4) }
        case .productDetail(let id):
            Sheet(title: "Product", body: productDetail(id, state), buttons: ["OK"], selectedButton: 0, maxTextWidth: 60)
                .draw(in: area, on: &canvas)
        case .transactionDetail(let id):
            Sheet(title: "Transaction #\(id)", body: HistoryScreen.detail(id, state), buttons: ["OK"], selectedButton: 0, maxTextWidth: 60)
                .draw(in: area, on: &canvas)
        case .confirm(let title, let message, _):
            Sheet(title: title, body: [message], buttons: ["Confirm", "Cancel"], selectedButton: 0).draw(in: area, on: &canvas)
        case .menu(let title, let items, let selected, let note, _):
            let intro = note.map { [$0, ""] } ?? []
            let body = intro + (items.isEmpty ? ["Nothing to choose."] : items.enumerated().map { ($0.offset == selected ? "› " : "· ") + $0.element.label })
            let frame = Sheet(title: title, body: body, maxTextWidth: 56).draw(in: area, on: &canvas)
            // The note may wrap: find the selected item's row by its text rather than by counting.
            let marker = items.isEmpty ? nil : "› " + items[selected].label
            if let marker, let row = (frame.y + 1..<frame.y + frame.height - 1).first(where: { y in
                (frame.x + 1..<frame.x + frame.width - 1).map { canvas[$0, y].text }.joined().trimmingCharacters(in: .whitespaces).hasPrefix(String(marker.prefix(12)))
            }) {
                canvas.restyle(Rect(x: frame.x + 1, y: row, width: frame.width - 2, height: 1)) { $0.reverse = true }
            }
        case .appInfo:
            Sheet(title: "App info (AppTransaction)", body: AppInfoSheet.lines(state), buttons: ["OK"], selectedButton: 0, maxTextWidth: 60)
                .draw(in: area, on: &canvas)
        case .message(let title, let text):
            Sheet(title: title, body: [text], buttons: ["OK"], selectedButton: 0).draw(in: area, on: &canvas)
        case .help:
            Sheet(title: "Keys", body: helpBody(KeyMap.helpLines(for: state), rows: area.height - 2), maxTextWidth: 76)
                .draw(in: area, on: &canvas)
        }
    }

    /// The help lines, in two columns when one does not fit the height.
    static func helpBody(_ lines: [String], rows: Int) -> [String] {
        guard lines.count > rows, rows > 0 else { return lines }
        let half = (lines.count + 1) / 2
        let width = lines.prefix(half).map { DisplayWidth.of($0) }.max() ?? 0
        return (0..<half).map { i in
            // No-break spaces: the sheet wraps at ordinary spaces, and this padding must survive.
            let left = lines[i] + String(repeating: "\u{00A0}", count: width - DisplayWidth.of(lines[i]) + 3)
            return i + half < lines.count ? left + lines[i + half] : lines[i]
        }
    }

    static func productDetail(_ id: String, _ state: AppState) -> [String] {
        guard let p = state.product(id) else { return ["Product \(id) is not sold in this storefront."] }
        var lines = [p.displayName, p.description, "", "Price: \(p.priceWithPeriod)", "Type: \(p.type.signedName)", "ID: \(p.id)"]
        if let group = p.groupName, let terms = p.subscription { lines.append("Group: \(group), level \(terms.level)") }
        if let d = p.duration { lines.append("Lasts: \(d.words)") }
        if p.isFamilyShareable { lines.append("Family Sharing: yes") }
        let mark = StoreScreen.marks(p, state)
        if !mark.isEmpty { lines.append("Status: \(mark)") }
        return lines
    }
}
