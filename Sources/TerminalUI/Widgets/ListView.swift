/// A scrolling list of items, each one or more lines, scrolled so the whole selected item shows.
/// Lines of no item (headings, blank separators) scroll with the rest. Stateless: the scroll
/// offset follows from the selection, so the caller keeps nothing between frames.
public struct ListView: Sendable {
    /// One row of the list. Its text may be made lazily: only the rows on screen are ever built.
    public struct Line: Sendable {
        private let make: @Sendable () -> String
        public var style: Style
        /// The item this line shows; nil for headings and separators.
        public var item: Int?
        /// Right-aligned text on the same row (a price), in bold.
        public var trailing: String

        public var text: String { make() }

        public init(_ text: String, style: Style = .plain, item: Int? = nil, trailing: String = "") {
            self.init(lazy: { text }, style: style, item: item, trailing: trailing)
        }

        public init(lazy make: @escaping @Sendable () -> String, style: Style = .plain, item: Int? = nil, trailing: String = "") {
            self.make = make
            self.style = style
            self.item = item
            self.trailing = trailing
        }
    }

    public var lines: [Line]
    public var selected: Int?
    /// Whether the selection is drawn (in reverse video across the row, `marker` over the first cell
    /// of its first line so it also shows in plain text and to screen readers). The list scrolls to
    /// the selection either way, e.g. under a sheet.
    public var showsSelection: Bool
    public var marker: String

    public init(_ lines: [Line], selected: Int?, showsSelection: Bool = true, marker: String = "›") {
        self.lines = lines
        self.selected = selected
        self.showsSelection = showsSelection
        self.marker = marker
    }

    /// The first visible line: the least scrolling from the top that shows all of `selectedLines`,
    /// or their first line when they are more than `visibleRows`.
    public static func scrollOffset(selectedLines: ClosedRange<Int>?, visibleRows: Int) -> Int {
        guard let selectedLines else { return 0 }
        var offset = 0
        if selectedLines.upperBound >= visibleRows { offset = selectedLines.upperBound - visibleRows + 1 }
        return min(offset, selectedLines.lowerBound)
    }

    /// Draws the visible lines in `rect`. With `hintRow`, says there is more above or below
    /// ("↑↓ more", right-aligned and dim) on that row, so no line of the list is covered.
    /// Returns the scroll offset used.
    @discardableResult
    public func draw(in rect: Rect, on canvas: inout Canvas, hintRow: Rect? = nil) -> Int {
        let mine = selected.map { item in lines.indices.filter { lines[$0].item == item } } ?? []
        let offset = Self.scrollOffset(selectedLines: mine.first.map { $0...mine.last! }, visibleRows: rect.height)
        for (row, line) in lines.dropFirst(offset).prefix(rect.height).enumerated() {
            let y = rect.y + row
            let isSelected = showsSelection && line.item != nil && line.item == selected
            var style = line.style
            if isSelected { style.reverse = true; canvas.fill(rect.row(row), style: style) }
            let trailingWidth = DisplayWidth.of(line.trailing)
            let textWidth = rect.width - (trailingWidth > 0 ? trailingWidth + 2 : 0)
            canvas.put(DisplayWidth.truncate(line.text, toWidth: textWidth), at: rect.x, y, maxWidth: textWidth, style: style)
            if isSelected, offset + row == mine.first { canvas.put(marker, at: rect.x, y, style: style) }
            if trailingWidth > 0 {
                canvas.put(line.trailing, at: rect.maxX - trailingWidth, y, style: Style.bold.merged(over: style))
            }
        }
        if let hintRow, lines.count > rect.height {
            let more = (offset > 0 ? "↑" : " ") + (offset + rect.height < lines.count ? "↓" : " ") + " more"
            canvas.put(more, at: hintRow.maxX - DisplayWidth.of(more), hintRow.y, style: .dim)
        }
        return offset
    }
}
