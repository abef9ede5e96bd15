/// A key hint shown in a footer or help overlay: `[key] label`.
public struct KeyHint: Sendable, Hashable {
    public var key: String
    public var label: String
    /// Kept however narrow the footer: the hint that leads to every other key (`[?] Help`).
    public var pinned: Bool

    public init(_ key: String, _ label: String, pinned: Bool = false) {
        self.key = key
        self.label = label
        self.pinned = pinned
    }

    public var text: String { "[\(key)] \(label)" }
}

/// One row of key hints laid out to a width. Hints are in priority order; a hint that does
/// not fit is dropped and later, shorter ones may still fit.
public enum Footer {
    public static let separator = "  "

    /// The hints that fit in `width` cells, in order; room for the pinned ones is kept first.
    public static func fit(_ hints: [KeyHint], width: Int) -> [KeyHint] {
        func cost(_ hint: KeyHint) -> Int { DisplayWidth.of(hint.text) + DisplayWidth.of(separator) }
        var used = DisplayWidth.of(separator) * -1
        var kept = Set<Int>()
        for pass in [true, false] {
            for (i, hint) in hints.enumerated() where hint.pinned == pass && used + cost(hint) <= width {
                kept.insert(i)
                used += cost(hint)
            }
        }
        return hints.indices.filter(kept.contains).map { hints[$0] }
    }

    /// The footer as plain text.
    public static func text(_ hints: [KeyHint], width: Int) -> String {
        fit(hints, width: width).map(\.text).joined(separator: separator)
    }

    /// Draws the footer on the first row of `rect`, keys in `keyStyle`.
    public static func draw(_ hints: [KeyHint], in rect: Rect, on canvas: inout Canvas,
                            style: Style = .plain, keyStyle: Style = .bold) {
        guard rect.height > 0 else { return }
        canvas.fill(rect.row(0), style: style)
        var x = rect.x
        for (i, hint) in fit(hints, width: rect.width).enumerated() {
            if i > 0 { x += canvas.put(separator, at: x, rect.y, style: style) }
            x += canvas.put("[\(hint.key)]", at: x, rect.y, style: keyStyle.merged(over: style))
            x += canvas.put(" " + hint.label, at: x, rect.y, style: style)
        }
    }
}
