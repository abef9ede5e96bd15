import Foundation
import Testing
import StoreCore
@testable import StoreEngine
import StorefrontTestSupport

/// Purchases the customer begins on the App Store (a promoted product, a win-back offer): StoreKit's `PurchaseIntent`.
@Suite("Purchase intents")
struct PurchaseIntentTests {
    @Test("A purchase intent is held until the app takes it, handed out once, oldest first")
    func aPurchaseIntentIsHeldUntilTheAppTakesItAndHandedOutOnce() async throws {
        let store = try LocalAppStore(catalog: Repo.catalog, stateDirectory: nil)
        try await store.sendPurchaseIntent(productID: ID.pro, offerID: nil)
        try await store.sendPurchaseIntent(productID: ID.plusMonthly, offerID: "plus.loyalty")
        let taken = await store.takePurchaseIntents()
        #expect(taken == [PurchaseIntentRequest(productID: ID.pro, offerID: nil), PurchaseIntentRequest(productID: ID.plusMonthly, offerID: "plus.loyalty")])
        #expect(await store.takePurchaseIntents().isEmpty)
        #expect(await store.ledgerEntries().isEmpty, "an intent buys nothing: the app completes the purchase")
        await store.shutdown()
    }

    @Test("A purchase intent names a product of the catalog, and only a subscription's own promotional or win-back offer")
    func aPurchaseIntentNamesAKnownProductAndOneOfItsOffers() async throws {
        let store = try LocalAppStore(catalog: Repo.catalog, stateDirectory: nil)
        await #expect { try await store.sendPurchaseIntent(productID: "com.example.nothing", offerID: nil) } throws: {
            "\($0)".contains("unknown product com.example.nothing")
        }
        await #expect { try await store.sendPurchaseIntent(productID: ID.coins, offerID: "plus.winback") } throws: {
            "\($0)".contains("not an auto-renewable subscription")
        }
        await #expect { try await store.sendPurchaseIntent(productID: ID.plusMonthly, offerID: "pro.comeback50") } throws: {
            "\($0)".contains("has no promotional or win-back offer pro.comeback50 (it has plus.loyalty, plus.winback)")
        }
        try await store.setStorefront("CHN", locale: nil)
        await #expect { try await store.sendPurchaseIntent(productID: ID.removeAds, offerID: nil) } throws: {
            "\($0)".contains("not sold in the storefront CHN")
        }
        #expect(await store.takePurchaseIntents().isEmpty)
        await store.shutdown()
    }

    @Test("A win-back offer comes with a purchase intent only for a lapsed subscriber of the group, as the App Store shows it")
    func aWinBackOfferIsOnlyALapsedSubscribersPromotion() async throws {
        let store = try LocalAppStore(catalog: Repo.catalog, stateDirectory: nil)
        await #expect { try await store.sendPurchaseIntent(productID: ID.plusMonthly, offerID: "plus.winback") } throws: {
            "\($0)".contains("only to a lapsed subscriber of the group, and this customer is new to it")
        }
        try await store.buyOutsideApp(productID: ID.plusMonthly, familyShared: false)
        await #expect { try await store.sendPurchaseIntent(productID: ID.plusMonthly, offerID: "plus.winback") } throws: {
            "\($0)".contains("this customer is subscribed")
        }
        try await store.expireSubscription(productID: ID.plusMonthly)
        try await store.sendPurchaseIntent(productID: ID.plusMonthly, offerID: "plus.winback")
        #expect(await store.takePurchaseIntents() == [PurchaseIntentRequest(productID: ID.plusMonthly, offerID: "plus.winback")])
        await store.shutdown()
    }

    @Test("A reset drops the purchase intents the app never took")
    func aResetDropsHeldPurchaseIntents() async throws {
        let store = try LocalAppStore(catalog: Repo.catalog, stateDirectory: nil)
        try await store.sendPurchaseIntent(productID: ID.pro, offerID: nil)
        try await store.reset()
        #expect(await store.takePurchaseIntents().isEmpty)
        await store.shutdown()
    }
}
