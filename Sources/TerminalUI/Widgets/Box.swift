/// A bordered box drawn with Unicode box-drawing characters, with an optional title in the top edge.
public struct Box: Sendable {
    public var title: String?
    public var style: Style
    public var titleStyle: Style

    public init(title: String? = nil, style: Style = .plain, titleStyle: Style = .bold) {
        self.title = title
        self.style = style
        self.titleStyle = titleStyle
    }

    /// Draws the border on `rect` (at least 2×2) and returns the area inside it.
    @discardableResult
    public func draw(in rect: Rect, on canvas: inout Canvas) -> Rect {
        guard rect.width >= 2, rect.height >= 2 else { return Rect(x: rect.x, y: rect.y, width: 0, height: 0) }
        let horizontal = String(repeating: "─", count: rect.width - 2)
        canvas.put("┌" + horizontal + "┐", at: rect.x, rect.y, style: style)
        for y in (rect.y + 1)..<(rect.maxY - 1) {
            canvas.put("│", at: rect.x, y, style: style)
            canvas.put("│", at: rect.maxX - 1, y, style: style)
        }
        canvas.put("└" + horizontal + "┘", at: rect.x, rect.maxY - 1, style: style)
        if let title, rect.width >= 5 {
            let shown = DisplayWidth.truncate(title, toWidth: rect.width - 4)
            canvas.put(" " + shown + " ", at: rect.x + 1, rect.y, style: titleStyle)
        }
        return rect.inset(by: 1)
    }
}
