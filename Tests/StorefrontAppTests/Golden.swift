import Foundation

/// Golden files: a screen's text compared with `folder/name.txt`.
enum Golden {
    /// Nil when the screen matches its golden (or was recorded); otherwise why the test fails:
    /// the golden is missing, or a unified diff from the golden to the screen.
    static func check(_ name: String, _ text: String, in folder: URL, record: Bool) throws -> String? {
        let url = folder.appendingPathComponent(name + ".txt")
        let actual = text + "\n"
        if record {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try actual.write(to: url, atomically: true, encoding: .utf8)
            return nil
        }
        guard FileManager.default.fileExists(atPath: url.path) else {
            return "no golden screen \(url.path): RECORD_SCREENS=1 swift test records it (review it like a screenshot)"
        }
        let expected = try String(contentsOf: url, encoding: .utf8)
        guard actual != expected else { return nil }
        return "screen \(name) differs from its golden (RECORD_SCREENS=1 rewrites it):\n"
            + LineDiff.unified(from: expected, to: actual, oldName: "Screens/\(name).txt", newName: "rendered")
    }
}
