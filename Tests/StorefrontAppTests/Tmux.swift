import Foundation
import Testing
import StorefrontTestSupport

/// The real `storefront` binary running in a tmux pane, driven and read as a person would.
/// Every session lives on this test process's own tmux server (`-L`), so a user's tmux and its
/// environment (say `NO_COLOR`) play no part; the session is killed when the value goes away.
final class TmuxSession {
    static let tmuxPath = ["/usr/bin/tmux", "/usr/local/bin/tmux"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let binary = Repo.storefrontBinary
    static let socket = "storefront-e2e-\(getpid())"

    /// Why the end-to-end tests cannot run here, if they cannot.
    static let missing: String? =
        tmuxPath == nil ? "tmux is not installed"
        : !FileManager.default.isExecutableFile(atPath: binary) ? "\(binary) is missing: run `swift build` before `swift test`"
        : nil
    /// Skip when tmux or the binary is missing, except on CI, where the tests run and fail.
    static let enabled = missing == nil || ProcessInfo.processInfo.environment["CI"] != nil

    struct NotOnScreen: Error, CustomStringConvertible {
        var what: String, screen: String
        var description: String { "not on screen after the timeout: \(what)\n--- screen ---\n\(screen)\n--------------" }
    }

    let name: String

    /// A session that lives as long as this test process, so the server never exits between
    /// tests: tmux exits when its last session ends, and a `new-session` that races that exit
    /// fails with "server exited unexpectedly" (seen on CI as a blank screen).
    private static let server: Result<Void, NotOnScreen> = {
        let keeper = "while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done"
        let (status, errors) = run(["new-session", "-d", "-s", "keeper", keeper])
        return status == 0 ? .success(()) : .failure(NotOnScreen(what: "a tmux server (\(errors))", screen: ""))
    }()

    /// Starts `storefront ARGUMENTS` in the repo directory; when it exits the pane shows
    /// `[exited N]` and the terminal's `stty -a`, and stays open.
    init(_ name: String, size: String = "80x24", environment: String = "", _ arguments: String...) throws {
        if let missing = Self.missing { throw NotOnScreen(what: "prerequisite: \(missing)", screen: "") }
        self.name = name
        let command = "env -u NO_COLOR TERM=xterm-256color LANG=C.UTF-8 \(environment) \(Self.binary) \(arguments.joined(separator: " "))"
            + "; echo \"[exited $?]\"; stty -a; sleep 120"
        let (cols, rows) = Self.split(size)
        try Self.server.get()
        let (status, errors) = Self.run(["new-session", "-d", "-s", name, "-x", cols, "-y", rows, "-c", Repo.root.path, command])
        guard status == 0 else { throw NotOnScreen(what: "tmux session \(name): \(errors)", screen: "") }
    }

    deinit { kill() }

    /// Ends the program, then the session: closing the pane alone leaves the program running
    /// (see `EndToEndTests.closingThePaneEndsTheProgram`).
    func kill() {
        if let pid = try? programPID() { Foundation.kill(pid, SIGTERM) }
        hangUp()
    }

    /// Closes the pane, as closing a terminal window does.
    func hangUp() { _ = try? tmux("kill-session", "-t", name) }

    /// Sends tmux key names (`Enter`, `Escape`, `Down`, `C-c`, or text).
    func keys(_ keys: String...) throws { try tmux(["send-keys", "-t", name] + keys) }

    /// Types `text` literally.
    func type(_ text: String) throws { try tmux("send-keys", "-t", name, "-l", text) }

    func resize(_ size: String) throws {
        let (cols, rows) = Self.split(size)
        try tmux("resize-window", "-t", name, "-x", cols, "-y", rows)
    }

    /// The screen's text; with `escapes`, colours and attributes as escape codes; `joined`, a line the
    /// terminal wrapped as one (what a program printed, a path in it, rather than what it drew).
    func screen(escapes: Bool = false, joined: Bool = false) throws -> String {
        try tmux(["capture-pane", "-p", "-t", name] + (escapes ? ["-e"] : []) + (joined ? ["-J"] : []))
    }

    /// A tmux format of the pane, e.g. `#{alternate_on}`.
    func pane(_ format: String) throws -> String {
        try tmux("display-message", "-p", "-t", name, format).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The storefront process: the only child of the pane's shell.
    func programPID() throws -> Int32 {
        let shell = try pane("#{pane_pid}")
        let children = try String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8)
        guard let pid = children.split(separator: " ").first.flatMap({ Int32($0) }) else {
            throw NotOnScreen(what: "a running storefront process", screen: try screen())
        }
        return pid
    }

    /// Polls the screen until `text` is on it (at most `seconds`); throws with the screen if not.
    func wait(for text: String, seconds: Double = 20) throws {
        try wait(text, seconds: seconds) { lines in lines.contains { $0.contains(text) } }
    }

    /// Polls the screen's lines until `done` holds.
    func wait(_ what: String, seconds: Double = 20, until done: ([String]) -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        var screen = ""
        repeat {
            screen = try self.screen()
            if done(screen.components(separatedBy: "\n")) { return }
            Thread.sleep(forTimeInterval: 0.05)
        } while Date() < deadline
        throw NotOnScreen(what: what, screen: screen)
    }

    private static func split(_ size: String) -> (String, String) {
        let parts = size.split(separator: "x").map(String.init)
        return (parts[0], parts[1])
    }

    @discardableResult
    private func tmux(_ args: String...) throws -> String { try tmux(args) }

    /// Runs tmux and returns what it printed; throws with its errors when it fails.
    @discardableResult
    private func tmux(_ args: [String]) throws -> String {
        let (status, output) = Self.run(args)
        guard status == 0 else { throw NotOnScreen(what: "tmux \(args.first ?? ""): \(output)", screen: "") }
        return output
    }

    /// Runs tmux; its exit status and its output (standard output, or the errors when it failed).
    /// posix_spawn and waitpid rather than `Process`, whose exit monitoring can hang when tests
    /// run in parallel; output goes to files, not pipes, because the tmux server that
    /// new-session forks would hold a pipe open forever.
    private static func run(_ args: [String]) -> (status: Int32, output: String) {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("tmux-\(UUID().uuidString)").path
        let (out, err) = (base + ".out", base + ".err")
        defer { for file in [out, err] { try? FileManager.default.removeItem(atPath: file) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = ([tmuxPath!, "-u", "-L", socket] + args).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, tmuxPath!, &actions, nil, argv, environ)
        guard spawned == 0 else { return (-1, "tmux did not start (errno \(spawned))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : -1
        func read(_ file: String) -> String { (try? String(contentsOfFile: file, encoding: .utf8)) ?? "" }
        if exitStatus == 0 { return (0, read(out)) }
        let errors = read(err).trimmingCharacters(in: .whitespacesAndNewlines)
        return (exitStatus, errors.isEmpty ? "exit status \(exitStatus)" : errors)
    }
}

/// A fresh `--state` directory, removed when the value goes away.
final class TemporaryDirectory {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("storefront-e2e-\(UUID().uuidString)").path
    deinit { try? FileManager.default.removeItem(atPath: path) }
}
