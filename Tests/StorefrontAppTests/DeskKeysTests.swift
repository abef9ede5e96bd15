import Foundation
import StoreCore
import Testing
import TerminalUI
import StorefrontTestSupport
@testable import StorefrontApp

/// Keys that acted unseen or oddly at the QA desk.
@Suite struct DeskKeysTests {
    @Test("Behind \"Terminal too small\" keys do nothing but quit")
    func keysAreInertBehindTooSmall() async throws {
        var state = try await fixtureState()
        press(&state, .enter)  // the payment sheet for 100 Coins
        _ = reduce(&state, .resize(Size(width: 40, height: 12)))
        #expect(render(state, size: state.size).text.contains("too small"))
        #expect(press(&state, .enter, .character("y"), .escape).isEmpty, "nothing bought unseen")
        guard case .payment(let sheet)? = state.top else { Issue.record("the sheet stays"); return }
        #expect(!sheet.isPurchasing)
        #expect(press(&state, .character("q")) == [.quit])
    }

    @Test("← on the time rate stops at Real time, → at the fastest, and says so")
    func theTimeRateIsClamped() async throws {
        var state = try await fixtureState()
        press(&state, .character("4"))
        state.selection[.qa] = try #require(QAPanel.rows(state).firstIndex { $0.label == "Time rate" })
        #expect(press(&state, .left).isEmpty, "no wrap to the fastest rate")
        #expect(state.status == "Time rate: Real time is the slowest")
        state.settings.timeRate = QAPanel.rates.last!
        #expect(press(&state, .right).isEmpty)
        #expect(state.status.hasSuffix("is the fastest"))
        #expect(press(&state, .left) == [.command(.timeRate(QAPanel.rates[QAPanel.rates.count - 2]))])
    }

    @Test("While purchasing, the footer offers only what works, and Esc is not one of them")
    func theFooterDuringAPurchase() async throws {
        var state = try await fixtureState()
        press(&state, .enter)
        #expect(!press(&state, .enter).isEmpty, "the purchase starts")
        let footer = KeyMap.footer(state).map(\.label)
        #expect(footer == ["Quit"], "\(footer)")
        #expect(press(&state, .escape, .character("+")).isEmpty)
    }

    @Test("The quantity stops at 10 and says why")
    func theQuantityLimitIsSaid() async throws {
        var state = try await fixtureState()
        press(&state, .enter)
        for _ in 0..<12 { press(&state, .character("+")) }
        guard case .payment(let sheet)? = state.top else { Issue.record("no sheet"); return }
        #expect(sheet.quantity == PaymentSheet.maximumQuantity)
        #expect(state.status == "At most 10 in one purchase")
    }

    @Test("Under a fast time rate dates show their seconds: the store screen, grace ends, the log")
    func secondsUnderAFastTimeRate() async throws {
        var state = try await fixtureState()
        state.settings.timeRate = .oneRenewalEveryTenSeconds
        let plus = try #require(state.product(ID.plusMonthly))
        #expect(StoreScreen.marks(plus, state).text.range(of: #"until \d{4}-\d\d-\d\d \d\d:\d\d:\d\d"#, options: .regularExpression) != nil,
                "\(StoreScreen.marks(plus, state).text)")
        _ = reduce(&state, .failed("something"))
        let line = try #require(LogScreen.lines(state, width: 80, rows: 10).first?.text)
        #expect(line.range(of: #"^  \d{4}-\d\d-\d\d \d\d:\d\d:\d\d  "#, options: .regularExpression) != nil, "\(line)")
    }
}

extension DeskKeysTests {
    /// Seen at 60×18: `(AppTransaction)` wrapped under the wrong column, and Esc was never listed.
    @Test("The ? overlay at 60×18 lists every key, Esc included, each on its own row")
    func helpAtTheSmallestSize() async throws {
        var state = try await fixtureState()
        state.size = Size(width: 60, height: 18)
        press(&state, .character("?"))
        let screen = render(state, size: state.size).text
        #expect(screen.contains("Close this help"), "\(screen)")
        #expect(screen.contains("1") && screen.contains("Store"))
        #expect(!screen.contains("│ AppTransaction") && !screen.contains("│ (AppTransaction)"), "no wrapped line under the first column:\n\(screen)")
    }
}

extension DeskKeysTests {
    /// Seen at 60 columns: the footer dropped `[?] Help`, the key that leads to every other one.
    @Test("The 60-column footer keeps [?] Help on every screen")
    func narrowFooterKeepsHelp() async throws {
        var state = try await fixtureState()
        state.size = Size(width: 60, height: 18)
        for screen in Screen.allCases {
            state.screen = screen
            let footer = render(state, size: state.size).text.split(separator: "\n").last.map(String.init) ?? ""
            #expect(footer.contains("[?] Help"), "\(screen): \(footer)")
        }
    }
}
