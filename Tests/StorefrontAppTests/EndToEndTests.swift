import Foundation
import Testing
@testable import StorefrontApp

/// Drives the real binary in tmux, as a person would, waiting for text rather than sleeping.
@Suite(.serialized) struct EndToEndTests {
    static let binary = Repo.root.appendingPathComponent(".build/debug/storefront").path
    static let tmuxPath: String? = ["/usr/bin/tmux", "/usr/local/bin/tmux"].first { FileManager.default.isExecutableFile(atPath: $0) }

    @discardableResult
    func tmux(_ args: String...) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Self.tmuxPath!)
        p.arguments = args
        // Output goes to a file, not a pipe: the tmux server that new-session forks would hold a pipe open forever.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tmux-\(UUID().uuidString).out")
        FileManager.default.createFile(atPath: file.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: file) }
        let handle = try FileHandle(forWritingTo: file)
        p.standardOutput = handle
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        try handle.close()
        return (try? String(contentsOf: file, encoding: .utf8)) ?? ""
    }

    func waitFor(_ text: String, session: String, seconds: Double = 10) throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try tmux("capture-pane", "-p", "-t", session).contains(text) { return true }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return false
    }

    @Test(.enabled(if: tmuxPath != nil && FileManager.default.isExecutableFile(atPath: binary)))
    func buyAConsumable() throws {
        let session = "storefront-e2e-\(getpid())"
        try tmux("new-session", "-d", "-s", session, "-x", "80", "-y", "24", "-c", Repo.root.path,
                 "TERM=xterm-256color LANG=C.UTF-8 \(Self.binary) --ephemeral; echo '[exited'; sleep 30")
        defer { _ = try? tmux("kill-session", "-t", session) }
        #expect(try waitFor("Balance: 0", session: session))
        try tmux("send-keys", "-t", session, "Enter")
        #expect(try waitFor("Confirm", session: session))
        try tmux("send-keys", "-t", session, "+", "Enter")
        let bought = try waitFor("Balance: 2", session: session)
        let screen = try tmux("capture-pane", "-p", "-t", session)
        #expect(bought, "screen:\n\(screen)")
        try tmux("send-keys", "-t", session, "q")
        let exited = try waitFor("[exited", session: session, seconds: 5)
        #expect(exited)
    }
}
