import Foundation
import StoreClient
import StoreCore
import StoreEngine
import TerminalUI
@testable import StorefrontApp
import StorefrontTestSupport

extension Repo {
    static let screens = root.appendingPathComponent("Tests/StorefrontAppTests/Screens")
}

/// A clock that never moves, so every golden shows the same dates.
struct FixedTime: RealTimeSource {
    static let date = Date(timeIntervalSince1970: 1_780_000_000)  // 2026-05-28 20:26 UTC
    func now() -> Date { Self.date }
}

/// A real in-memory store at a fixed time, with a few purchases made through the real StoreManager:
/// goldens show what the app shows, not hand-made data.
func fixtureState(storefront: String = "USA", locale: String = "en_US", purchases: Bool = true) async throws -> AppState {
    let catalog = Repo.catalog
    let (store, manager) = try await liveStore(storefront: storefront, locale: locale)
    if purchases {
        await manager.purchase("com.lumenquest.coins.100", options: PurchaseOptions(quantity: 3))
        await manager.purchase("com.lumenquest.pro")
        await manager.purchase("com.lumenquest.plus.monthly")
        await store.update { $0.askToBuy = true }
        await manager.purchase("com.lumenquest.removeads")
        await store.update { $0.askToBuy = false }
    }
    await manager.refresh()
    var state = await AppState.opening(catalog, manager: manager, controls: store)
    state.locales = ["en_US", "ja_JP"]
    await manager.stop()
    await store.shutdown()
    return state
}

/// A fresh in-memory store and manager at the fixed time, for effect-runner tests.
func liveStore(storefront: String? = nil, locale: String? = nil) async throws -> (LocalAppStore, StoreManager) {
    let catalog = Repo.instantCatalog
    let stack = try await StoreStack.open(catalog: catalog, stateDirectory: nil, storefront: storefront, locale: locale, time: FixedTime())
    return (stack.store, stack.manager)
}

/// Feeds keys through the reducer, collecting the effects.
@discardableResult
func press(_ state: inout AppState, _ keys: Key...) -> [Effect] {
    keys.flatMap { reduce(&state, .key($0)) }
}

/// The same, through the walk's layer around the app.
@discardableResult
func press(_ state: inout WalkthroughState, _ keys: Key...) -> [WalkthroughEffect] {
    keys.flatMap { reduce(&state, .key($0)) }
}

/// The store's answer to the effect in flight: what the run loop sends when it finished.
func storeAnswers(_ state: inout AppState) {
    _ = reduce(&state, .finished(.done("done")))
    _ = reduce(&state, .qaData(state.settings, state.ledger))
    _ = reduce(&state, .storeSettled)
}
