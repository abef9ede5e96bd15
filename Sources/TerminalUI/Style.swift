/// The eight basic ANSI colours; `nil` in a `Style` means the terminal's default.
public enum Color: Int16, Sendable, Hashable, CaseIterable {
    case black = 0, red, green, yellow, blue, magenta, cyan, white
}

/// How one cell looks. Colours are hints: in monochrome they are dropped, so anything that
/// must stay visible (the selection) uses reverse video or bold.
public struct Style: Sendable, Hashable {
    public var foreground: Color?
    public var background: Color?
    public var bold: Bool
    public var dim: Bool
    public var reverse: Bool
    public var underline: Bool

    public init(foreground: Color? = nil, background: Color? = nil,
                bold: Bool = false, dim: Bool = false, reverse: Bool = false, underline: Bool = false) {
        self.foreground = foreground
        self.background = background
        self.bold = bold
        self.dim = dim
        self.reverse = reverse
        self.underline = underline
    }

    public static let plain = Style()
    public static let bold = Style(bold: true)
    public static let dim = Style(dim: true)
    /// The selection: reverse video, which every terminal can show, with or without colour.
    public static let selected = Style(reverse: true)

    /// This style as the terminal will show it in `mode`.
    public func resolved(for mode: ColorMode) -> Style {
        guard mode == .monochrome else { return self }
        var s = self
        s.foreground = nil
        s.background = nil
        return s
    }
}

/// Whether colours are drawn at all.
public enum ColorMode: Sendable, Hashable {
    case color, monochrome

    /// Decides from the environment and arguments: `NO_COLOR` set to any value (no-color.org),
    /// `TERM=dumb`, or a `--no-color` argument mean monochrome. The backend further downgrades
    /// to monochrome when the terminal reports no colours.
    public static func detect(environment: [String: String], arguments: [String] = []) -> ColorMode {
        if environment["NO_COLOR"] != nil { return .monochrome }
        if environment["TERM"] == "dumb" { return .monochrome }
        if arguments.contains("--no-color") { return .monochrome }
        return .color
    }
}
