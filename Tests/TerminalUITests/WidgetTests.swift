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

    @Test("buttons too wide for one row take as many rows as they need, centred, none cut")
    func sheetButtonsWrap() throws {
        var canvas = Canvas(width: 30, height: 9)
        let sheet = Sheet(title: "Abo", body: ["Text"], buttons: ["Abonnieren", "Wiederherstellen", "Einlösen"], selectedButton: 2)
        let frame = sheet.draw(in: canvas.bounds, on: &canvas)
        #expect(frame.height == 7, "the body, a blank line and three rows of buttons (14, 20 and 12 columns in 26)")
        let lines = canvas.lines
        for label in ["[ Abonnieren ]", "[ Wiederherstellen ]", "[ Einlösen ]"] {
            #expect(lines.contains { $0.contains(label) }, "\(label) whole in:\n\(lines.joined(separator: "\n"))")
        }
        let row = try #require(lines.firstIndex { $0.contains("[ Einlösen ]") })
        let x = DisplayWidth.of(String(lines[row][..<lines[row].range(of: "[ Einlösen ]")!.lowerBound]))
        #expect(canvas[x, row].style.reverse, "the selected button is drawn selected")
        #expect(row == frame.maxY - 2, "the last row of buttons sits just above the bottom border")
    }

    @Test("a sheet's frame and scroll follow its own body, whichever sheet was laid out before")
    func sheetLayoutIsItsOwn() {
        let area = Rect(x: 0, y: 0, width: 40, height: 12)
        let short = Sheet(title: "Short", body: ["One line"], buttons: ["OK"])
        var long = short
        long.body = (1...20).map { "Line \($0)" }
        #expect(short.frame(in: area).height == 5 && short.maxScroll(in: area) == 0)
        #expect(long.frame(in: area).height == 12 && long.maxScroll(in: area) == 12)
        #expect(short.frame(in: area).height == 5)
        #expect(short.frame(in: Rect(x: 0, y: 0, width: 12, height: 12)).width == 12)
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

    @Test("a list scrolls the least from the top that shows the whole selected item, or its first line")
    func listScroll() {
        #expect(ListView.scrollOffset(selectedLines: 0...0, visibleRows: 3) == 0)
        #expect(ListView.scrollOffset(selectedLines: 1...2, visibleRows: 3) == 0)
        #expect(ListView.scrollOffset(selectedLines: 2...3, visibleRows: 3) == 1)
        #expect(ListView.scrollOffset(selectedLines: 9...9, visibleRows: 3) == 7)
        #expect(ListView.scrollOffset(selectedLines: 4...9, visibleRows: 3) == 4, "taller than the view: its first line")
        #expect(ListView.scrollOffset(selectedLines: nil, visibleRows: 3) == 0)
        #expect(ListView.scrollOffset(selectedLines: 3...3, visibleRows: 0) == 3)
    }

    static let products: [ListView.Line] = [
        ListView.Line("Coins", style: .bold),
        ListView.Line("  100 Coins", item: 0, trailing: "$0.99"),
        ListView.Line("    A pile", style: .dim, item: 0),
        ListView.Line("  500 Gems", item: 1, trailing: "$4.99"),
        ListView.Line("    A heap", style: .dim, item: 1),
        ListView.Line("  Pro", item: 2, trailing: "$9.99"),
    ]

    @Test("a list draws the selected item's lines reversed, › on its first line, trailing text right-aligned in bold")
    func listDraw() {
        var canvas = Canvas(width: 20, height: 4)
        let list = ListView(Self.products, selected: 1)
        #expect(list.draw(in: Rect(x: 0, y: 1, width: 20, height: 3), on: &canvas, hintRow: canvas.bounds.row(0)) == 2)
        #expect(canvas.annotatedText == """
                         ↑↓ more
            ~            ddddddd
                A pile
            dddddddddd
            › 500 Gems     $4.99
            rrrrrrrrrrrrrrrrrrrr
                A heap
            rrrrrrrrrrrrrrrrrrrr
            """)
    }

    @Test("a list builds only the lines it shows, and draws no selection without focus")
    func listLazyAndUnfocused() {
        var canvas = Canvas(width: 20, height: 3)
        let exploding = ListView.Line(lazy: { fatalError("built a line off screen") }, item: 9)
        ListView(Self.products + [exploding], selected: 0, showsSelection: false).draw(in: canvas.bounds, on: &canvas)
        #expect(canvas.annotatedText == "Coins\nbbbbb\n  100 Coins    $0.99\n~              bbbbb\n    A pile\ndddddddddd")
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
}

extension WidgetTests {
    @Test("a sheet draws its selected paragraph as a bar across the sheet, every wrapped line of it")
    func sheetSelectedParagraph() {
        var canvas = Canvas(width: 18, height: 5)
        Sheet(title: "Menu", body: ["Refund", "Expire the subscription"], selectedParagraph: 1, maxTextWidth: 14)
            .draw(in: canvas.bounds, on: &canvas)
        #expect(canvas.annotatedText == """
            ┌ Menu ──────────┐
            ~bbbbbb
            │ Refund         │
            │ Expire the     │
            ~rrrrrrrrrrrrrrrr
            │ subscription   │
            ~rrrrrrrrrrrrrrrr
            └────────────────┘
            """)
    }
}
