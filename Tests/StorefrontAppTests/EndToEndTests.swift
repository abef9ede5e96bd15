import Foundation
import Testing
import TerminalUI
@testable import StorefrontApp
import StorefrontTestSupport

/// Drives the real binary in tmux (see `TmuxSession`), waiting for text rather than sleeping.
/// Each test has its own session and an `--ephemeral` store or its own `--state` directory.
@Suite(.tags(.tmux), .notInFastLoop, .enabled(if: TmuxSession.enabled, "needs tmux and `swift build` (set CI to fail instead of skipping)"))
struct EndToEndTests {
    /// The first product row at 80 columns: the store is up.
    static let ready = "100 Coins  Balance: 0"

    @Test func buyAConsumable() throws {
        let s = try TmuxSession("buy-\(getpid())", "--ephemeral")
        try s.wait(for: Self.ready)
        try s.keys("Enter")
        try s.wait(for: "[Enter] Confirm")
        try s.keys("+", "Enter")
        try s.wait(for: "100 Coins  Balance: 2")
        try s.keys("q")
        try s.wait(for: "[exited 0]", seconds: 5)
    }

    @Test("a sheet closed leaves the header and the key hints as they were, colours and attributes too")
    func aClosedSheetLeavesTheScreenAsItWas() throws {
        let s = try TmuxSession("sheet-closed-\(getpid())", "--ephemeral")
        try s.wait(for: Self.ready)
        // Where tmux puts its resets depends on the lines before; the cells do not.
        func edges() throws -> [String] {
            let lines = try s.screen(escapes: true).replacingOccurrences(of: "\u{1B}[0m\u{1B}[39m\u{1B}[49m", with: "")
                .components(separatedBy: "\n").filter { !$0.isEmpty }
            return Array(lines.prefix(2) + lines.suffix(1))
        }
        let before = try edges()
        try s.keys("Enter")
        try s.wait(for: "[Enter] Confirm")
        try s.keys("Escape")
        try s.wait(for: "│ Purchase cancelled")
        #expect(try edges() == before)
    }

    @Test func cancelAtThePaymentSheet() throws {
        let s = try TmuxSession("cancel-\(getpid())", "--ephemeral")
        try s.wait(for: Self.ready)
        // Esc.
        try s.keys("Enter")
        try s.wait(for: "[Enter] Confirm")
        try s.keys("Escape")
        try s.wait(for: "│ Purchase cancelled")
        // Restore changes the status line, so the next "cancelled" is new.
        try s.keys("r")
        try s.wait(for: "│ Nothing to restore")
        // The Cancel button.
        try s.keys("Enter")
        try s.wait(for: "[Enter] Confirm")
        try s.keys("Right")
        try s.wait(for: "[Enter] Cancel")
        try s.keys("Enter")
        try s.wait(for: "│ Purchase cancelled")
        let store = try s.screen()
        #expect(store.contains("100 Coins  Balance: 0") && store.contains("Bag of 500 Gems  Balance: 0"))
        #expect(!store.contains("Owned"), "\(store)")
        try s.keys("3")
        try s.wait(for: "No transactions yet.")
    }

    @Test func askToBuyThenApproveFromTheQAPanel() throws {
        let s = try TmuxSession("asktobuy-\(getpid())", "--ephemeral")
        try s.wait(for: Self.ready)
        try s.keys("4")
        try s.wait(for: "› Storefront")
        try s.keys("Down", "Down", "Down", "Down", "Down", "Down", "Down")
        try s.wait(for: "› Ask to Buy")
        try s.keys("Enter")
        try s.wait("Ask to Buy [x] on") { $0.contains { $0.contains("Ask to Buy") && $0.contains("[x] on") } }

        try s.keys("1", "Down", "Down", "Down")
        try s.wait(for: "› Remove Ads")
        try s.keys("Enter")
        try s.wait(for: "[Enter] Confirm")
        try s.keys("Enter")
        try s.wait(for: "Waiting for approval")
        try s.keys("Enter")
        try s.wait(for: "Remove Ads  Pending approval")

        try s.keys("4", "G")  // Last (End is not decoded under TERM=xterm-256color in tmux)
        try s.wait("the pending entry selected") { $0.contains { $0.contains("› #") && $0.contains("Remove Ads") && $0.contains("pending approval") } }
        try s.keys("Enter")
        try s.wait(for: "› Approve Ask to Buy")
        try s.keys("Enter")
        // The approval arrives through Transaction.updates; its message and the control both say "Ask to Buy approved".
        try s.wait("the approval") { $0.contains { $0.contains("│ Ask to Buy approved: Remove Ads") } }
        try s.keys("1")
        try s.wait(for: "Remove Ads  ✓ Owned")
    }

    @Test func restoreAfterRelaunch() throws {
        let state = TemporaryDirectory()
        let first = try TmuxSession("restore1-\(getpid())", "--state", state.path)
        try first.wait(for: Self.ready)
        try first.keys("r")
        try first.wait(for: "│ Nothing to restore")
        try first.keys("Down", "Down")
        try first.wait(for: "› Lumen Quest Pro")
        try first.keys("Enter")
        try first.wait(for: "[Enter] Confirm")
        try first.keys("Enter")
        try first.wait(for: "Lumen Quest Pro  ✓ Owned")
        try first.keys("q")
        try first.wait(for: "[exited 0]", seconds: 5)

        let second = try TmuxSession("restore2-\(getpid())", "--state", state.path)
        try second.wait(for: Self.ready)
        try second.keys("r")
        try second.wait(for: "│ Restored 1 purchase")
        try second.wait(for: "Lumen Quest Pro  ✓ Owned")
    }

    @Test func redeemAnOfferCode() throws {
        let s = try TmuxSession("redeem-\(getpid())", "--ephemeral")
        try s.wait(for: Self.ready)
        try s.keys("c")
        try s.wait(for: "Redeem Offer Code")
        try s.type("coins100")
        try s.wait(for: "COINS100")
        try s.keys("Enter")
        try s.wait(for: "│ Offer code redeemed: 100 Coins")
        try s.wait(for: "100 Coins  Balance: 1")

        try s.keys("c")
        try s.wait(for: "Redeem Offer Code")
        try s.type("nosuchcode")
        try s.keys("Enter")
        try s.wait(for: "This code is not valid.")
        #expect(try s.screen().contains("100 Coins  Balance: 1"))
    }

    @Test func resize() throws {
        let s = try TmuxSession("resize-\(getpid())", "--ephemeral")
        try s.wait(for: Self.ready)
        // Laid out again for 60×18: the footer is on the last row, the status line above it.
        try s.resize("60x18")
        try s.wait("the store at 60×18") { lines in
            lines.count >= 18 && lines[17].hasPrefix("[↑↓] Move  [Enter] Buy") && lines[16].hasPrefix(" USA · ")
                && lines.contains { $0.contains(Self.ready) } && lines.allSatisfy { DisplayWidth.of($0) <= 60 }
        }
        try s.resize("50x14")
        try s.wait(for: "Terminal too small (50×14, need ≥ 60×18)")
        try s.resize("100x30")
        try s.wait("the store at 100×30") { lines in
            lines.count >= 30 && lines[29].hasSuffix("[r] Restore") && lines.contains { $0.contains(Self.ready) }
        }
    }

    @Test func twoProcessesShareOneStateDirectory() throws {
        let state = TemporaryDirectory()
        let buyer = try TmuxSession("buyer-\(getpid())", "--state", state.path)
        try buyer.wait(for: Self.ready)
        // Started once the first has created the state (see the report on concurrent first launch).
        let watcher = try TmuxSession("watcher-\(getpid())", "--state", state.path)
        try watcher.wait(for: Self.ready)

        try buyer.keys("Enter")
        try buyer.wait(for: "[Enter] Confirm")
        try buyer.keys("Enter")
        try buyer.wait(for: "100 Coins  Balance: 1")
        try watcher.wait(for: "100 Coins  Balance: 1")
        try watcher.wait(for: "│ Bought elsewhere: 100 Coins")

        try buyer.keys("Down", "Down", "Down")
        try buyer.wait(for: "› Remove Ads")
        try buyer.keys("Enter")
        try buyer.wait(for: "[Enter] Confirm")
        try buyer.keys("Enter")
        try watcher.wait(for: "Remove Ads  ✓ Owned")
        try watcher.keys("3")
        try watcher.wait(for: "Remove Ads")
        #expect(!(try watcher.screen()).contains("unverified"))
    }

    /// SIGTERM, the Ctrl-C key and SIGINT each end the program and give the terminal back:
    /// canonical mode and echo on, the main screen, the cursor shown.
    @Test func terminalIsRestoredOnExit() throws {
        let ends: [(how: String, code: Int32)] = [("TERM", 143), ("C-c", 0), ("INT", 130), ("HUP", 129)]
        let sessions = try ends.map { try TmuxSession("exit-\($0.how)-\(getpid())", "--ephemeral") }
        for (s, end) in zip(sessions, ends) {
            try s.wait(for: Self.ready)
            #expect(try s.pane("#{alternate_on}") == "1")
            if end.how == "C-c" { try s.keys("C-c") } else { #expect(Foundation.kill(try s.programPID(), ["TERM": SIGTERM, "INT": SIGINT, "HUP": SIGHUP][end.how]!) == 0) }
        }
        for (s, end) in zip(sessions, ends) {
            try s.wait(for: "[exited \(end.code)]", seconds: 5)
            try s.wait(for: "speed ")  // stty -a
            let words = Set(try s.screen().split(whereSeparator: \.isWhitespace))
            #expect(words.contains("icanon") && words.contains("echo"), "after \(end.how): \(words.sorted())")
            #expect(try s.pane("#{alternate_on}") == "0", "after \(end.how): still on the alternate screen")
            #expect(try s.pane("#{cursor_flag}") == "1", "after \(end.how): cursor hidden")
        }
    }

    /// Closing the pane closes the program's input; the program should then end, as it does on
    /// SIGHUP. The pane's shell does not pass the hang-up on, so only the end of input tells it.
    @Test func closingThePaneEndsTheProgram() throws {
        let s = try TmuxSession("hangup-\(getpid())", "--ephemeral")
        try s.wait(for: Self.ready)
        let pid = try s.programPID()
        s.hangUp()
        let deadline = Date().addingTimeInterval(3)
        while Foundation.kill(pid, 0) == 0 && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        let running = Foundation.kill(pid, 0) == 0
        if running { Foundation.kill(pid, SIGTERM) }
        #expect(!running, "storefront \(pid) still running 3 s after its terminal closed")
    }

    /// `NO_COLOR` and `--no-color` draw without colours (reverse video, bold and dim remain);
    /// without them, the header bar is coloured.
    @Test func noColor() throws {
        let colour = try TmuxSession("colour-\(getpid())", "--ephemeral")
        let noColorEnv = try TmuxSession("nocolor-env-\(getpid())", environment: "NO_COLOR=1", "--ephemeral")
        let noColorFlag = try TmuxSession("nocolor-flag-\(getpid())", "--ephemeral", "--no-color")
        for s in [colour, noColorEnv, noColorFlag] { try s.wait(for: Self.ready) }
        #expect(Self.hasColours(try colour.screen(escapes: true)))
        #expect(!Self.hasColours(try noColorEnv.screen(escapes: true)))
        #expect(!Self.hasColours(try noColorFlag.screen(escapes: true)))
        #expect(try noColorFlag.screen(escapes: true).contains("\u{1B}[7m") || noColorFlag.screen(escapes: true).contains(";7m"),
                "the selection is still drawn in reverse video")
    }

    /// Whether any SGR escape sets a foreground or background colour (39 and 49 are the defaults).
    static func hasColours(_ screen: String) -> Bool {
        screen.components(separatedBy: "\u{1B}[").dropFirst().contains { sequence in
            guard let end = sequence.firstIndex(of: "m") else { return false }
            return sequence[..<end].split(separator: ";").compactMap { Int($0) }
                .contains { (30...38).contains($0) || (40...48).contains($0) || (90...107).contains($0) }
        }
    }

    /// With a C locale (no UTF-8), the Japanese storefront still draws its names and aligns prices.
    @Test func japaneseStorefrontInACLocale() throws {
        let s = try TmuxSession("ja-\(getpid())", environment: "LANG=C LC_ALL=C", "--ephemeral", "--storefront", "JPN", "--locale", "ja_JP")
        try s.wait(for: "コイン100枚  残高：0")
        let lines = try s.screen().components(separatedBy: "\n")
        let coins = try #require(lines.first { $0.contains("コイン100枚") })
        #expect(coins.hasSuffix("¥160") && DisplayWidth.of(coins) == 79, "price not aligned: \(coins)")
        #expect(lines.contains { $0.contains("マーケットで使える金貨100枚。") })
    }
}
