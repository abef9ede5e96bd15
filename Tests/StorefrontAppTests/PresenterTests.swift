import Foundation
import Testing
import StoreCore
import TerminalUI
@testable import StorefrontApp
import StorefrontTestSupport

/// `storefront demo` on stage: a caption bar the audience reads, and the storefront handed to the presenter at the end.
@Suite struct PresenterTests {
    static let scenario = Repo.root.appendingPathComponent("Tests/Scenarios/price-increase.scenario").path

    static func demo(size: Size) async throws -> WalkthroughState {
        var app = try await fixtureState(purchases: false)
        app.size = size
        let scenario = try ScenarioParser.parse(file: Self.scenario)
        return WalkthroughState(app: app, walk: WalkState(scenario: scenario, isDemo: true))
    }

    @Test func captionsNameProductsAndGroupsAsTheAudienceKnowsThem() throws {
        let catalog = try CatalogLoader.load(path: Repo.catalogPath)
        let steps = try ScenarioParser.parse(file: Self.scenario).steps
        #expect(DemoCaption.text(steps[0], catalog: catalog) == "Buy Pro Yearly")
        #expect(DemoCaption.text(steps[2], catalog: catalog) == "Expect renewal Lumen Membership priceIncrease notYetResponded")
        #expect(DemoCaption.text(steps[0], catalog: catalog, locale: "ja_JP") != "Buy Pro Yearly", "in the storefront's language")
    }

    @Test func theCaptionBarSpansTheScreenAboveTheStatusLine() async throws {
        let size = Size(width: 80, height: 24)
        var state = try await Self.demo(size: size)
        _ = reduce(&state, .walk(.demoCursor(0)))
        _ = reduce(&state, .walk(.demoCaption("▶ Buy Pro Yearly")))
        let canvas = render(state, size: size)
        try GoldenScreenTests().assertScreen("demo-caption-80x24", canvas.text)
        let row = canvas.lines.firstIndex { $0.hasPrefix(" ▶ Buy Pro Yearly") }
        #expect(row == size.height - 3, "just above the status line")
        #expect(canvas[0, size.height - 3].style.background == .yellow)
        #expect(canvas[size.width - 1, size.height - 3].style.background == .yellow, "the whole width")
    }

    @Test func atTheEndTheStorefrontIsThePresentersAndKeysNoLongerPause() async throws {
        var state = try await Self.demo(size: Size(width: 80, height: 24))
        press(&state, .character("x"))
        #expect(state.walk.paused == true, "during the demo any key pauses")
        press(&state, .character("x"))
        _ = reduce(&state, .walk(.demoFinished))
        #expect(state.walk.isFinished == true)
        #expect(state.walk.caption?.hasPrefix("Demo finished: ✓0 ✗0 · the storefront is yours") == true)
        press(&state, .character("3"))
        #expect(state.screen == .history, "keys work the storefront now")
        #expect(state.walk.paused == false)
        #expect(KeyMap.footer(state.app).contains { $0.label == "Checklist" }, "the checklist's toggle, not the demo's pause")
        #expect(!KeyMap.bindings(state.app).contains { $0.action == .walk(.next) }, "no walk steps to do: they were played")
        press(&state, .character("w"))
        #expect(state.walk.showsPanel == false)
    }

    @Test func aSavedReportDoesNotHideTheClosingSummary() async throws {
        var state = try await Self.demo(size: Size(width: 80, height: 24))
        _ = reduce(&state, .walk(.demoFinished))
        _ = reduce(&state, .walk(.saved("Report saved to demo.md")))
        #expect(state.walk.caption?.hasPrefix("Demo finished") == true)
        #expect(state.status == "Report saved to demo.md")
    }
}
