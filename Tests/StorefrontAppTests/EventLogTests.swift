import Foundation
import Testing
import TerminalUI
@testable import StorefrontApp
import StorefrontTestSupport

/// The event log (screen 5): every message, with store time, in display names, never cut.
@Suite struct EventLogTests {
    @Test func everyStoreEventAndActionIsLoggedWithStoreTimeInDisplayNames() async throws {
        var state = try await fixtureState()
        _ = reduce(&state, .appEvent(.renewed(productID: "com.lumenquest.plus.monthly")))
        _ = reduce(&state, .finished(.done("Bought com.lumenquest.coins.100 outside the app")))
        #expect(state.log.map(\.text) == ["Renewed Plus Monthly", "Bought 100 Coins outside the app"])
        #expect(state.log.allSatisfy { $0.time == state.snapshot.now })
        #expect(state.status == "Bought 100 Coins outside the app")
    }

    @Test func theLogIsItsOwnScreenNewestFirstAndFilterable() async throws {
        var state = try await fixtureState()
        for id in ["com.lumenquest.plus.monthly", "com.lumenquest.pro.yearly"] { _ = reduce(&state, .appEvent(.renewed(productID: id))) }
        press(&state, .character("5"))
        #expect(state.screen == .log)
        #expect(LogScreen.entries(state).map(\.text) == ["Renewed Pro Yearly", "Renewed Plus Monthly"])
        press(&state, .character("/"))
        for c in "plus" { press(&state, .character(c)) }
        press(&state, .enter)
        #expect(LogScreen.entries(state).map(\.text) == ["Renewed Plus Monthly"])
    }

    @Test func longMessagesWrapInsteadOfBeingCut() async throws {
        var state = try await fixtureState()
        let long = "Purchase failed: " + String(repeating: "a very long reason ", count: 8) + "END"
        _ = reduce(&state, .failed(long))
        let text = LogScreen.lines(state, width: 60, rows: 20).map(\.text).joined(separator: " ")
        #expect(text.contains("END"))
        #expect(LogScreen.lines(state, width: 60, rows: 20).allSatisfy { DisplayWidth.of($0.text) <= 60 })
    }

    @Test func logScreen() async throws {
        var state = try await fixtureState()
        _ = reduce(&state, .appEvent(.purchased(productID: "com.lumenquest.coins.100", quantity: 2)))
        _ = reduce(&state, .appEvent(.renewed(productID: "com.lumenquest.plus.monthly")))
        _ = reduce(&state, .failed("Purchase failed: the App Store could not be reached. Check the network connection and try again, or turn off the failure in the QA panel."))
        press(&state, .character("5"))
        let record = ProcessInfo.processInfo.environment["RECORD_SCREENS"] == "1"
        if let failure = try Golden.check("log", render(state, size: Size(width: 80, height: 24)).text, in: Repo.screens, record: record) {
            Issue.record(Comment(rawValue: failure))
        }
    }
}

extension EventLogTests {
    /// The loop reports a purchase once (see `RunLoopTests`): the same message twice is two entries.
    @Test func aMessageRepeatedIsLoggedAgain() async throws {
        var state = try await fixtureState()
        _ = reduce(&state, .appEvent(.renewed(productID: "com.lumenquest.plus.monthly")))
        _ = reduce(&state, .appEvent(.renewed(productID: "com.lumenquest.plus.monthly")))
        #expect(state.log.map(\.text) == ["Renewed Plus Monthly", "Renewed Plus Monthly"])
    }
}
