import Locking

/// A modal sheet: a centred, bordered box that clears what is under it, with a title,
/// wrapped body text and a row of buttons (the selected one in reverse video).
/// A body taller than the area scrolls above the buttons, which always keep their row; the border
/// says when lines are hidden above (`↑ more`) or below (`↓ more`).
public struct Sheet: Sendable, Equatable {
    public var title: String
    /// Paragraphs; each is wrapped to the sheet's width. An empty string is a blank line.
    public var body: [String]
    public var buttons: [String]
    public var selectedButton: Int?
    /// The body paragraph drawn in `selectedStyle` across the sheet (a menu's selected item).
    public var selectedParagraph: Int?
    /// The widest the text area may grow, in cells; the screen may make it narrower.
    public var maxTextWidth: Int
    /// Other bodies the sheet may show (an offer cycling): it is sized for the largest, so it keeps its size.
    public var alternativeBodies: [[String]]
    public var style: Style
    public var selectedStyle: Style
    /// The first body line shown, when the body is taller than the sheet can be (clamped when drawn).
    public var scroll = 0

    public init(title: String, body: [String], buttons: [String] = [], selectedButton: Int? = nil, selectedParagraph: Int? = nil,
                maxTextWidth: Int = 50, alternativeBodies: [[String]] = [], style: Style = .plain, selectedStyle: Style = .selected) {
        self.alternativeBodies = alternativeBodies
        self.title = title
        self.body = body
        self.buttons = buttons
        self.selectedButton = selectedButton
        self.selectedParagraph = selectedParagraph
        self.maxTextWidth = maxTextWidth
        self.style = style
        self.selectedStyle = selectedStyle
    }

    /// Border plus one column of padding on each side.
    private static let chrome = 4

    private var buttonLabels: [String] { buttons.map { "[ \($0) ]" } }
    private static func rowWidth(_ labels: some Collection<String>) -> Int {
        labels.map { DisplayWidth.of($0) }.reduce(0, +) + 2 * max(0, labels.count - 1)
    }
    private var buttonRowWidth: Int { Self.rowWidth(buttonLabels) }

    /// The buttons' labels by row: one row when they fit in `width`, else as many as they need
    /// (long labels in German or French on a 60-column terminal); none is cut unless a label alone is wider than the sheet.
    private func buttonLayout(width: Int) -> [[(index: Int, label: String)]] {
        var rows: [[(index: Int, label: String)]] = []
        for (index, label) in buttonLabels.enumerated() {
            if let last = rows.last, Self.rowWidth(last.map(\.label) + [label]) <= width { rows[rows.count - 1].append((index, label)) }
            else { rows.append([(index, label)]) }
        }
        return rows
    }

    /// The sheet centred in `area`: its wrapped body and where everything goes.
    private struct Layout: Sendable {
        let lines: [(paragraph: Int, text: String)]
        let frame: Rect
        let buttonRows: Int
        var bodyRows: Int { max(0, frame.height - 2 - buttonRows) }
    }

    /// The last layout worked out: a frame asks for the same sheet's three times (the key map, the
    /// footer, the drawing), and wrapping its body each time was a tenth of a frame.
    private static let lastLayout = Locked<(sheet: Sheet, area: Rect, layout: Layout)?>(nil)

    private func layout(in area: Rect) -> Layout {
        if let last = Self.lastLayout.withLock({ $0 }), last.area == area, last.sheet == self { return last.layout }
        let layout = newLayout(in: area)
        Self.lastLayout.withLock { $0 = (self, area, layout) }
        return layout
    }

    private func newLayout(in area: Rect) -> Layout {
        let width = textWidth(in: area)
        let lines = Self.wrapped(body, width: width)
        let tallest = alternativeBodies.map { Self.wrapped($0, width: width).count }.reduce(lines.count, max)
        let buttonRows = buttonRows(width: width)
        return Layout(lines: lines, frame: area.centered(width: width + Self.chrome, height: tallest + buttonRows + 2), buttonRows: buttonRows)
    }

    /// Where the sheet goes when centred in `area`.
    public func frame(in area: Rect) -> Rect { layout(in: area).frame }

    /// The blank line and the rows the buttons take below the body.
    private func buttonRows(width: Int) -> Int { buttons.isEmpty ? 0 : 1 + buttonLayout(width: width).count }

    /// How many body lines show at once in `area`.
    public func bodyRows(in area: Rect) -> Int { layout(in: area).bodyRows }

    /// How far the body can scroll in `area`: 0 when it fits.
    public func maxScroll(in area: Rect) -> Int {
        let layout = layout(in: area)
        return max(0, layout.lines.count - layout.bodyRows)
    }

    /// `scroll` within bounds, moved just enough to show the selected paragraph.
    private func visibleScroll(_ lines: [(paragraph: Int, text: String)], rows: Int) -> Int {
        var first = min(max(0, scroll), max(0, lines.count - rows))
        if let selectedParagraph, let top = lines.firstIndex(where: { $0.paragraph == selectedParagraph }),
           let bottom = lines.lastIndex(where: { $0.paragraph == selectedParagraph }) {
            if bottom >= first + rows { first = bottom - rows + 1 }
            if top < first { first = top }
        }
        return first
    }

    private func textWidth(in area: Rect) -> Int {
        let natural = max(DisplayWidth.of(title) + 2, buttonRowWidth, ([body] + alternativeBodies).joined().map { DisplayWidth.of($0) }.max() ?? 0)
        return max(1, min(natural, maxTextWidth, area.width - Self.chrome))
    }

    private static func wrapped(_ body: [String], width: Int) -> [(paragraph: Int, text: String)] {
        body.enumerated().flatMap { i, paragraph in DisplayWidth.wrap(paragraph, width: width).map { (i, $0) } }
    }

    /// Draws the sheet centred in `area` and returns its frame.
    @discardableResult
    public func draw(in area: Rect, on canvas: inout Canvas) -> Rect {
        let layout = layout(in: area)
        return draw(frame: layout.frame, lines: layout.lines, on: &canvas)
    }

    /// Draws the title and body as a pane filling `rect` (a detail pane beside a list), without buttons.
    public func drawPane(in rect: Rect, on canvas: inout Canvas) {
        var pane = self
        pane.buttons = []
        pane.selectedParagraph = nil
        pane.draw(frame: rect, on: &canvas)
    }

    @discardableResult
    /// `lines`: the body wrapped to the frame's text width, when the caller has it.
    private func draw(frame: Rect, lines wrapped: [(paragraph: Int, text: String)]? = nil, on canvas: inout Canvas) -> Rect {
        canvas.fill(frame, style: style)
        let inner = Box(title: title, style: style, titleStyle: Style.bold.merged(over: style))
            .draw(in: frame, on: &canvas).inset(dx: 1, dy: 0)
        let lines = wrapped ?? Self.wrapped(body, width: inner.width)
        let rows = max(0, inner.height - buttonRows(width: inner.width))
        let first = visibleScroll(lines, rows: rows)
        for (i, line) in lines.dropFirst(first).prefix(rows).enumerated() {
            let selected = line.paragraph == selectedParagraph
            let s = selected ? selectedStyle.merged(over: style) : style
            // The padding too, so the selection reads as a bar across the sheet.
            if selected { canvas.fill(Rect(x: frame.x + 1, y: inner.y + i, width: frame.width - 2, height: 1), style: s) }
            canvas.put(line.text, at: inner.x, inner.y + i, maxWidth: inner.width, style: s)
        }
        markHidden(above: first > 0, below: first + rows < lines.count, frame: frame, on: &canvas)
        guard !buttons.isEmpty, inner.height >= 1 else { return frame }
        let layout = buttonLayout(width: inner.width)
        for (r, row) in layout.enumerated() {
            let y = inner.maxY - layout.count + r
            guard y >= inner.y else { continue }
            var x = inner.x + max(0, (inner.width - Self.rowWidth(row.map(\.label))) / 2)
            for button in row {
                let s = button.index == selectedButton ? selectedStyle : style
                x += canvas.put(button.label, at: x, y, maxWidth: inner.maxX - x, style: s) + 2
            }
        }
        return frame
    }

    /// `↑ more` on the top border and `↓ more` on the bottom one, at the right, for hidden lines.
    private func markHidden(above: Bool, below: Bool, frame: Rect, on canvas: inout Canvas) {
        let mark = Style.bold.merged(over: style)
        if above { canvas.put(" ↑ more ", at: frame.maxX - 10, frame.y, maxWidth: 8, style: mark) }
        if below { canvas.put(" ↓ more ", at: frame.maxX - 10, frame.maxY - 1, maxWidth: 8, style: mark) }
    }
}

extension Style {
    /// This style's attributes added to `base`, keeping base colours where this has none.
    func merged(over base: Style) -> Style {
        Style(foreground: foreground ?? base.foreground, background: background ?? base.background,
              bold: bold || base.bold, dim: dim || base.dim, reverse: reverse || base.reverse,
              underline: underline || base.underline)
    }
}
