import Testing
import StorefrontTestSupport
import TerminalUI
@testable import StorefrontApp

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
        #expect(lines.contains { $0.hasPrefix("Intro offer: ") && $0.contains("then $4.99/month") })
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
