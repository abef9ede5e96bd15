import Foundation
import Testing
import TerminalUI
@testable import StorefrontApp
import StorefrontTestSupport

/// What people expect of a terminal program, on the real binary in tmux (see `TmuxSession`).
@Suite(.tags(.tmux), .notInFastLoop, .enabled(if: TmuxSession.enabled, "needs tmux and `swift build` (set CI to fail instead of skipping)"))
struct TerminalConventionsTests {
    /// Under `TERM=xterm`, tmux sends `Esc [ 4 ~` for End, which xterm's terminfo does not list:
    /// it was replayed as Esc (closing help), `[`, `4` (the QA panel), `~`.
    @Test(arguments: ["xterm", "xterm-256color", "screen", "tmux-256color"])
    func homeEndPageKeysUnderAnyTerm(term: String) throws {
        let s = try TmuxSession("keys-\(term)-\(getpid())", environment: "TERM=\(term)", "--ephemeral")
        try s.wait(for: EndToEndTests.ready)
        try s.keys("?")
        try s.wait(for: "Move up")
        try s.keys("End", "Home", "PageDown", "PageUp")
        try s.keys("3")  // a key after the sequences: the History tab, once help is closed
        Thread.sleep(forTimeInterval: 0.3)
        let screen = try s.screen()
        #expect(screen.contains("Move up"), "help was closed under TERM=\(term):\n\(screen)")
        #expect(!screen.contains("Test controls"), "jumped to the QA panel under TERM=\(term)")
    }

    @Test func dumbTerminalIsRefusedWithAMessage() throws {
        let s = try TmuxSession("dumb-\(getpid())", environment: "TERM=dumb", "--ephemeral")
        try s.wait(for: "[exited 2]", seconds: 10)
        #expect(try s.screen().contains("TERM=dumb cannot move the cursor"))
    }

    @Test func cLocaleDrawsASCIIBoxesAndMarks() throws {
        let s = try TmuxSession("ascii-\(getpid())", environment: "LANG=C LC_ALL=C", "--ephemeral")
        try s.wait(for: EndToEndTests.ready)
        try s.keys("?")
        try s.wait(for: "+ Keys ---")
        let screen = try s.screen()
        #expect(!screen.contains("│") && !screen.contains("─") && !screen.contains("↑"), "\(screen)")
        #expect(screen.contains("| ^ k"))
    }

    /// Raw mode turns the terminal's own Ctrl-Z off; the storefront stops itself, giving the
    /// terminal back, and repaints when continued (`fg` sends SIGCONT).
    @Test func ctrlZSuspendsAndContinueRepaints() throws {
        let s = try TmuxSession("suspend-\(getpid())", "--ephemeral")
        try s.wait(for: EndToEndTests.ready)
        let pid = try s.programPID()
        try s.keys("C-z")
        try s.wait("the process stopped") { _ in Self.state(pid) == "T" }
        // Stopped with the screen still switched means the process repainted before the stop took
        // hold (it sent SIGSTOP to the whole process, and another thread took it): failed on CI.
        try s.wait("the terminal was given back") { _ in (try? s.pane("#{alternate_on}")) == "0" }
        #expect(Foundation.kill(pid, SIGCONT) == 0)
        try s.keys("2")
        try s.wait(for: "Subscription status per group")
        try s.wait("the storefront took the screen back") { _ in (try? s.pane("#{alternate_on}")) == "1" }
    }

    @Test func sigquitIsIgnored() throws {
        let s = try TmuxSession("quit-\(getpid())", "--ephemeral")
        try s.wait(for: EndToEndTests.ready)
        let pid = try s.programPID()
        #expect(Foundation.kill(pid, SIGQUIT) == 0)
        try s.keys("2")
        try s.wait(for: "Subscription status per group")
        #expect(Self.state(pid) != nil)
    }

    /// The process state letter from /proc (R, S, T…), nil when it is gone.
    static func state(_ pid: Int32) -> String? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(close, offsetBy: 2)...].split(separator: " ").first.map(String.init)
    }
}

/// Mouse reports as a terminal sends them, typed into the pane raw, through ncurses and the
/// decoder to the app: SGR (`Esc [ < button ; column ; row M`) when the app asked for it, as
/// under xterm's terminfo, else the X10 encoding (`Esc [ M` and three bytes), as under tmux's.
@Suite(.tags(.tmux), .notInFastLoop, .enabled(if: TmuxSession.enabled, "needs tmux and `swift build` (set CI to fail instead of skipping)"))
struct MouseEndToEndTests {
    static func sgr(_ button: Int, x: Int, y: Int) -> String { "\u{1B}[<\(button);\(x + 1);\(y + 1)M" }
    static func x10(_ button: Int, x: Int, y: Int) -> String {
        "\u{1B}[M" + String(UnicodeScalar(UInt8(32 + button))) + String(UnicodeScalar(UInt8(33 + x))) + String(UnicodeScalar(UInt8(33 + y)))
    }

    static func report(_ s: TmuxSession, _ button: Int, x: Int, y: Int) throws {
        try s.type(try s.pane("#{mouse_sgr_flag}") == "1" ? sgr(button, x: x, y: y) : x10(button, x: x, y: y))
    }

    @Test(arguments: ["xterm-256color", "tmux-256color"])
    func clickATabAndTurnTheWheel(term: String) throws {
        let s = try TmuxSession("mouse-\(term)-\(getpid())", environment: "TERM=\(term)", "--ephemeral")
        try s.wait(for: EndToEndTests.ready)
        let header = try s.screen().components(separatedBy: "\n")[0]
        let column = DisplayWidth.of(header[..<header.range(of: "3 History")!.lowerBound])
        #expect(try s.pane("#{mouse_any_flag}") == "1", "the app asked for mouse reports")
        try Self.report(s, 0, x: column, y: 0)
        try s.wait(for: "Transactions, newest first")
        try s.keys("1")
        try s.wait(for: EndToEndTests.ready)
        try Self.report(s, 65, x: 10, y: 10)  // wheel down: three products
        try s.wait("the selection moved down three products") { lines in lines.contains { $0.contains("› Remove Ads") } }
    }

    @Test func noMouseLeavesTheMouseToTheTerminal() throws {
        let s = try TmuxSession("nomouse-\(getpid())", "--ephemeral", "--no-mouse")
        try s.wait(for: EndToEndTests.ready)
        try s.type(Self.sgr(0, x: 31, y: 0))
        try s.keys("2")
        try s.wait(for: "Subscription status per group")
        #expect(try s.pane("#{mouse_any_flag}") == "0")
    }
}
