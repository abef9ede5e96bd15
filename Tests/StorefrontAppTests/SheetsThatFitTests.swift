import Testing
import StorefrontTestSupport
import TerminalUI
@testable import StorefrontApp

/// A sheet fits any terminal down to the smallest: a tall body scrolls above a button row of its
/// own, and what lies under a sheet steps back instead of being sliced into look-alike text.
@Suite struct SheetsThatFitTests {
    /// The newest transaction's detail sheet on a terminal of `size`.
    func detailSheet(at size: Size) async throws -> AppState {
        var state = try await fixtureState()
        state.size = size
        press(&state, .character("3"), .end, .enter)
        guard case .transactionDetail? = state.top else { throw SheetMissing() }
        return state
    }

    struct SheetMissing: Error {}

    @Test("a detail sheet taller than the terminal keeps its buttons on a row of their own and says more lies below")
    func tallSheetKeepsItsButtonRow() async throws {
        let state = try await detailSheet(at: minimumSize)
        let lines = render(state, size: minimumSize).text.split(separator: "\n").map(String.init)
        let buttonRow = try #require(lines.first { $0.contains("[ OK ]") })
        #expect(!buttonRow.contains(":"), "no field is drawn into the button row: \(buttonRow)")
        #expect(lines.contains { $0.contains("↓ more") })
        #expect(!lines.contains { $0.contains("verification:") }, "the last fields are below the fold")
        #expect(KeyMap.footer(state).contains { $0.label == "Scroll" })
    }

    @Test("↓ and PgDn scroll a tall sheet's body to its last line, ↑ and PgUp back to its first")
    func tallSheetScrolls() async throws {
        var state = try await detailSheet(at: minimumSize)
        for _ in 0..<3 { press(&state, .pageDown) }
        var text = render(state, size: minimumSize).text
        #expect(text.contains("verification:"))
        #expect(text.contains("↑ more") && !text.contains("↓ more"))
        let bottom = state.sheetScroll
        press(&state, .down)
        #expect(state.sheetScroll == bottom, "no scrolling past the last line")
        press(&state, .up)
        #expect(state.sheetScroll == bottom - 1)
        for _ in 0..<3 { press(&state, .pageUp) }
        text = render(state, size: minimumSize).text
        #expect(state.sheetScroll == 0 && text.contains("transactionId:") && !text.contains("↑ more"))
    }

    @Test("a sheet that fits takes no scroll keys, and a new sheet opens at its first line")
    func shortSheetDoesNotScroll() async throws {
        var state = try await detailSheet(at: Size(width: 140, height: 40))
        #expect(!KeyMap.footer(state).contains { $0.label == "Scroll" })
        press(&state, .down)
        #expect(state.sheetScroll == 0)
        state.size = minimumSize
        press(&state, .pageDown)
        #expect(state.sheetScroll > 0)
        press(&state, .escape, .enter)
        #expect(state.sheetScroll == 0)
    }

    @Test("what lies under a sheet is dimmed, and no word is cut at the sheet's edges")
    func underSheetIsDimmedNotSliced() async throws {
        var state = try await fixtureState(purchases: false)
        state.selection[.store] = StoreScreen.products(state).firstIndex { $0.id == "com.lumenquest.pro.monthly" }!
        press(&state, .enter)
        let size = Size(width: 80, height: 24)
        let canvas = render(state, size: size)
        let area = sheetArea(state, size: size)
        let frame = try #require(state.top).view.sheet(state, in: area).frame(in: area)
        for y in frame.y..<frame.maxY {
            #expect(canvas[frame.x - 1, y].text == " " && canvas[frame.maxX, y].text == " ", "row \(y) is cut at the edge")
        }
        let beside = (area.y..<area.maxY).flatMap { y in (area.x..<frame.x).map { canvas[$0, y] } }.filter { $0.text != " " }
        #expect(!beside.isEmpty && beside.allSatisfy(\.style.dim))
    }
}

/// A wide terminal shows the selected item's details in a pane beside the list.
@Suite struct DetailPaneTests {
    let golden = GoldenScreenTests()

    @Test("from 140 columns the Store, History and Notices show the selected item's details beside the list")
    func wideScreensShowDetails() async throws {
        var state = try await fixtureState()
        let wide = Size(width: detailPaneWidth, height: 30), narrow = Size(width: detailPaneWidth - 1, height: 30)
        state.selection[.store] = StoreScreen.products(state).firstIndex { $0.id == "com.lumenquest.pro.monthly" }!
        #expect(render(state, size: wide).text.contains("┌ Product"))
        #expect(!render(state, size: narrow).text.contains("┌ Product"))
        press(&state, .character("3"), .end)
        #expect(render(state, size: wide).text.contains("transactionId: 2000000001"), "the selected (oldest) transaction")
        press(&state, .up)
        #expect(!render(state, size: wide).text.contains("transactionId: 2000000001"), "the pane follows the selection")
    }

    @Test func storeAt200x50() async throws {
        var state = try await fixtureState()
        state.size = Size(width: 200, height: 50)
        try golden.assertScreen("store-200x50", render(state, size: state.size).text)
    }

    @Test func historyAt160x40() async throws {
        var state = try await fixtureState()
        state.size = Size(width: 160, height: 40)
        press(&state, .character("3"), .down)
        try golden.assertScreen("history-160x40", render(state, size: state.size).text)
    }
}

@Suite struct ProductDetailOffersTests {
    @Test("a subscription's detail lists its introductory, promotional and win-back offers with their terms")
    func detailListsEveryOffer() async throws {
        let state = try await fixtureState()
        let lines = ProductDetailSheet(productID: "com.lumenquest.plus.monthly").lines(state)
        #expect(lines.contains { $0.hasPrefix("Introductory offer: ") && $0.contains("then $4.99/month") })
        #expect(lines.contains("Promotional offers:") && lines.contains { $0.hasPrefix("  plus.loyalty · ") })
        #expect(lines.contains("Win-back offers:") && lines.contains { $0.hasPrefix("  plus.winback · ") })
        #expect(!ProductDetailSheet(productID: "com.lumenquest.coins.100").lines(state).contains { $0.contains("offer:") || $0.hasSuffix("offers:") })
    }
}

@Suite struct RevokedSubscriptionShownTests {
    @Test("a revoked subscription shows when and why it was revoked, not an expiry that no longer applies")
    func revokedShowsWhenAndWhy() async throws {
        let (store, manager) = try await liveStore()
        await manager.purchase("com.lumenquest.plus.monthly")
        let id = try #require(await manager.snapshot.history.first?.payload?.transactionID)
        try await store.refund(transactionID: id, prorated: false, reason: .developerIssue)
        await manager.refresh()
        var state = await AppState.opening(Repo.catalog, manager: manager, controls: store)
        await manager.stop()
        await store.shutdown()
        press(&state, .character("2"))
        let text = render(state, size: Size(width: 100, height: 24)).text
        #expect(text.contains("Revoked: 2026-05-28 20:26 (reason: an issue in the app)"))
        #expect(!text.contains("Expires:") && !text.contains("Renews:"))
    }
}

@Suite struct CatalogWarningsShownTests {
    @Test("what loading the catalog worked around reaches the storefront's status line and log")
    func warningsReachTheStorefront() async throws {
        var catalog = Repo.catalog
        catalog.warnings = ["a plan's displayPrice 0.99 differs from its displayPrice 11.88"]
        let (store, manager) = try await liveStore()
        let state = await AppState.opening(catalog, manager: manager, controls: store)
        await manager.stop()
        await store.shutdown()
        #expect(state.status == "⚠ Catalog: a plan's displayPrice 0.99 differs from its displayPrice 11.88")
        #expect(state.log.contains { $0.text.hasPrefix("⚠ Catalog: ") })
    }
}
