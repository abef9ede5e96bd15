import Foundation
import Testing
import TerminalUI
@testable import StorefrontApp
import StorefrontTestSupport

/// Whole screens as text, compared with `Screens/*.txt`. `RECORD_SCREENS=1 swift test` rewrites them;
/// review the diff like a screenshot.
@Suite struct GoldenScreenTests {
    static let size = Size(width: 80, height: 24)

    func assertScreen(_ name: String, _ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let record = ProcessInfo.processInfo.environment["RECORD_SCREENS"] == "1"
        if let failure = try Golden.check(name, text, in: Repo.screens, record: record) {
            Issue.record(Comment(rawValue: failure), sourceLocation: sourceLocation)
        }
    }

    @Test func store() async throws {
        let state = try await fixtureState()
        try assertScreen("store", render(state, size: Self.size).text)
    }

    @Test func storeMonochromeAnnotated() async throws {
        let state = try await fixtureState()
        try assertScreen("store-annotated", render(state, size: Self.size).annotatedText)
    }

    @Test func storeJapanese() async throws {
        let state = try await fixtureState(storefront: "JPN", locale: "ja_JP")
        try assertScreen("store-ja", render(state, size: Self.size).text)
    }

    @Test func paymentSheet() async throws {
        var state = try await fixtureState()
        press(&state, .down, .enter, .character("+"), .character("+"))
        try assertScreen("payment-consumable", render(state, size: Self.size).text)
    }

    @Test func paymentSheetSubscription() async throws {
        var state = try await fixtureState(purchases: false)
        let index = StoreScreen.products(state).firstIndex { $0.id == "com.lumenquest.pro.monthly" }!
        state.selection[.store] = index
        press(&state, .enter)
        try assertScreen("payment-subscription", render(state, size: Self.size).text)
    }

    @Test func subscriptions() async throws {
        var state = try await fixtureState()
        press(&state, .character("2"))
        try assertScreen("subscriptions", render(state, size: Self.size).text)
    }

    @Test func history() async throws {
        var state = try await fixtureState()
        press(&state, .character("3"))
        try assertScreen("history", render(state, size: Self.size).text)
    }

    /// On a small terminal the product column gives way, so every status and verification still shows.
    @Test func historySmall() async throws {
        var state = try await fixtureState()
        press(&state, .character("3"))
        try assertScreen("history-60x18", render(state, size: Size(width: 60, height: 18)).text)
    }

    @Test func notifications() async throws {
        var state = try await fixtureState()
        press(&state, .character("6"))
        try assertScreen("notifications", render(state, size: Self.size).text)
    }

    @Test func notificationDetail() async throws {
        var state = try await fixtureState()
        press(&state, .character("6"), .down, .enter)
        // The UUID is new in every run.
        let uuid = try #require(NotificationsScreen.items(state)[safe: 1]?.uuid)
        try assertScreen("notification-detail", render(state, size: Size(width: 100, height: 32)).text.replacingOccurrences(of: uuid, with: "<uuid>"))
    }

    @Test func resendKeySendsTheSelectedNotificationAgain() async throws {
        var state = try await fixtureState()
        press(&state, .character("6"), .down)
        let selected = try #require(NotificationsScreen.items(state)[safe: 1])
        #expect(press(&state, .character("S")) == [.command(.resendNotification(selected.sequence))])
    }

    @Test func qaPanel() async throws {
        var state = try await fixtureState()
        press(&state, .character("4"))
        try assertScreen("qa", render(state, size: Self.size).text)
    }

    @Test func help() async throws {
        var state = try await fixtureState()
        press(&state, .character("?"))
        try assertScreen("help", render(state, size: Self.size).text)
    }

    @Test func helpAtMinimumSizeUsesTwoColumns() async throws {
        var state = try await fixtureState()
        state.size = minimumSize
        press(&state, .character("4"), .character("?"))
        try assertScreen("help-qa-60x18", render(state, size: minimumSize).text)
    }

    @Test func redeemSheet() async throws {
        var state = try await fixtureState()
        press(&state, .character("c"), .character("p"), .character("l"), .character("u"), .character("s"))
        try assertScreen("redeem", render(state, size: Self.size).text)
    }

    @Test func wideHistory() async throws {
        var state = try await fixtureState()
        state.size = Size(width: 140, height: 40)
        press(&state, .character("3"), .down, .enter)
        try assertScreen("history-detail-140x40", render(state, size: Size(width: 140, height: 40)).text)
    }

    /// Seen at 160 columns: prices 130 columns from their product's name.
    @Test func storeAt160ColumnsKeepsPricesBesideTheirNames() async throws {
        let state = try await fixtureState()
        let canvas = render(state, size: Size(width: 160, height: 30))
        try assertScreen("store-160x30", canvas.text)
        let row = try #require(canvas.lines.first { $0.contains("100 Coins") })
        let gap = try #require(row.range(of: "$0.99")).lowerBound.utf16Offset(in: row) - row.range(of: "100 Coins")!.lowerBound.utf16Offset(in: row)
        #expect(gap < 100)
    }

    @Test func tooSmall() async throws {
        let state = try await fixtureState(purchases: false)
        try assertScreen("too-small", render(state, size: Size(width: 50, height: 14)).text)
    }
}
