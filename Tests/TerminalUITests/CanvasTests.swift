import Testing
@testable import TerminalUI

@Suite("Canvas")
struct CanvasTests {
    @Test("put clips at the right edge and reports the columns written")
    func clipping() {
        var canvas = Canvas(width: 6, height: 2)
        #expect(canvas.put("Hello, world", at: 2, 0) == 4)
        #expect(canvas.put("abcdef", at: 0, 1, maxWidth: 3) == 3)
        #expect(canvas.lines == ["  Hell", "abc"])
        #expect(canvas.put("x", at: 0, 5) == 0)  // off-canvas row
    }

    @Test("printable ASCII is put a byte a cell exactly as graphemes are put, at every edge and beside wide characters")
    func asciiAsGraphemes() {
        for text in ["", "a", "Hello", "$0.99 × 1".replacingOccurrences(of: "×", with: "x")] {
            for x in -3...8 {
                for limit in [-1, 0, 2, 5, 7, 8] {
                    for wideAt in [nil, 0, 3, 6] {
                        var background = Canvas(width: 8, height: 1)
                        if let wideAt { background.put("商", at: wideAt, 0) }
                        var (fast, general) = (background, background)
                        let written = fast.putPrintableASCII(text, at: x, 0, limit: limit, style: .bold)
                        #expect(written == general.putCharacters(text, at: x, 0, limit: limit, style: .bold), "\(text) at \(x), limit \(limit)")
                        #expect(fast == general, "\(text) at \(x), limit \(limit), wide at \(String(describing: wideAt))")
                    }
                }
            }
        }
        var canvas = Canvas(width: 4, height: 1)
        #expect(canvas.putPrintableASCII("a\u{7}", at: 0, 0, limit: 4, style: .plain) == nil)  // a control: the general path
        #expect(canvas.putPrintableASCII("café", at: 0, 0, limit: 4, style: .plain) == nil)
        #expect(canvas == Canvas(width: 4, height: 1))
    }

    @Test("put never splits a wide character at the right edge: it becomes a space")
    func wideAtEdge() {
        var canvas = Canvas(width: 5, height: 1)
        canvas.put("xxxxx", at: 0, 0)
        #expect(canvas.put("商店", at: 2, 0) == 3)
        #expect(canvas.lines == ["xx商"])
        #expect(canvas[4, 0].text == " " && !canvas[4, 0].isContinuation)
        #expect(canvas[3, 0].isContinuation)
    }

    @Test("a wide character straddling the left edge leaves a space, not half a glyph")
    func wideAtLeftEdge() {
        var canvas = Canvas(width: 4, height: 1)
        canvas.put("商ab", at: -1, 0)
        #expect(canvas.lines == [" ab"])
        #expect(canvas.put("商ab", at: -5, 0, maxWidth: 2) == 2)  // ends left of the canvas (crashed on an inverted range): nothing drawn
        #expect(canvas.lines == [" ab"])
    }

    @Test("overwriting half of a wide character blanks its other half")
    func overwriteHalf() {
        var canvas = Canvas(width: 6, height: 1)
        canvas.put("商店", at: 0, 0)
        canvas.put("x", at: 1, 0)  // right half of 商
        #expect(canvas.lines == [" x店"])
        canvas.put("y", at: 2, 0)  // left half of 店
        #expect(canvas.lines == [" xy"])
        #expect(canvas.cells.allSatisfy { !$0.isContinuation })
    }

    @Test("fill paints a clipped rectangle")
    func fill() {
        var canvas = Canvas(width: 4, height: 3)
        canvas.fill(Rect(x: 2, y: 1, width: 10, height: 10), character: "#")
        #expect(canvas.text == "\n  ##\n  ##")
    }

    @Test("rect helpers split, inset and centre without negative sizes")
    func rects() {
        let r = Rect(x: 0, y: 0, width: 80, height: 24)
        let (header, rest) = r.splitTop(1)
        let (body, footer) = rest.splitBottom(1)
        #expect(header == Rect(x: 0, y: 0, width: 80, height: 1))
        #expect(body == Rect(x: 0, y: 1, width: 80, height: 22))
        #expect(footer == Rect(x: 0, y: 23, width: 80, height: 1))
        #expect(r.centered(width: 40, height: 10) == Rect(x: 20, y: 7, width: 40, height: 10))
        #expect(r.centered(width: 100, height: 30) == r)
        #expect(Rect(x: 0, y: 0, width: 3, height: 3).inset(by: 2).isEmpty)
        #expect(r.columns([20, 30]).map(\.width) == [20, 30, 30])
    }

    @Test("annotated text marks reverse and bold spans under their row")
    func annotated() {
        var canvas = Canvas(width: 10, height: 3)
        canvas.put("Title", at: 0, 0, style: .bold)
        canvas.put("item one", at: 1, 1, style: .selected)
        canvas.put("item two", at: 1, 2)
        #expect(canvas.annotatedText == """
            Title
            bbbbb
             item one
            ~rrrrrrrr
             item two
            """)
    }

    @Test("diff: moving a highlight one row changes only those two rows")
    func diffHighlight() {
        func scene(selected: Int) -> Canvas {
            var c = Canvas(width: 12, height: 5)
            for i in 0..<5 {
                c.fill(c.bounds.row(i), style: i == selected ? .selected : .plain)
                c.put("row \(i)", at: 1, i, style: i == selected ? .selected : .plain)
            }
            return c
        }
        let runs = scene(selected: 2).changedRuns(from: scene(selected: 1))
        #expect(runs.map(\.y) == [1, 2])
        #expect(runs.allSatisfy { $0.x == 0 && $0.cells.count == 12 })
        #expect(scene(selected: 2).changedRuns(from: scene(selected: 2)).isEmpty)
    }

    @Test("diff: a restyle alone is a change, equal text in other storage is not, and spans match runs")
    func diffComparesValues() {
        var old = Canvas(width: 10, height: 3)
        old.put("héllo wörld", at: 0, 1)
        var dimmed = old
        dimmed.restyle(dimmed.bounds) { $0.dim = true }
        #expect(dimmed.changedSpans(from: old) == (0..<3).map { Canvas.Span(x: 0, y: $0, count: 10) })
        // The same text in other bits (é decomposed, as macOS file names have it): equal, so no change.
        var decomposed = old
        decomposed.put("e\u{301}", at: 1, 1)
        #expect(decomposed[1, 1].text.unicodeScalars.count == 2)
        #expect(decomposed.changedSpans(from: old).isEmpty)
        var one = old
        one.put("X", at: 4, 2)
        #expect(one.changedSpans(from: old) == [Canvas.Span(x: 4, y: 2, count: 1)])
        #expect(one.changedRuns(from: old) == [Canvas.Run(x: 4, y: 2, cells: [Cell("X")])])
    }

    @Test("diff: a run never starts inside a wide character, and a size change redraws everything")
    func diffWide() {
        var old = Canvas(width: 6, height: 2)
        old.put("商店", at: 0, 0)
        var new = old
        new.put("商", at: 2, 0, style: .bold)  // same text, style change on 店's position
        let runs = new.changedRuns(from: old)
        #expect(runs == [Canvas.Run(x: 2, y: 0, cells: [Cell("商", style: .bold), Cell("", style: .bold, isContinuation: true)])])
        #expect(new.changedRuns(from: nil).count == 2)
        #expect(new.changedRuns(from: Canvas(width: 5, height: 2)).count == 2)
    }
}

@Suite("Canvas styling")
struct CanvasStylingTests {
    @Test("restyle changes style only, and clips like fill")
    func restyle() {
        var canvas = Canvas(width: 5, height: 2)
        canvas.put("abcde", at: 0, 1)
        canvas.restyle(Rect(x: 3, y: 1, width: 9, height: 9)) { $0.reverse = true }
        canvas.restyle(Rect(x: -4, y: -4, width: 2, height: 2)) { $0.bold = true }  // entirely off-canvas
        #expect(canvas.annotatedText == "\nabcde\n~  rr")
    }
}
