import Foundation
import StoreClient
import StoreCore
import StoreEngine
import Testing
@testable import StorefrontApp

/// The effect runner against a real in-memory store: what the reducer asks for really happens.
@Suite struct EffectRunnerTests {
    @Test func promotionalOfferIsSignedBeforePurchase() async throws {
        let (store, manager) = try await liveStore()
        let runner = EffectRunner(manager: manager, controls: store)
        _ = await runner.run(.command(.buy("com.lumenquest.plus.monthly", quantity: 1, offer: nil, signature: .valid, askToBuy: false, answer: .confirm)))
        // The reducer leaves the signature empty; the runner asks the store's test controls for one.
        let reply = await runner.run(.command(.buy("com.lumenquest.pro.monthly", quantity: 1, offer: "pro.comeback50", signature: .valid, askToBuy: false, answer: .confirm)))
        guard case .finished(.purchase(_, .success(let v))) = reply.event else { Issue.record("got \(reply.event)"); return }
        #expect(reply.changed == .all, "a purchase changes what both sides see")
        #expect(v.payload?.offerType == .promotional)
        #expect(v.payload?.offerID == "pro.comeback50")
    }

    @Test func qaCommandsChangeTheStoreAndRepriceProducts() async throws {
        let (store, manager) = try await liveStore()
        let runner = EffectRunner(manager: manager, controls: store)
        _ = await runner.run(.command(.toggle(.askToBuy)))
        #expect(await store.settings().askToBuy)
        _ = await runner.run(.command(.storefront("JPN", locale: "ja_JP")))
        let coins = await manager.snapshot.products.first { $0.id == "com.lumenquest.coins.100" }
        #expect(coins?.displayPrice == "¥160")
        let reply = await runner.run(.command(.buy("com.lumenquest.pro", quantity: 1, offer: nil, signature: .valid, askToBuy: false, answer: .confirm)))
        guard case .finished(.purchase(_, .pending(.askToBuy))) = reply.event else { Issue.record("got \(reply.event)"); return }
        let pending = try #require(await store.ledgerEntries().first { $0.status == .pendingApproval })
        _ = await runner.run(.command(.control(.approve, .id(pending.id))))
        try await Task.sleep(for: .milliseconds(300))  // the approval arrives through Transaction.updates
        #expect(await manager.snapshot.entitlements.contains("com.lumenquest.pro"))
    }

    @Test func failureInjectionReachesThePaymentSheetOutcome() async throws {
        let (store, manager) = try await liveStore()
        let runner = EffectRunner(manager: manager, controls: store)
        _ = await runner.run(.command(.fail(.purchase, .storeKit(.networkError))))
        var state = AppState()
        state.snapshot = await manager.snapshot
        press(&state, .enter)
        let effects = press(&state, .enter)
        _ = reduce(&state, await runner.run(effects[0]).event)
        #expect(state.top == .message(title: "Purchase failed", text: "Cannot connect to the App Store (network error)."))
    }
}
