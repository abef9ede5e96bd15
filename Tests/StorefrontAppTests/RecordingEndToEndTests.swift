import Foundation
import Testing
import StorefrontTestSupport

/// `--record FILE.cast`: the presenter's recording of the real binary, in tmux.
@Suite(.tags(.tmux), .notInFastLoop, .enabled(if: TmuxSession.enabled, "needs tmux and `swift build` (set CI to fail instead of skipping)"))
struct RecordingEndToEndTests {
    @Test func recordWritesAnAsciicastOfWhatTheAudienceSaw() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("demo-\(getpid()).cast").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let s = try TmuxSession("record-\(getpid())", "--ephemeral", "--record", path)
        try s.wait(for: EndToEndTests.ready)
        try s.keys("Enter")
        try s.wait(for: "[Enter] Confirm")
        try s.keys("Enter")
        try s.wait(for: "100 Coins  Balance: 1")
        let lastScreen = try s.screen()
        try s.keys("q")
        try s.wait(for: "[exited 0]", seconds: 5)

        let played = try CastPlayer(castFile: path)
        #expect(played.screen.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
                == lastScreen.split(separator: "\n", omittingEmptySubsequences: false).prefix(24).map { $0.trimmingCharacters(in: .whitespaces) },
                "the recording, played back, ends on the screen tmux showed")
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        let header = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect(header["version"] as? Int == 2 && header["width"] as? Int == 80 && header["height"] as? Int == 24)
        let events = try lines.dropFirst().map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [Any]) }
        #expect(events.count >= 3, "the store, the payment sheet, the purchase")
        let times = events.compactMap { $0[0] as? Double }
        #expect(times == times.sorted(), "time only moves forward")
    }

    @Test func recordRefusesToWriteOverAnExistingFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("kept-\(getpid()).cast").path
        try "an earlier recording".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let s = try TmuxSession("record-kept-\(getpid())", "--ephemeral", "--record", path)
        try s.wait(for: "[exited 2]", seconds: 10)
        #expect(try s.screen(joined: true).contains("exists: choose another file for --record"))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "an earlier recording")
    }
}
