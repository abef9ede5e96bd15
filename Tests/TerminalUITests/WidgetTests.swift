import Testing
@testable import TerminalUI

@Suite("Widgets")
struct WidgetTests {
    @Test("a box draws its border and title and returns the inner area")
    func box() {
        var canvas = Canvas(width: 12, height: 3)
        let inner = Box(title: "Coins").draw(in: canvas.bounds, on: &canvas)
        #expect(inner == Rect(x: 1, y: 1, width: 10, height: 1))
        #expect(canvas.lines == ["┌ Coins ───┐", "│          │", "└──────────┘"])
    }

    @Test("a sheet is centred and clears what was under it")
    func sheetCentredAndClearing() {
        var canvas = Canvas(width: 30, height: 9)
        for y in 0..<9 { canvas.put(String(repeating: "x", count: 30), at: 0, y) }
        let sheet = Sheet(title: "Buy", body: ["100 Coins for $0.99"], buttons: ["Buy", "Cancel"], selectedButton: 0)
        let frame = sheet.draw(in: canvas.bounds, on: &canvas)
        #expect(frame == Rect(x: 3, y: 2, width: 23, height: 5))
        #expect(canvas.text == """
            xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx
            xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx
            xxx┌ Buy ────────────────┐xxxx
            xxx│ 100 Coins for $0.99 │xxxx
            xxx│                     │xxxx
            xxx│ [ Buy ]  [ Cancel ] │xxxx
            xxx└─────────────────────┘xxxx
            xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx
            xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx
            """)
        #expect(canvas[5, 5].style.reverse && !canvas[14, 5].style.reverse)
    }

    @Test("a sheet wraps its body to a narrow screen")
    func sheetWraps() {
        var canvas = Canvas(width: 16, height: 8)
        Sheet(title: "确认", body: ["购买一百枚金币。立即到账"]).draw(in: canvas.bounds, on: &canvas)
        #expect(canvas.lines == [
            "",
            "",
            "┌ 确认 ────────┐",
            "│ 购买一百枚金 │",
            "│ 币。立即到账 │",
            "└──────────────┘",
            "",
            "",
        ])
    }

    @Test("list scrolling keeps the selection visible with the least movement")
    func listScroll() {
        #expect(ListView.scrollOffset(selected: 0, previous: 0, visibleRows: 3, count: 10) == 0)
        #expect(ListView.scrollOffset(selected: 2, previous: 0, visibleRows: 3, count: 10) == 0)
        #expect(ListView.scrollOffset(selected: 3, previous: 0, visibleRows: 3, count: 10) == 1)
        #expect(ListView.scrollOffset(selected: 9, previous: 1, visibleRows: 3, count: 10) == 7)
        #expect(ListView.scrollOffset(selected: 4, previous: 7, visibleRows: 3, count: 10) == 4)
        #expect(ListView.scrollOffset(selected: 5, previous: 8, visibleRows: 3, count: 10) == 5)
        // The list shrank: no empty space at the bottom.
        #expect(ListView.scrollOffset(selected: 1, previous: 5, visibleRows: 3, count: 4) == 1)
        #expect(ListView.scrollOffset(selected: nil, previous: 5, visibleRows: 3, count: 4) == 1)
        #expect(ListView.scrollOffset(selected: 3, previous: 0, visibleRows: 0, count: 4) == 0)
    }

    @Test("a list draws the visible window with the selection marked")
    func listDraw() {
        var canvas = Canvas(width: 10, height: 3)
        let list = ListView(rows: (1...6).map { "Item \($0)" }, selected: 4, offset: 0, marker: "> ")
        #expect(list.draw(in: canvas.bounds, on: &canvas) == 2)
        #expect(canvas.annotatedText == """
              Item 3
              Item 4
            > Item 5
            rrrrrrrrrr
            """)
    }

    @Test("a text field inserts, deletes and moves its cursor by grapheme")
    func textFieldEditing() {
        var field = TextField()
        for key: Key in [.character("A"), .character("B"), .character("C"), .left, .backspace, .character("商")] {
            field.handle(key)
        }
        #expect(field.text == "A商C" && field.cursor == 2)
        field.handle(.home)
        field.handle(.delete)
        #expect(field.text == "商C" && field.cursor == 0)
        field.handle(.end)
        field.insert("e\u{301}")
        #expect(field.text == "商Cé" && field.cursor == 3)
        let consumed = field.handle(.enter)
        #expect(!consumed)
        var limited = TextField(maxLength: 4)
        limited.insert("ABCDEF")
        #expect(limited.text == "ABCD")
    }

    @Test("a text field scrolls so the cursor stays visible, measured by display width")
    func textFieldView() {
        var field = TextField(text: "优惠码ABC")
        #expect(field.visible(width: 6) == ("码ABC", 5))  // cursor cell after C
        field.moveHome()
        #expect(field.visible(width: 6) == ("优惠码", 0))
        var canvas = Canvas(width: 8, height: 1)
        field.moveEnd()
        field.draw(at: 0, 0, width: 8, on: &canvas)
        #expect(canvas.text == "惠码ABC")
        #expect(canvas[7, 0].style.reverse)
    }

    @Test("the footer drops hints that do not fit")
    func footer() {
        let hints = [KeyHint("↑↓", "Move"), KeyHint("Enter", "Buy"), KeyHint("r", "Restore purchases"), KeyHint("q", "Quit")]
        #expect(Footer.text(hints, width: 80) == "[↑↓] Move  [Enter] Buy  [r] Restore purchases  [q] Quit")
        #expect(Footer.text(hints, width: 35) == "[↑↓] Move  [Enter] Buy  [q] Quit")
        #expect(Footer.text(hints, width: 5) == "")
        var canvas = Canvas(width: 24, height: 1)
        Footer.draw(hints, in: canvas.bounds, on: &canvas)
        #expect(canvas.annotatedText == "[↑↓] Move  [Enter] Buy\nbbbb       bbbbbbb")
    }

    @Test("the spinner cycles its frames by tick")
    func spinner() {
        #expect(Spinner.frame(0) == "⠋")
        #expect(Spinner.frame(11) == "⠙")
        #expect(Spinner.frame(5, frames: Spinner.ascii) == "/")
    }

    @Test("table columns fit content, share leftover width and shrink when too narrow")
    func table() {
        let table = Table([.init("Product", width: .fill), .init("Type"), .init("Price", alignment: .trailing)])
        let rows = [["100 Coins", "Consumable", "$0.99"], ["月度会员", "Auto-Renewable", "¥30.00"]]
        let widths = table.columnWidths(rows: rows, totalWidth: 40)
        #expect(widths == [16, 14, 6])
        #expect(table.format(rows[1], widths: widths) == "月度会员          Auto-Renewable  ¥30.00")
        #expect(table.header(widths: widths) == "Product           Type             Price")
        let narrow = table.columnWidths(rows: rows, totalWidth: 20)
        #expect(narrow.reduce(0, +) + 4 == 20)
        #expect(rows.allSatisfy { DisplayWidth.of(table.format($0, widths: narrow)) == 20 })
    }
}
