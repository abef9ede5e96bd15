import Foundation
import Testing
import TerminalUI

/// Plays an asciicast's output events on a screen of cells, as a terminal would: the escape codes
/// the recorder writes (cursor position, clear, SGR, cursor visibility) and text, wide characters taking two cells.
/// (TerminalUITests and StorefrontAppTests both test the recording by playing it.)
public struct CastPlayer {
    public var width: Int
    public var height: Int
    public var rows: [[String]]
    public var events: [(time: Double, kind: String, data: String)] = []

    public init(castFile path: String) throws {
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        let header = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect(header["version"] as? Int == 2)
        width = try #require(header["width"] as? Int)
        height = try #require(header["height"] as? Int)
        rows = Array(repeating: Array(repeating: " ", count: width), count: height)
        for line in lines.dropFirst() {
            let event = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [Any])
            let entry = (time: try #require(event[0] as? Double), kind: try #require(event[1] as? String), data: try #require(event[2] as? String))
            events.append(entry)
            switch entry.kind {
            case "o": play(entry.data)
            case "r":
                let size = entry.data.split(separator: "x").compactMap { Int($0) }
                (width, height) = (size[0], size[1])
                rows = Array(repeating: Array(repeating: " ", count: width), count: height)
            default: Issue.record("unknown event \(entry.kind)")
            }
        }
    }

    public var screen: String { rows.map { $0.joined().replacingOccurrences(of: "\u{0}", with: "") }.joined(separator: "\n") }

    private mutating func play(_ data: String) {
        var (x, y) = (0, 0)
        var characters = data[...]
        while let character = characters.first {
            characters = characters.dropFirst()
            guard character == "\u{1B}" else {
                let cellWidth = max(1, DisplayWidth.of(character))
                if y < height, x < width {
                    rows[y][x] = String(character)
                    if cellWidth == 2, x + 1 < width { rows[y][x + 1] = "\u{0}" }
                }
                x += cellWidth
                continue
            }
            // CSI: ESC [ parameters final-byte
            guard characters.first == "[" else { continue }
            characters = characters.dropFirst()
            let parameters = characters.prefix { !$0.isLetter }
            characters = characters.dropFirst(parameters.count)
            let final = characters.first
            characters = characters.dropFirst()
            switch final {
            case "H":
                let p = parameters.split(separator: ";").compactMap { Int($0) }
                (y, x) = (p.first.map { $0 - 1 } ?? 0, p.dropFirst().first.map { $0 - 1 } ?? 0)
            case "J": rows = Array(repeating: Array(repeating: " ", count: width), count: height)
            default: break  // SGR (m) and cursor visibility (l) change no text
            }
        }
    }
}
