/// The interface's boxes, arrows and marks as ASCII look-alikes of the same width, for a terminal
/// whose locale is not UTF-8 (`LANG=C`), where line-drawing characters often show as garbage.
/// Text (product names, prices) is left alone: the store's own data must still read right.
public enum ASCIIFallback {
    static let table: [Character: String] = [
        "─": "-", "│": "|", "┌": "+", "┐": "+", "└": "+", "┘": "+", "├": "+", "┤": "+", "┬": "+", "┴": "+", "┼": "+",
        "↑": "^", "↓": "v", "←": "<", "→": ">", "▶": ">", "›": ">", "·": ".", "×": "x", "–": "-", "—": "-",
        "“": "\"", "”": "\"", "‘": "'", "’": "'", "…": ".", "≥": ">", "✓": "*", "✗": "x", "⚠": "!",
        "⏸": "=", "⌨": "#", "⤼": ">", "•": "*", "●": "*", "○": "o",
        "⠋": "|", "⠙": "/", "⠹": "-", "⠸": "\\", "⠼": "|", "⠴": "/", "⠦": "-", "⠧": "\\", "⠇": "|", "⠏": "/",
    ]

    /// The cell's text, its ASCII look-alike if it is one of the interface's glyphs.
    public static func text(_ cell: String) -> String {
        cell.count == 1 ? table[cell.first!] ?? cell : cell
    }
}
