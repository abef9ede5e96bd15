/// A one-line text input: editing state plus a width-aware view with a visible cursor.
public struct TextField: Sendable, Hashable {
    public private(set) var text: String
    /// Cursor position in graphemes, 0...text.count.
    public private(set) var cursor: Int
    /// The most graphemes accepted, if limited (offer codes have a fixed length, say).
    public var maxLength: Int?

    public init(text: String = "", maxLength: Int? = nil) {
        self.text = text
        self.cursor = text.count
        self.maxLength = maxLength
    }

    public mutating func insert(_ string: String) {
        let before = text.count
        var string = string.filter { !$0.unicodeScalars.contains { $0.properties.generalCategory == .control } }
        if let maxLength { string = String(string.prefix(max(0, maxLength - before))) }
        guard !string.isEmpty else { return }
        text.insert(contentsOf: string, at: index(cursor))
        // A combining mark may merge into the previous grapheme, so measure rather than add.
        cursor += text.count - before
    }

    public mutating func backspace() {
        guard cursor > 0 else { return }
        text.remove(at: index(cursor - 1))
        cursor -= 1
    }

    public mutating func deleteForward() {
        guard cursor < text.count else { return }
        text.remove(at: index(cursor))
    }

    public mutating func moveLeft() { cursor = max(0, cursor - 1) }
    public mutating func moveRight() { cursor = min(text.count, cursor + 1) }
    public mutating func moveHome() { cursor = 0 }
    public mutating func moveEnd() { cursor = text.count }

    public mutating func clear() {
        text = ""
        cursor = 0
    }

    /// Applies an editing key; returns false for keys a field does not use (Enter, Esc, Tab, …)
    /// so the caller can handle them.
    @discardableResult
    public mutating func handle(_ key: Key) -> Bool {
        switch key {
        case .character(let c): insert(String(c))
        case .backspace: backspace()
        case .delete: deleteForward()
        case .left: moveLeft()
        case .right: moveRight()
        case .home: moveHome()
        case .end: moveEnd()
        default: return false
        }
        return true
    }

    /// The part of the text shown in `width` cells, scrolled so the cursor fits, and the
    /// cursor's column within it. The cursor needs a cell of its own at the end of the text.
    public func visible(width: Int) -> (text: String, cursorColumn: Int) {
        guard width > 0 else { return ("", 0) }
        let chars = Array(text)
        let cursorWidth = cursor < chars.count ? DisplayWidth.of(chars[cursor]) : 1
        var start = 0
        var before = DisplayWidth.of(String(chars[0..<cursor]))
        while before + cursorWidth > width && start < cursor {
            before -= DisplayWidth.of(chars[start])
            start += 1
        }
        var shown = ""
        var used = 0
        for c in chars[start...] {
            let w = DisplayWidth.of(c)
            if used + w > width { break }
            shown.append(c)
            used += w
        }
        return (shown, before)
    }

    /// Draws the field on one row: text in `style`, the cursor cell in `cursorStyle`,
    /// `placeholder` dimmed while empty.
    public func draw(at x: Int, _ y: Int, width: Int, on canvas: inout Canvas, style: Style = .underlineField,
                     cursorStyle: Style = .selected, placeholder: String = "") {
        guard width > 0 else { return }
        canvas.fill(Rect(x: x, y: y, width: width, height: 1), style: style)
        let (shown, column) = visible(width: width)
        if text.isEmpty && !placeholder.isEmpty {
            canvas.put(placeholder, at: x + 1, y, maxWidth: width - 1, style: style.merged(over: .dim))
        }
        canvas.put(shown, at: x, y, maxWidth: width, style: style)
        let chars = Array(text)
        let under = cursor < chars.count ? String(chars[cursor]) : " "
        canvas.put(under, at: x + column, y, maxWidth: width - column, style: cursorStyle)
    }

    private func index(_ offset: Int) -> String.Index { text.index(text.startIndex, offsetBy: offset) }
}

extension Style {
    /// The default look of an input field: underlined, so its extent shows without colour.
    public static let underlineField = Style(underline: true)
}
