import Foundation
import StoreClient
import StoreCore
import Testing
import TerminalUI
@testable import StorefrontApp
import StorefrontTestSupport

@Suite("Payment sheet")
struct PaymentSheetTests {
    @Test("before Confirm the payment sheet says an owned non-consumable comes again for free, and the subscription is the customer's already")
    func alreadyPurchasedNotice() async throws {
        let state = try await fixtureState()  // owns Pro, subscribed to Plus Monthly, Remove Ads waiting for approval
        #expect(PaymentSheet(productID: "com.lumenquest.pro").body(state)
                    .contains("You've already purchased this. Would you like to get it again for free?"))
        #expect(PaymentSheet(productID: "com.lumenquest.plus.monthly").body(state).contains { $0.hasPrefix("You're currently subscribed to this.") })
        // Seen in tmux: the notice said "Environment: Local" while every other sheet said the store's environment.
        #expect(PaymentSheet(productID: "com.lumenquest.pro").body(state).contains("Account: local tester · Environment: Sandbox"))
        for fresh in ["com.lumenquest.removeads", "com.lumenquest.plus.yearly", "com.lumenquest.coins.100"] {
            #expect(!PaymentSheet(productID: fresh).body(state).contains { $0.hasPrefix("You") }, "\(fresh)")
        }
    }

    @Test("a subscription cancelled but not yet ended: the payment sheet says confirming resubscribes, and when it would end")
    func cancelledSubscriptionResubscribes() async throws {
        let (store, manager) = try await liveStore()
        await manager.purchase("com.lumenquest.plus.monthly")
        try await store.setAutoRenew(productID: "com.lumenquest.plus.monthly", enabled: false)
        await manager.refresh()
        let state = await AppState.opening(Repo.catalog, manager: manager, controls: store)
        let end = try #require(state.snapshot.subscriptionStatuses.values.first?.first?.transaction.payload?.expirationDate)
        let body = PaymentSheet(productID: "com.lumenquest.plus.monthly").body(state)
        #expect(body.contains { $0.hasPrefix("Your subscription ends on \(Format.date(end)). Confirm to resubscribe") }, "\(body)")
        await manager.stop()
        await store.shutdown()
    }

    @Test("confirming an owned product reports it was given back at no charge")
    func alreadyPurchasedOutcome() async throws {
        var state = try await fixtureState()
        var sheet = PaymentSheet(productID: "com.lumenquest.pro")
        _ = sheet.perform(.activate, &state)
        #expect(sheet.wasAlreadyPurchased)
        state.sheets.append(.payment(sheet))
        let transaction = state.snapshot.history.compactMap(\.payload).first { $0.productID == "com.lumenquest.pro" }
        let verified = try #require(transaction)
        PaymentSheet.finish("com.lumenquest.pro", .success(.verified(verified)), &state)
        #expect(state.status == "Already yours: Lumen Quest Pro, at no charge")
    }

    @Test("with no offer chosen, the offer line names the introductory offer the customer gets, not None")
    func offerChoiceNamesTheIntroductoryOffer() async throws {
        let state = try await fixtureState(purchases: false)  // eligible for the membership's intro offer
        let sheet = draft(for: try #require(state.product("com.lumenquest.pro.monthly")), state)
        #expect(sheet.offers.count > 1)
        #expect(sheet.body(state).contains { $0.hasPrefix("Offer choice: Introductory offer") })
        #expect(!sheet.body(state).contains { $0.contains("None") })
    }

    @Test("cycling through offers keeps the payment sheet the same size")
    func cyclingOffersKeepsTheSheetsSize() async throws {
        var state = try await fixtureState(purchases: false)
        var sheet = draft(for: try #require(state.product("com.lumenquest.pro.monthly")), state)
        let area = TerminalUI.Rect(x: 0, y: 0, width: 80, height: 24)
        var frames: Set<String> = []
        for _ in sheet.offers {
            var canvas = Canvas(width: 80, height: 24)
            sheet.draw(state, in: area, on: &canvas)
            let rows = canvas.lines.filter { $0.contains("┌") || $0.contains("└") }
            frames.insert(rows.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: "|") + "@\(canvas.lines.firstIndex { $0.contains("┌") } ?? -1)")
            _ = sheet.perform(.nextOffer, &state)
        }
        #expect(frames.count == 1, "\(frames)")
    }
}

@Suite struct WinBackInStoreTests {
    func state(expired: Bool) async throws -> AppState {
        let catalog = try CatalogLoader.load(path: Repo.catalogPath)
        let (store, manager) = try await liveStore()
        await manager.purchase("com.lumenquest.plus.monthly")
        if expired { try await store.expireSubscription(productID: "com.lumenquest.plus.monthly") }
        await manager.refresh()
        let state = await AppState.opening(catalog, manager: manager, controls: store)
        await manager.stop()
        await store.shutdown()
        return state
    }

    func offerLines(_ state: AppState) -> [String] {
        StoreScreen.lines(state, width: 80, rows: 40).map(\.text).filter { $0.contains("Win-back offer") }
    }

    @Test func aLapsedSubscriberSeesTheWinBackOfferInTheStoreListAndOnThePaymentSheet() async throws {
        let lapsed = try await state(expired: true)
        #expect(offerLines(lapsed).count == 1, "\(StoreScreen.lines(lapsed, width: 80, rows: 40).map(\.text))")
        #expect(offerLines(lapsed).first?.hasPrefix("    Win-back offer: ") == true)
        let sheet = draft(for: try #require(lapsed.product("com.lumenquest.plus.monthly")), lapsed)
        #expect(sheet.offers.contains(.winBack("plus.winback")))
    }

    @Test("the payment sheet opens on the win-back offer the Store's row advertises")
    func theAdvertisedWinBackOfferIsPreselected() async throws {
        let lapsed = try await state(expired: true)
        #expect(draft(for: try #require(lapsed.product("com.lumenquest.plus.monthly")), lapsed).offer == .winBack("plus.winback"))
        let current = try await state(expired: false)
        #expect(draft(for: try #require(current.product("com.lumenquest.plus.monthly")), current).offer == PaymentSheet.Offer.none)
    }

    @Test func aCurrentSubscriberIsNotOfferedWinBack() async throws {
        #expect(offerLines(try await state(expired: false)).isEmpty)
    }
}
