import Foundation
import StoreKit
@testable @_spi(Storefront) import StoreKitTest
import StoreEngine
import StorefrontTestSupport
import Testing

/// The names app code reaches StoreKit's values by besides the main ones: deprecated string forms kept
/// for older systems, words for offers and reasons, the iOS 18.4 top-level names, per-product history.
extension StoreKitSuites {
@Suite("StoreKit's other names")
struct StoreKitNamesTests {
    let session: SKTestSession
    init() throws { session = try StoreKitSuites.freshSession() }

    @Test func allForAProductIsThatProductsHistoryNewestFirst() async throws {
        let first = try await StoreKitSuites.buy("nonconsumable.car")
        _ = try await StoreKitSuites.buy("nonconsumable.racecar")
        let standard = try await StoreKitSuites.buy("subscription.standard")
        var ids: [UInt64] = []
        for await result in Transaction.all(for: "nonconsumable.car") { ids.append(try result.payloadValue.id) }
        #expect(ids == [first.id])
        ids = []
        for await result in Transaction.all(for: "subscription.standard") { ids.append(try result.payloadValue.id) }
        #expect(ids == [standard.id])
        for await _ in Transaction.all(for: "nonconsumable.utilityvehicle") { Issue.record("never bought, yet in its history") }
    }

    @Test func theDeprecatedStringFormsAreTheSignedValues() async throws {
        let pro = try await StoreKitSuites.buy("subscription.pro")
        #expect(pro.environmentStringRepresentation == pro.environment.rawValue && pro.environmentStringRepresentation == "Xcode")
        #expect(pro.reasonStringRepresentation == "PURCHASE")
        let status = try #require(try await StoreKitSuites.product("subscription.pro").subscription?.status.first)
        let renewal = try status.renewalInfo.payloadValue
        #expect(renewal.environmentStringRepresentation == "Xcode")
        #expect(renewal.offerPaymentModeStringRepresentation == nil, "the intro price was paid up front: the renewal has no offer")
    }

    @Test func offersAndExpiryReasonsReadInWords() {
        #expect(Product.SubscriptionOffer.PaymentMode.freeTrial.localizedDescription == "Free Trial")
        #expect(Product.SubscriptionOffer.PaymentMode.payAsYouGo.localizedDescription == "Pay As You Go")
        #expect(Product.SubscriptionOffer.PaymentMode.payUpFront.localizedDescription == "Pay Up Front")
        #expect(Product.SubscriptionOffer.OfferType.winBack.localizedDescription == "Win-Back Offer")
        #expect(Transaction.OfferType.code.localizedDescription == "Offer Code")
        #expect(Transaction.OfferType.introductory.localizedDescription == "Introductory Offer")
        #expect(Product.SubscriptionInfo.RenewalInfo.ExpirationReason.billingError.localizedDescription == "Billing error")
        #expect(Product.SubscriptionInfo.RenewalInfo.ExpirationReason(rawValue: 99).localizedDescription == "Unknown reason")
    }

    @Test func aSubscriptionPeriodIsDateComponentsOfItsUnit() throws {
        let month = DateComponents(subscriptionPeriod: .monthly)
        #expect(month.month == 1 && month.day == nil && month.year == nil)
        #expect(DateComponents(subscriptionPeriod: .weekly).weekOfYear == 1)
        #expect(DateComponents(subscriptionPeriod: .everyThreeDays).day == 3)
        #expect(DateComponents(subscriptionPeriod: .yearly).year == 1)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "UTC"))
        let start = Date(timeIntervalSince1970: 1_706_745_600)  // 2024-02-01
        let end = try #require(calendar.date(byAdding: DateComponents(subscriptionPeriod: .weekly), to: start))
        #expect(end.timeIntervalSince(start) == 7 * 86_400)
    }

    @Test func everySignedResultGivesWhatItsSignatureCovers() async throws {
        _ = try await StoreKitSuites.buy("subscription.standard")
        let status = try #require(try await StoreKitSuites.product("subscription.standard").subscription?.status.first)
        let app = try await AppTransaction.shared
        for (jws, signed) in [(status.transaction.jwsRepresentation, status.transaction.signedData),
                              (status.renewalInfo.jwsRepresentation, status.renewalInfo.signedData),
                              (app.jwsRepresentation, app.signedData)] {
            let parts = jws.split(separator: ".")
            #expect(String(decoding: signed, as: UTF8.self) == "\(parts[0]).\(parts[1])")
        }
    }

    @Test func theTopLevelNamesAreTheNestedTypes() async throws {
        _ = try await StoreKitSuites.buy("subscription.standard")
        let info: SubscriptionInfo = try #require(try await StoreKitSuites.product("subscription.standard").subscription)
        let status: SubscriptionStatus = try #require(try await info.status.first)
        let state: SubscriptionRenewalState = status.state
        let renewal: SubscriptionRenewalInfo = try status.renewalInfo.payloadValue
        #expect(state == .subscribed && renewal.currentProductID == "subscription.standard")
    }
}
}

extension StoreKitSuites {
@Suite("PurchaseIntent")
struct PurchaseIntentAPITests {
    @Test func intentsGiveEachPurchaseBegunOnTheAppStoreOnceWithTheOfferChosen() async throws {
        let session = try SKTestSession(contentsOf: URL(fileURLWithPath: Repo.catalogPath))
        session.clearTransactions()
        // Sent before the app listens, as when the App Store launches the app for it.
        try await session.store.sendPurchaseIntent(productID: "com.lumenquest.plus.monthly", offerID: "plus.loyalty")
        try await session.store.sendPurchaseIntent(productID: "com.lumenquest.pro", offerID: nil)
        var intents = PurchaseIntent.intents.makeAsyncIterator()
        let promoted = try #require(await intents.next())
        #expect(promoted.id == "com.lumenquest.plus.monthly" && promoted.product.id == promoted.id)
        #expect(promoted.offer?.id == "plus.loyalty" && promoted.offer?.type == .promotional)
        let second = try #require(await intents.next())
        #expect(second.product.id == "com.lumenquest.pro" && second.offer == nil)
        // The app completes it as Apple's example does: it buys the product.
        let result = try await second.product.purchase()
        guard case .success(.verified(let transaction)) = result else { Issue.record("\(result)"); return }
        #expect(transaction.productID == "com.lumenquest.pro")
        let none = await first(PurchaseIntent.intents, within: 0.6) { _ in true }
        #expect(none == nil, "each intent is handed out once")
    }

    @Test func anIntentWaitsWhileItsProductCannotBeReadAndIsNotLost() async throws {
        let session = try SKTestSession(contentsOf: URL(fileURLWithPath: Repo.catalogPath))
        session.resetToDefaultState()
        try await session.setSimulatedError(.generic(.networkError(URLError(.cannotConnectToHost))), forAPI: .loadProducts)
        try await session.store.sendPurchaseIntent(productID: "com.lumenquest.pro", offerID: nil)
        #expect(await first(PurchaseIntent.intents, within: 0.6) { _ in true } == nil, "no product to hand out yet")
        try await session.setSimulatedError(nil, forAPI: .loadProducts)
        #expect(await first(PurchaseIntent.intents, within: 5) { _ in true }?.id == "com.lumenquest.pro")
    }

    @Test func promotionInfoKeepsTheAppsOrderAndVisibility() async throws {
        let session = try SKTestSession(contentsOf: URL(fileURLWithPath: Repo.catalogPath))
        session.resetToDefaultState()
        #expect(try await Product.PromotionInfo.currentOrder.isEmpty, "none set: App Store Connect's order")
        try await Product.PromotionInfo.updateProductOrder(byID: ["com.lumenquest.pro", "com.lumenquest.plus.monthly"])
        var order = try await Product.PromotionInfo.currentOrder
        #expect(order.map(\.productID) == ["com.lumenquest.pro", "com.lumenquest.plus.monthly"])
        #expect(order.allSatisfy { $0.visibility == .appStoreConnectDefault })
        order[1].visibility = .hidden
        try await order[1].update()
        try await Product.PromotionInfo.updateProductVisibility(.visible, for: "com.lumenquest.removeads")
        try await Product.PromotionInfo.updateProductOrder(byID: ["com.lumenquest.plus.monthly", "com.lumenquest.removeads"])
        order = try await Product.PromotionInfo.currentOrder
        #expect(order.map(\.productID) == ["com.lumenquest.plus.monthly", "com.lumenquest.removeads"])
        #expect(order.map(\.visibility) == [.hidden, .visible], "each keeps the visibility it had")
        await #expect(throws: StoreKitError.self) { try await Product.PromotionInfo.updateProductOrder(byID: ["com.example.nothing"]) }
        try await Product.PromotionInfo.updateAll([Product.PromotionInfo]())
        #expect(try await Product.PromotionInfo.currentOrder.isEmpty, "an empty collection cancels the app's changes")
    }
}
}
