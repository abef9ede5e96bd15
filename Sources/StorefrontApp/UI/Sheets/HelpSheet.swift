import TerminalUI

/// `?`: every key in force on the screen underneath, from the same key map as dispatch and the footer.
struct HelpSheet: SheetView {
    var stacked: SheetState { .help }

    func sheet(_ state: AppState, in area: Rect) -> Sheet {
        Sheet(title: "Keys", body: Self.body(KeyMap.helpLines(for: state), rows: area.height - 2), maxTextWidth: 76)
    }

    /// The help lines, in two columns when one does not fit the height.
    static func body(_ lines: [String], rows: Int) -> [String] {
        guard lines.count > rows, rows > 0 else { return lines }
        let half = (lines.count + 1) / 2
        let width = lines.prefix(half).map { DisplayWidth.of($0) }.max() ?? 0
        return (0..<half).map { i in
            // No-break spaces: the sheet wraps at ordinary spaces, and this padding must survive.
            let left = lines[i] + String(repeating: "\u{00A0}", count: width - DisplayWidth.of(lines[i]) + 3)
            return i + half < lines.count ? left + lines[i + half] : lines[i]
        }
    }
}
