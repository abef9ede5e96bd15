import Foundation

/// One terminal cell: a grapheme and its style. The cell to the right of a wide grapheme is a
/// continuation cell (empty text) that the backend skips, because the terminal fills it.
public struct Cell: Sendable, Hashable {
    public var text: String
    public var style: Style
    public var isContinuation: Bool

    public init(_ text: String = " ", style: Style = .plain, isContinuation: Bool = false) {
        self.text = text
        self.style = style
        self.isContinuation = isContinuation
    }

    public static let blank = Cell()
}

/// A width × height grid of cells that screens render into, usable without a terminal.
/// Writes clip at the edges and never leave half of a wide grapheme behind.
public struct Canvas: Sendable, Hashable {
    public let width: Int
    public let height: Int
    public private(set) var cells: [Cell]

    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        cells = Array(repeating: .blank, count: self.width * self.height)
    }

    public init(size: Size) { self.init(width: size.width, height: size.height) }

    public var size: Size { Size(width: width, height: height) }
    public var bounds: Rect { Rect(x: 0, y: 0, width: width, height: height) }

    public subscript(x: Int, y: Int) -> Cell { cells[y * width + x] }

    /// Writes `text` from (x, y) on one line, at most `maxWidth` cells and never past the right
    /// edge. A wide grapheme that would not fit entirely becomes a space. Zero-width graphemes
    /// standing alone (controls, stray marks) are skipped. Returns the number of columns advanced.
    @discardableResult
    public mutating func put(_ text: String, at x: Int, _ y: Int, maxWidth: Int? = nil, style: Style = .plain) -> Int {
        guard y >= 0, y < height else { return 0 }
        let limit = min(width, maxWidth.map { x + max(0, $0) } ?? width)
        return putPrintableASCII(text, at: x, y, limit: limit, style: style) ?? putCharacters(text, at: x, y, limit: limit, style: style)
    }

    /// `put` of any text, a grapheme at a time.
    mutating func putCharacters(_ text: String, at x: Int, _ y: Int, limit: Int, style: Style) -> Int {
        var col = x
        for c in text {
            let w = DisplayWidth.of(c)
            if w == 0 { continue }
            if col >= limit { break }
            if col + w > limit || col < 0 {
                // Does not fit (right edge) or starts off-canvas (left edge): blank the visible part.
                for i in max(col, 0)..<max(min(col + w, limit), 0) { set(Cell(" ", style: style), x: i, y: y) }
                col += w
                continue
            }
            set(Cell(String(c), style: style), x: col, y: y)
            if w == 2 { set(Cell("", style: style, isContinuation: true), x: col + 1, y: y) }
            col += w
        }
        return max(0, min(col, limit) - x)
    }

    /// `put` of printable ASCII, most of every frame: a cell a byte, without breaking graphemes (which
    /// was most of drawing a frame); nil, having written nothing, for any other text.
    mutating func putPrintableASCII(_ text: String, at x: Int, _ y: Int, limit: Int, style: Style) -> Int? {
        var text = text
        return text.withUTF8 { bytes -> Int? in
            guard bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
            let end = min(limit, x + bytes.count)
            guard end > max(x, 0) else { return max(0, min(x + bytes.count, limit) - x) }
            for col in max(x, 0)..<end { set(Cell(String(UnicodeScalar(bytes[col - x])), style: style), x: col, y: y) }
            return end - x
        }
    }

    /// Fills `rect` (clipped to the canvas) with `character` in `style`.
    public mutating func fill(_ rect: Rect, style: Style = .plain, character: Character = " ") {
        let (xs, ys) = clip(rect)
        let cell = Cell(String(character), style: style)
        for y in ys { for x in xs { set(cell, x: x, y: y) } }
    }

    /// Changes the style of the cells in `rect` and keeps their text (e.g. to highlight a row).
    public mutating func restyle(_ rect: Rect, _ transform: (inout Style) -> Void) {
        let (xs, ys) = clip(rect)
        for y in ys { for x in xs { transform(&cells[y * width + x].style) } }
    }

    /// The column and row ranges of `rect` that lie on the canvas (possibly empty).
    private func clip(_ rect: Rect) -> (Range<Int>, Range<Int>) {
        let x0 = min(max(rect.x, 0), width), y0 = min(max(rect.y, 0), height)
        return (x0..<max(x0, min(rect.maxX, width)), y0..<max(y0, min(rect.maxY, height)))
    }

    /// Sets one cell, first blanking the other half of any wide grapheme it overwrites.
    private mutating func set(_ cell: Cell, x: Int, y: Int) {
        let i = y * width + x
        if cells[i].isContinuation && x > 0 {
            cells[i - 1] = Cell(" ", style: cells[i - 1].style)
        }
        if x + 1 < width && cells[i + 1].isContinuation && !cell.isContinuation {
            cells[i + 1] = Cell(" ", style: cells[i + 1].style)
        }
        cells[i] = cell
    }

    // MARK: Text views, for golden tests

    /// Each row as plain text, trailing spaces trimmed.
    public var lines: [String] {
        (0..<height).map { y in
            var line = ""
            for x in 0..<width where !self[x, y].isContinuation { line += self[x, y].text }
            return String(line.reversed().drop(while: { $0 == " " }).reversed())
        }
    }

    /// The rows joined by newlines.
    public var text: String { lines.joined(separator: "\n") }

    /// Text with a style layer for goldens, so monochrome selection and emphasis show up:
    /// every row that has a styled cell is followed by a marker row, one character per column,
    /// `r` reverse, `b` bold, `u` underline, `d` dim (first that applies), space otherwise.
    /// Marker rows start with `~` in place of column 0's marker when that would be a space, so
    /// they cannot be mistaken for screen text: `~  rrrrr`. Colours are not shown.
    public var annotatedText: String {
        var out: [String] = []
        for (y, line) in lines.enumerated() {
            out.append(line)
            var marks = ""
            for x in 0..<width { marks.append(Self.marker(self[x, y].style)) }
            let trimmed = String(marks.reversed().drop(while: { $0 == " " }).reversed())
            guard !trimmed.isEmpty else { continue }
            out.append(trimmed.first == " " ? "~" + trimmed.dropFirst() : trimmed)
        }
        return out.joined(separator: "\n")
    }

    private static func marker(_ s: Style) -> Character {
        if s.reverse { return "r" }
        if s.bold { return "b" }
        if s.underline { return "u" }
        if s.dim { return "d" }
        return " "
    }

    // MARK: Diff, for the backend

    /// A horizontal run of changed cells, starting at a non-continuation cell.
    public struct Run: Sendable, Hashable {
        public var x: Int
        public var y: Int
        public var cells: [Cell]
    }

    /// The cells that differ from `old`, as runs per row. With no old canvas or a different
    /// size, every row is one run (a full redraw). A run never starts on a continuation cell,
    /// so the backend always writes whole graphemes.
    public func changedRuns(from old: Canvas?) -> [Run] {
        changedSpans(from: old).map { Run(x: $0.x, y: $0.y, cells: Array(cells[($0.y * width + $0.x)..<($0.y * width + $0.x + $0.count)])) }
    }

    /// Where a run lies, without its cells: the backend reads them in place.
    public struct Span: Sendable, Hashable {
        public var x: Int
        public var y: Int
        public var count: Int
    }

    /// `changedRuns`' places. Cells are compared where they lie, by their bits first (the same text
    /// and style), and a row whose bits are all the same is passed over whole: copying two cells for
    /// each comparison (a retain and a release of both texts) was most of drawing a frame.
    public func changedSpans(from old: Canvas?) -> [Span] {
        guard let old, old.width == width, old.height == height else {
            return (0..<height).map { Span(x: 0, y: $0, count: width) }
        }
        return cells.withUnsafeBufferPointer { new in
            old.cells.withUnsafeBufferPointer { previous in
                guard let new = new.baseAddress, let previous = previous.baseAddress else { return [] }
                func same(_ i: Int) -> Bool {
                    if memcmp(new + i, previous + i, MemoryLayout<Cell>.size) == 0 { return true }
                    // `Cell`'s == field by field, the text last: a restyle (a sheet dimming the screen) keeps it.
                    return new[i].style == previous[i].style && new[i].isContinuation == previous[i].isContinuation
                        && new[i].text == previous[i].text
                }
                var spans: [Span] = []
                for y in 0..<height {
                    let row = y * width
                    if memcmp(new + row, previous + row, width * MemoryLayout<Cell>.stride) == 0 { continue }
                    var x = 0
                    while x < width {
                        guard !same(row + x) else { x += 1; continue }
                        var start = x
                        while start > 0 && new[row + start].isContinuation { start -= 1 }
                        var end = x + 1
                        while end < width && (!same(row + end) || new[row + end].isContinuation) { end += 1 }
                        if let last = spans.last, last.y == y, last.x + last.count > start {
                            spans.removeLast()  // overlapping after stepping back: merge
                            start = last.x
                        }
                        spans.append(Span(x: start, y: y, count: end - start))
                        x = end
                    }
                }
                return spans
            }
        }
    }
}
