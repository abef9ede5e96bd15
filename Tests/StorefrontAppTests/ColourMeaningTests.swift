import Foundation
import Testing
import TerminalUI
@testable import StorefrontApp

/// Colour carries meaning (owned, waiting, taken back), always beside words that say the same.
@Suite struct ColourMeaningTests {
    func style(of text: String, in canvas: Canvas) throws -> Style {
        let y = try #require(canvas.lines.firstIndex { $0.contains(text) }, "\(text) not on screen:\n\(canvas.text)")
        let x = try #require(canvas.lines[y].range(of: text)).lowerBound.utf16Offset(in: canvas.lines[y])
        return canvas[x, y].style
    }

    @Test func ownedIsGreenAndWaitingForApprovalIsYellowInTheStore() async throws {
        let state = try await fixtureState()  // owns Pro, subscribed to Plus Monthly, Remove Ads waiting for approval
        let canvas = render(state, size: Size(width: 80, height: 40))
        #expect(try style(of: "Lumen Quest Pro  ✓ Owned", in: canvas).foreground == .green)
        #expect(try style(of: "Remove Ads  Pending approval", in: canvas).foreground == .yellow)
        #expect(try style(of: "Bag of 500 Gems", in: canvas).foreground == nil, "nothing to say, no colour")
    }

    @Test func revokedIsRedAndPendingIsYellowInHistory() async throws {
        var state = try await fixtureState()
        press(&state, .character("3"))
        let canvas = render(state, size: Size(width: 80, height: 24))
        #expect(try style(of: "pending approval", in: canvas).foreground == .yellow)
        #expect(Meaning.of(status: "revoked") == .bad)
        #expect(Meaning.of(status: "refund requested · backend: delivered") == .waiting)
        #expect(Meaning.of(status: "finished") == nil)
    }

    @Test func withoutColourTheWordsStillSayIt() {
        #expect(Meaning.waiting.style.resolved(for: .monochrome).foreground == nil)
        #expect(Meaning.bad.style.resolved(for: .monochrome).bold, "taken back stays bold")
    }
}

/// The status line: the last message matters most.
@Suite struct StatusLineTests {
    func statusRow(_ state: AppState, width: Int) -> String {
        let canvas = render(state, size: Size(width: width, height: 24))
        return canvas.lines[22]
    }

    @Test func aLongMessageTakesTheWholeLineBeforeItIsCutAndACutOneSaysWhereTheRestIs() async throws {
        var state = try await fixtureState()
        state.status = "Purchase failed: the App Store could not be reached (networkError); try again when the network is back"
        let wide = statusRow(state, width: 120)
        #expect(wide.contains(state.status), "fits beside nothing: \(wide)")
        #expect(!wide.contains("USA ·"))
        let narrow = statusRow(state, width: 60)
        #expect(narrow.hasSuffix("(5 Log)") || narrow.trimmingCharacters(in: .whitespaces).hasSuffix("(5 Log)"), "\(narrow)")
        state.status = "Purchased Remove Ads"
        #expect(statusRow(state, width: 80).contains("USA · en_US ·"), "a short one keeps the store's place and time")
    }

    @Test func aMessageAloneOnTheLineHasNoSeparatorBeforeIt() async throws {
        var state = try await fixtureState()
        state.status = "Code NOPE not redeemed: This code is not valid."
        let row = statusRow(state, width: 60)
        #expect(row.hasPrefix(" Code NOPE"), "\(row)")
        #expect(!row.contains("│"))
    }
}
