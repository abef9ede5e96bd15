/// Terminal display width of text, measured per grapheme (`Character`).
///
/// `wcwidth` depends on the process locale and glibc hides it, so layout and tests use this
/// table instead: East Asian wide/full-width ranges and emoji presentation take 2 cells,
/// combining marks, joiners, variation selectors and controls take 0, everything else 1.
public enum DisplayWidth {
    /// Width of one Unicode scalar on its own.
    public static func of(_ scalar: Unicode.Scalar) -> Int {
        let v = scalar.value
        if v == 0 { return 0 }
        if v < 0x20 || (v >= 0x7F && v < 0xA0) { return 0 }  // C0/C1 controls
        if v < 0x300 { return 1 }  // fast path: Latin
        if (0x1160...0x11FF).contains(v) { return 0 }  // Hangul medial vowels/final consonants join the syllable
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format, .control: return 0  // includes ZWJ, VS1-16
        default: break
        }
        if isWide(v) || scalar.properties.isEmojiPresentation { return 2 }
        return 1
    }

    /// Width of one grapheme: that of its first non-zero-width scalar; an emoji followed by
    /// VS16 (U+FE0F) asks for emoji presentation and takes 2, VS15 (U+FE0E) text presentation 1.
    public static func of(_ character: Character) -> Int {
        if let ascii = character.asciiValue { return ascii >= 0x20 && ascii < 0x7F ? 1 : 0 }  // most of every frame
        let scalars = character.unicodeScalars
        guard let first = scalars.first(where: { of($0) > 0 }) else { return 0 }
        if scalars.contains("\u{FE0E}") { return 1 }
        if scalars.contains("\u{FE0F}") && first.properties.isEmoji { return 2 }
        return of(first)
    }

    /// Width of a string in terminal cells.
    public static func of(_ text: some StringProtocol) -> Int {
        // Printable ASCII, most of what a frame measures: a cell a byte, no grapheme breaking.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text.utf8.count }
        var total = 0
        for c in text { total += of(c) }
        return total
    }

    /// East Asian Wide and Fullwidth ranges (UAX #11), coarse but covering CJK, kana, Hangul,
    /// CJK punctuation and full-width forms.
    static func isWide(_ v: UInt32) -> Bool {
        switch v {
        case 0x1100...0x115F,  // Hangul Jamo initial consonants
             0x2329...0x232A,
             0x2E80...0x303E,  // CJK radicals, Kangxi, CJK symbols and punctuation
             0x3041...0x33FF,  // Hiragana, Katakana, Bopomofo, Hangul compatibility Jamo, CJK compatibility
             0x3400...0x4DBF,  // CJK extension A
             0x4E00...0x9FFF,  // CJK unified ideographs
             0xA000...0xA4CF,  // Yi
             0xA960...0xA97F,  // Hangul Jamo extended A
             0xAC00...0xD7A3,  // Hangul syllables
             0xF900...0xFAFF,  // CJK compatibility ideographs
             0xFE10...0xFE19,  // vertical forms
             0xFE30...0xFE6F,  // CJK compatibility forms, small form variants
             0xFF00...0xFF60,  // full-width ASCII and punctuation
             0xFFE0...0xFFE6,  // full-width signs
             0x1B000...0x1B2FF,  // kana supplement and extensions
             0x1F200...0x1F2FF,  // enclosed ideographic supplement
             0x20000...0x3FFFD:  // CJK extensions B and later
            return true
        default:
            return false
        }
    }

    /// Cuts `text` to at most `width` cells, ending in `ellipsis` when something was cut.
    /// Never splits a grapheme; when even the ellipsis does not fit, the text is cut bare.
    public static func truncate(_ text: String, toWidth width: Int, ellipsis: String = "…") -> String {
        guard width > 0 else { return "" }
        if of(text) <= width { return text }
        let ellipsisWidth = of(ellipsis)
        let budget = ellipsisWidth <= width ? width - ellipsisWidth : width
        var out = ""
        var used = 0
        for c in text {
            let w = of(c)
            if used + w > budget { break }
            out.append(c)
            used += w
        }
        return ellipsisWidth <= width ? out + ellipsis : out
    }

    public enum Alignment: Sendable { case leading, center, trailing }

    /// Pads `text` with spaces to exactly `width` cells; longer text is truncated with an ellipsis.
    public static func pad(_ text: String, toWidth width: Int, alignment: Alignment = .leading) -> String {
        let fitted = truncate(text, toWidth: width)
        let gap = max(0, width - of(fitted))
        switch alignment {
        case .leading: return fitted + String(repeating: " ", count: gap)
        case .trailing: return String(repeating: " ", count: gap) + fitted
        case .center:
            let left = gap / 2
            return String(repeating: " ", count: left) + fitted + String(repeating: " ", count: gap - left)
        }
    }

    /// Word-wraps `text` to lines of at most `width` cells. Breaks at spaces and between any two
    /// wide characters (CJK has no spaces); closing CJK punctuation stays on its line; words wider
    /// than a line are cut by width. Explicit newlines start new lines.
    public static func wrap(_ text: String, width: Int) -> [String] {
        guard width > 0 else { return [] }
        return text.split(separator: "\n", omittingEmptySubsequences: false).flatMap {
            wrapParagraph(Substring($0), width: width)
        }
    }

    private static func wrapParagraph(_ text: Substring, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        var lineWidth = 0
        var pendingSpace = ""  // spaces seen since the last token; dropped at a line break
        for token in tokens(text) {
            if token.allSatisfy({ $0 == " " }) { pendingSpace += token; continue }
            let w = of(token)
            let spaceWidth = of(pendingSpace)
            if lineWidth > 0 && lineWidth + spaceWidth + w <= width {
                line += pendingSpace + token
                lineWidth += spaceWidth + w
            } else {
                if lineWidth > 0 { lines.append(line) }
                line = ""
                lineWidth = 0
                // A token wider than the whole line is cut by width.
                for c in token {
                    let cw = of(c)
                    if lineWidth + cw > width && lineWidth > 0 {
                        lines.append(line)
                        line = ""
                        lineWidth = 0
                    }
                    line.append(c)
                    lineWidth += cw
                }
            }
            pendingSpace = ""
        }
        lines.append(line)
        return lines
    }

    /// Closing punctuation that must not begin a line (a tiny kinsoku rule).
    private static let noLineStart: Set<Character> = ["、", "。", "，", "．", "！", "？", "：", "；", "）", "」", "』", "】", "〉", "》", "ー", "…"]

    /// Splits into runs of spaces, runs of narrow non-space characters, and single wide characters.
    private static func tokens(_ text: Substring) -> [String] {
        var tokens: [String] = []
        var current = ""
        var currentIsSpace = false
        func flush() { if !current.isEmpty { tokens.append(current); current = "" } }
        for c in text {
            if c == " " {
                if !currentIsSpace { flush() }
                current.append(c)
                currentIsSpace = true
            } else if of(c) == 2 || noLineStart.contains(c) {
                flush()
                currentIsSpace = false
                if noLineStart.contains(c), let last = tokens.last, last.first != " " {
                    tokens[tokens.count - 1] = last + String(c)
                } else {
                    tokens.append(String(c))
                }
            } else {
                if currentIsSpace { flush() }
                current.append(c)
                currentIsSpace = false
            }
        }
        flush()
        return tokens
    }
}
