/// A vertical list of one-line rows with a selection that always stays visible.
/// Stateless: the caller keeps `offset` (the first visible row) and stores what `draw` returns.
public struct ListView: Sendable {
    public var rows: [String]
    public var selected: Int?
    public var offset: Int
    public var style: Style
    public var selectedStyle: Style
    /// Drawn before the selected row (others get the same width of spaces), e.g. "› ",
    /// so the selection also shows in plain-text goldens.
    public var marker: String

    public init(rows: [String], selected: Int?, offset: Int = 0, style: Style = .plain,
                selectedStyle: Style = .selected, marker: String = "") {
        self.rows = rows
        self.selected = selected
        self.offset = offset
        self.style = style
        self.selectedStyle = selectedStyle
        self.marker = marker
    }

    /// The first visible row after the least scrolling from `previous` that shows `selected`
    /// and leaves no empty space at the bottom when rows could fill it.
    public static func scrollOffset(selected: Int?, previous: Int, visibleRows: Int, count: Int) -> Int {
        guard visibleRows > 0, count > 0 else { return 0 }
        var offset = min(max(0, previous), max(0, count - visibleRows))
        if let selected {
            if selected < offset { offset = selected }
            if selected >= offset + visibleRows { offset = selected - visibleRows + 1 }
        }
        return max(0, offset)
    }

    /// Draws the visible rows into `rect`, the selected one across the full width in
    /// `selectedStyle`. Returns the offset used, to keep for the next frame.
    @discardableResult
    public func draw(in rect: Rect, on canvas: inout Canvas) -> Int {
        let offset = Self.scrollOffset(selected: selected, previous: offset, visibleRows: rect.height, count: rows.count)
        let gutter = String(repeating: " ", count: DisplayWidth.of(marker))
        for line in 0..<rect.height {
            let index = offset + line
            guard index < rows.count else { break }
            let isSelected = index == selected
            let s = isSelected ? selectedStyle : style
            canvas.fill(rect.row(line), style: s)
            let prefix = isSelected ? marker : gutter
            let text = DisplayWidth.truncate(prefix + rows[index], toWidth: rect.width)
            canvas.put(text, at: rect.x, rect.y + line, maxWidth: rect.width, style: s)
        }
        return offset
    }
}
