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

    // MARK: Demo polish (issue 36): what an audience reads at 80×24

    static func demo(_ file: String, size: Size) async throws -> WalkthroughState {
        var app = try await fixtureState(purchases: false)
        app.size = size
        let scenario = try ScenarioParser.parse(file: Repo.root.appendingPathComponent("Tests/Scenarios/\(file)").path)
        return WalkthroughState(app: app, walk: WalkState(scenario: scenario, isDemo: true, naming: (Repo.catalog, "en_US")))
    }

    @Test func thePaymentSheetIsNeverDrawnOverTheChecklistAt80x24() async throws {
        let size = Size(width: 80, height: 24)
        var state = try await Self.demo("price-increase.scenario", size: size)
        let product = try #require(state.app.product(ID.proYearly))
        state.app.sheets.append(.payment(draft(for: product, state.app)))
        let canvas = render(state, size: size)
        try GoldenScreenTests().assertScreen("demo-payment-sheet-80x24", canvas.text)
        let buttons = try #require(canvas.lines.firstIndex { $0.contains("[ Confirm ]") }, "the whole sheet shows, its buttons too")
        let checklist = try #require(canvas.lines.firstIndex { $0.hasPrefix(" Demo 1/") }, "the checklist folds to its one line")
        #expect(buttons < checklist, "the sheet ends above the checklist")
        #expect(canvas.lines[checklist].contains("Buy Pro Yearly"), "which still says the step being shown")
    }

    @Test func theChecklistNamesProductsAndKeepsEachStepToOneLine() async throws {
        let state = try await Self.demo("another-device.scenario", size: Size(width: 80, height: 24))
        let lines = WalkPanel.lines(state.walk, width: 76)
        #expect(lines.count == state.walk.items.count, "one line a step: nothing wraps")
        #expect(!lines.contains { $0.text.contains("com.lumenquest") }, "display names, not product IDs")
        #expect(lines.map(\.text).contains("· Buy on another device: Bag of 500 Gems"))
        #expect(lines.map(\.text).contains("  · Expect message \"Transaction arrived: Remove Ads\""))
    }

    @Test func captionsSayWhatASettingAndAPurchaseElsewhereDoInWords() throws {
        let catalog = try CatalogLoader.load(path: Repo.catalogPath)
        let steps = try ScenarioParser.parse(file: Repo.root.appendingPathComponent("Tests/Scenarios/grace-period.scenario").path).steps
        #expect(DemoCaption.text(steps[0], catalog: catalog) == "Billing grace period: on", "the setting's title, not its catalog key")
        #expect(DemoCaption.text(steps[3], catalog: catalog) == "Advance time by 1 year", "a period in words, not P1Y")
        let elsewhere = try ScenarioParser.parse(file: Repo.root.appendingPathComponent("Tests/Scenarios/another-device.scenario").path).steps[0]
        #expect(DemoCaption.direct(elsewhere, catalog: catalog) == "⚡ Buy on another device: Remove Ads (by the store: no keys show this)")
    }

    @Test func theClosingCaptionIsWholeAt80Columns() async throws {
        let size = Size(width: 80, height: 24)
        var state = try await Self.demo(size: size)
        _ = reduce(&state, .walk(.demoFinished))
        let caption = try #require(render(state, size: size).lines.first { $0.contains("Demo finished") })
        #expect(!caption.contains("…"), "not cut: \(caption)")
        #expect(caption.contains("q: quit"))
    }
}
