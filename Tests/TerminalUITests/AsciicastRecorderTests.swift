import Foundation
import Testing
@testable import TerminalUI
import StorefrontTestSupport

@Suite struct AsciicastRecorderTests {
    func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("cast-\(UUID().uuidString).cast").path
    }

    func canvas(_ lines: [String], width: Int = 20, style: Style = .plain) -> Canvas {
        var canvas = Canvas(width: width, height: lines.count)
        for (y, line) in lines.enumerated() { _ = canvas.put(line, at: 0, y, style: style) }
        return canvas
    }

    @Test func aRecordingPlayedBackShowsEveryFrameAsDrawnIncludingWideCharactersAndResizes() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        var now = 0.0
        let recorder = try AsciicastRecorder(path: path, size: Size(width: 20, height: 3), colorMode: .color, title: "Store \"demo\"",
                                             environment: ["TERM": "xterm-256color"], elapsed: { now })
        recorder.record(canvas(["100 Coins  $0.99", "Pro", ""]))
        now = 1.5
        recorder.record(canvas(["100 Coins  $0.99", "Pro  ✓ Owned", "コイン100枚"]))
        now = 2.25
        recorder.record(canvas(["100 Coins  $0.99", "Pro  ✓ Owned", "コイン100枚"]))  // nothing changed: no event
        recorder.record(canvas(["Small", "screen"], width: 12))
        recorder.close()

        let player = try CastPlayer(castFile: path)
        #expect(player.events.map(\.kind) == ["o", "o", "r", "o"])
        #expect(player.events.map(\.time) == [0, 1.5, 2.25, 2.25])
        #expect(player.screen == "Small       \nscreen      ")
        // The second frame wrote only the two rows that changed.
        #expect(!player.events[1].data.contains("100 Coins"))

        let partial = try CastPlayer(castFile: try prefix(path, lines: 3))
        #expect(partial.screen == """
            100 Coins  $0.99    
            Pro  ✓ Owned        
            コイン100枚         
            """)
    }

    @Test func theHeaderIsAsciicastVersionTwoWithSizeTitleAndTerminal() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let recorder = try AsciicastRecorder(path: path, size: Size(width: 80, height: 24), colorMode: .color, title: "Lumen \"Quest\"",
                                             environment: ["TERM": "xterm-256color", "SHELL": "/bin/bash", "SECRET": "x"], elapsed: { 0 })
        recorder.close()
        let header = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        #expect(header["version"] as? Int == 2)
        #expect(header["width"] as? Int == 80 && header["height"] as? Int == 24)
        #expect(header["title"] as? String == "Lumen \"Quest\"")
        #expect(header["env"] as? [String: String] == ["TERM": "xterm-256color", "SHELL": "/bin/bash"], "only what a player needs")
    }

    @Test func coloursAreRecordedUnlessTheScreenIsMonochrome() throws {
        let red = canvas(["Failed"], style: Style(foreground: .red, bold: true))
        #expect(AsciicastRecorder.ansi(red, from: nil, colorMode: .color).contains("\u{1B}[0;1;31m"))
        #expect(!AsciicastRecorder.ansi(red, from: nil, colorMode: .monochrome).contains("31"))
        #expect(AsciicastRecorder.ansi(red, from: nil, colorMode: .monochrome).contains("\u{1B}[0;1m"))
    }

    @Test func anExistingFileIsNeverWrittenOver() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "yesterday's demo".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: AsciicastRecorder.OpenError.self) {
            try AsciicastRecorder(path: path, size: Size(width: 80, height: 24), colorMode: .color)
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "yesterday's demo")
        #expect(throws: AsciicastRecorder.OpenError.self) {
            try AsciicastRecorder(path: "/nonexistent-dir/demo.cast", size: Size(width: 80, height: 24), colorMode: .color)
        }
    }

    /// The first `lines` lines of a cast, as a file of its own.
    func prefix(_ path: String, lines: Int) throws -> String {
        let text = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").prefix(lines).joined(separator: "\n") + "\n"
        let copy = temporaryPath()
        try text.write(toFile: copy, atomically: true, encoding: .utf8)
        return copy
    }
}
