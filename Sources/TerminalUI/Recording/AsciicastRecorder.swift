import Foundation

/// Records the screen as an asciicast v2 file (docs.asciinema.org/manual/asciicast/v2), which any
/// asciinema player plays: a JSON header line, then a `[seconds, "o", text]` event per frame holding
/// the ANSI that turns the last frame into this one, and `[seconds, "r", "WxH"]` when the size changes.
/// Frames come from the same cell grid the backend draws, so the recording is what the audience saw,
/// without tapping ncurses' output.
public final class AsciicastRecorder {
    public struct OpenError: Error, CustomStringConvertible {
        public let description: String
    }

    private let file: FileHandle
    private let colorMode: ColorMode
    private let elapsed: () -> Double
    private var previous: Canvas?

    /// Creates `path` (never over an existing file: a recording is not lost to a typo) and writes the header.
    /// `elapsed`: seconds since the recording began (a test passes its own clock).
    public init(path: String, size: Size, colorMode: ColorMode, title: String? = nil,
                environment: [String: String] = ProcessInfo.processInfo.environment, elapsed: (() -> Double)? = nil) throws {
        guard !FileManager.default.fileExists(atPath: path) else {
            throw OpenError(description: "\(path) exists: choose another file for --record (a recording is never written over)")
        }
        guard FileManager.default.createFile(atPath: path, contents: nil), let file = FileHandle(forWritingAtPath: path) else {
            throw OpenError(description: "cannot create \(path) for --record: check that its directory exists and is writable")
        }
        self.file = file
        self.colorMode = colorMode
        let start = ContinuousClock.now
        self.elapsed = elapsed ?? { let d = ContinuousClock.now - start; return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }
        var header = ["\"version\": 2", "\"width\": \(size.width)", "\"height\": \(size.height)",
                      "\"timestamp\": \(Int(Date().timeIntervalSince1970))"]
        let env = ["TERM", "SHELL"].compactMap { key in environment[key].map { "\(Self.quoted(key)): \(Self.quoted($0))" } }
        header.append("\"env\": {\(env.joined(separator: ", "))}")
        if let title { header.append("\"title\": \(Self.quoted(title))") }
        write("{" + header.joined(separator: ", ") + "}")
    }

    /// Records a frame: only the cells that changed since the last one.
    public func record(_ canvas: Canvas) {
        let time = String(format: "%.6f", elapsed())
        if let previous, previous.size != canvas.size {
            write("[\(time), \"r\", \"\(canvas.width)x\(canvas.height)\"]")
        }
        let frame = Self.ansi(canvas, from: previous, colorMode: colorMode)
        previous = canvas
        guard !frame.isEmpty else { return }
        write("[\(time), \"o\", \(Self.quoted(frame))]")
    }

    public func close() {
        try? file.close()
    }

    private func write(_ line: String) {
        try? file.write(contentsOf: Data((line + "\n").utf8))
    }

    /// The ANSI a terminal needs to show `canvas` over `old` (everything, after clearing, when there is none).
    static func ansi(_ canvas: Canvas, from old: Canvas?, colorMode: ColorMode) -> String {
        let runs = canvas.changedRuns(from: old?.size == canvas.size ? old : nil)
        guard !runs.isEmpty else { return "" }
        var out = old?.size == canvas.size ? "" : "\u{1B}[?25l\u{1B}[2J"
        for run in runs {
            out += "\u{1B}[\(run.y + 1);\(run.x + 1)H"
            var style: Style?
            for cell in run.cells where !cell.isContinuation {
                let resolved = cell.style.resolved(for: colorMode)
                if resolved != style { out += sgr(resolved); style = resolved }
                out += cell.text
            }
        }
        return out + "\u{1B}[0m"
    }

    static func sgr(_ style: Style) -> String {
        var codes = ["0"]
        if style.bold { codes.append("1") }
        if style.dim { codes.append("2") }
        if style.underline { codes.append("4") }
        if style.reverse { codes.append("7") }
        if let foreground = style.foreground { codes.append(String(30 + Int(foreground.rawValue))) }
        if let background = style.background { codes.append(String(40 + Int(background.rawValue))) }
        return "\u{1B}[" + codes.joined(separator: ";") + "m"
    }

    /// A JSON string literal.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
