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

extension AppleLibraryPython {
    struct Missing: Error, CustomStringConvertible { var description: String }

    /// Runs one of `Tests/AppleLibrary`'s scripts with `input` on its standard input; what it printed.
    public static func run(script name: String, input: Data) async throws -> Data {
        guard let python = path else { throw Missing(description: "CI=true but Apple's library is missing: .ci/run creates .venv-apple") }
        let script = Repo.root.appendingPathComponent("Tests/AppleLibrary/\(name)").path
        return try await offPool { () throws -> Data in
            let process = Process(), stdin = Pipe(), stdout = Pipe()
            process.executableURL = URL(fileURLWithPath: python)
            process.arguments = [script]
            (process.standardInput, process.standardOutput) = (stdin, stdout)
            try process.run()
            stdin.fileHandleForWriting.write(input)
            try stdin.fileHandleForWriting.close()
            defer { process.waitUntilExit() }
            return stdout.fileHandleForReading.readDataToEndOfFile()
        }
    }

    /// What a developer's server signs with the team's key `keyID` (a `.p8` at `keyPath`), made by
    /// Apple's library (`sign_with_apple.py`: "v2", "legacy" and "intro" requests).
    public static func sign(_ requests: [[String: Any]], keyPath: String, keyID: String, issuerID: String,
                            bundleID: String = "com.lumenquest.app") async throws -> [String] {
        let input = try JSONSerialization.data(withJSONObject: ["keyPath": keyPath, "keyId": keyID, "issuerId": issuerID,
                                                                "bundleId": bundleID, "requests": requests])
        let output = try await run(script: "sign_with_apple.py", input: input)
        guard let reply = try? JSONSerialization.jsonObject(with: output) as? [String: Any], let signatures = reply["signatures"] as? [String] else {
            throw Missing(description: "sign_with_apple.py printed \(String(decoding: output, as: UTF8.self))")
        }
        return signatures
    }
}
