import Foundation

/// Apple's App Store Server Library (Python, `app-store-server-library` 3.x), the real client some
/// suites run: the interpreter of the venv `.ci/run` creates (`.venv-apple`), or `APPLE_LIBRARY_PYTHON`.
public enum AppleLibraryPython {
    public static let path: String? = {
        let path = ProcessInfo.processInfo.environment["APPLE_LIBRARY_PYTHON"].flatMap { $0.isEmpty ? nil : $0 }
            ?? Repo.root.appendingPathComponent(".venv-apple/bin/python").path
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }()
    /// On CI (`CI=true`) a missing library is a failure that says so, not a skip.
    public static let requiredByCI = ProcessInfo.processInfo.environment["CI"] == "true"
    /// Whether the suites that run it run.
    public static let enabled = path != nil || requiredByCI
}
