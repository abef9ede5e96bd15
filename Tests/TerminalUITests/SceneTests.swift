import Testing
@testable import TerminalUI

/// A small screen composed the way an app renders: frame, a list with a heading and prices, footer, sheet.
@Suite("Scene goldens")
struct SceneTests {
    static func scene(selected: Int, sheet: Bool) -> Canvas {
        var canvas = Canvas(width: 36, height: 9)
        let (body, footer) = canvas.bounds.splitBottom(1)
        let inner = Box(title: "Storefront").draw(in: body, on: &canvas)
        let lines = [ListView.Line("  Product", style: .bold, trailing: "Price")] + [("100 Coins", "$0.99"), ("月度会员", "¥30.00"), ("Premium 😀", "$4.99")]
            .enumerated().map { ListView.Line("  " + $1.0, item: $0, trailing: $1.1) }
        ListView(lines, selected: selected).draw(in: inner, on: &canvas)
        Footer.draw([KeyHint("↑↓", "Move"), KeyHint("Enter", "Buy"), KeyHint("q", "Quit")], in: footer, on: &canvas)
        if sheet {
            Sheet(title: "Confirm", body: ["Buy 月度会员?"], buttons: ["Buy", "Cancel"], selectedButton: 0)
                .draw(in: body, on: &canvas)
        }
        return canvas
    }

    @Test("a list screen renders as the expected text")
    func listScreen() {
        #expect(Self.scene(selected: 1, sheet: false).annotatedText == """
            ┌ Storefront ──────────────────────┐
            ~bbbbbbbbbbbb
            │  Product                    Price│
            ~bbbbbbbbb                    bbbbb
            │  100 Coins                  $0.99│
            ~                             bbbbb
            │› 月度会员                  ¥30.00│
            ~rrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrr
            │  Premium 😀                 $4.99│
            ~                             bbbbb
            │                                  │
            │                                  │
            └──────────────────────────────────┘
            [↑↓] Move  [Enter] Buy  [q] Quit
            bbbb       bbbbbbb      bbb
            """)
    }

    @Test("a sheet over the list screen renders as the expected text")
    func sheetScreen() {
        #expect(Self.scene(selected: 1, sheet: true).text == """
            ┌ Storefront ──────────────────────┐
            │  Pro┌ Confirm ────────────┐ Price│
            │  100│ Buy 月度会员?       │ $0.99│
            │› 月 │                     │¥30.00│
            │  Pre│ [ Buy ]  [ Cancel ] │ $4.99│
            │     └─────────────────────┘      │
            │                                  │
            └──────────────────────────────────┘
            [↑↓] Move  [Enter] Buy  [q] Quit
            """)
    }
}
