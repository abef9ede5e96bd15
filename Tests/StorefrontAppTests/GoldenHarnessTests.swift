import Foundation
import Testing

/// The golden-screen harness itself: a missing golden fails, a mismatch shows a unified diff.
@Suite struct GoldenHarnessTests {
    func scratchFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("goldens-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func aMissingGoldenFailsAndIsNotRecorded() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let failure = try #require(try Golden.check("store", "Coins", in: folder, record: false))
        #expect(failure.contains("no golden screen") && failure.contains("RECORD_SCREENS=1"))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("store.txt").path))
    }

    @Test func recordingWritesTheGoldenThatThenMatches() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try Golden.check("store", "Coins\n  Gems", in: folder, record: true) == nil)
        #expect(try Golden.check("store", "Coins\n  Gems", in: folder, record: false) == nil)
    }

    @Test func aMismatchFailsWithAUnifiedDiff() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try Golden.check("store", "a\nb\nc", in: folder, record: true)
        let failure = try #require(try Golden.check("store", "a\nB\nc", in: folder, record: false))
        #expect(failure.hasSuffix("--- Screens/store.txt\n+++ rendered\n@@ -1,4 +1,4 @@\n a\n-b\n+B\n c\n \n"))
    }
}

@Suite struct LineDiffTests {
    @Test func equalTextsHaveNoDiff() {
        #expect(LineDiff.unified(from: "a\nb\n", to: "a\nb\n") == "")
    }

    @Test func aChangedLineShowsWithItsContext() {
        let old = (1...9).map { "line \($0)" }.joined(separator: "\n")
        let new = old.replacingOccurrences(of: "line 5", with: "line five")
        #expect(LineDiff.unified(from: old, to: new, context: 2) == """
            --- expected
            +++ actual
            @@ -3,5 +3,5 @@
             line 3
             line 4
            -line 5
            +line five
             line 6
             line 7

            """)
    }

    @Test func distantChangesAreSeparateHunksAndCloseOnesMerge() {
        let old = (1...20).map(String.init).joined(separator: "\n")
        var lines = (1...20).map(String.init)
        lines[1] = "two"; lines[3] = "four"; lines[17] = "eighteen"
        let diff = LineDiff.unified(from: old, to: lines.joined(separator: "\n"), context: 1)
        #expect(diff.components(separatedBy: "\n").filter { $0.hasPrefix("@@") } == ["@@ -1,5 +1,5 @@", "@@ -17,3 +17,3 @@"])
    }

    @Test func addedAndRemovedLinesAtTheEnds() {
        #expect(LineDiff.unified(from: "a\nb", to: "b\nc", context: 0) == """
            --- expected
            +++ actual
            @@ -1,1 +0,0 @@
            -a
            @@ -2,0 +2,1 @@
            +c

            """)
        #expect(LineDiff.ops(["x"], []) == [.removed("x")])
        #expect(LineDiff.ops([], ["y"]) == [.added("y")])
    }
}
