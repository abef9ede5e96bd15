import Foundation
import SKDemoStore
import StoreKit
import StoreKitTest
import Observation
import XCTest

/// A fresh test environment for every test, as Xcode tests set one up.
class SessionTestCase: XCTestCase {
    var session: SKTestSession!

    override func setUpWithError() throws {
        session = try SKTestSession(configurationFileNamed: "Products")
        session.resetToDefaultState()
        session.disableDialogs = true
        session.clearTransactions()
    }

    /// The store class as the app launches it: products loaded, entitlements read.
    @MainActor
    func launchedStore() async -> Store {
        let store = Store()
        await store.requestProducts()
        await store.updateCustomerProductStatus()
        return store
    }

    /// Waits for what the store's listeners do in the background.
    @MainActor
    func eventually(_ what: String, _ condition: @MainActor () async -> Bool) async throws {
        for _ in 0..<500 where !(await condition()) { try await Task.sleep(for: .milliseconds(10)) }
        let met = await condition()
        XCTAssertTrue(met, what)
    }
}

/// The store class driven through `SKTestSession`, as its tests run in Xcode.
final class StoreTests: SessionTestCase {

    @MainActor
    func product(_ id: String, in store: Store) throws -> Product {
        try XCTUnwrap((store.cars + store.fuel + store.subscriptions + store.nonRenewables).first { $0.id == id })
    }

    @MainActor
    func testProductsLoadByKind() async throws {
        let store = await launchedStore()
        XCTAssertEqual(store.cars.map(\.id), ["nonconsumable.car", "nonconsumable.utilityvehicle", "nonconsumable.racecar"])
        XCTAssertEqual(store.fuel.count, 3)
        XCTAssertEqual(store.subscriptions.map(\.id), ["subscription.standard", "subscription.premium", "subscription.pro"])
        XCTAssertEqual(store.nonRenewables.first?.displayPrice, "$9.99")
    }

    @MainActor
    func testPurchaseOfEachProductType() async throws {
        let store = await launchedStore()
        for id in ["nonconsumable.car", "consumable.fuel.octane89", "subscription.standard", "nonRenewing.standard"] {
            let transaction = try await store.purchase(product(id, in: store))
            XCTAssertEqual(transaction?.productID, id)
        }
        XCTAssertTrue(store.isPurchased(try product("nonconsumable.car", in: store)))
        XCTAssertTrue(store.isPurchased(try product("subscription.standard", in: store)))
        XCTAssertTrue(store.isPurchased(try product("nonRenewing.standard", in: store)))
        XCTAssertEqual(store.fuelTank["consumable.fuel.octane89"], 1)
        XCTAssertEqual(store.subscriptionGroupStatus, .subscribed)
    }

    @MainActor
    func testAskToBuyApprovedArrivesThroughTheListener() async throws {
        let store = await launchedStore()
        session.askToBuyEnabled = true
        let car = try product("nonconsumable.racecar", in: store)
        let transaction = try await store.purchase(car)
        XCTAssertNil(transaction, "a pending purchase unlocks nothing")
        XCTAssertFalse(store.isPurchased(car))
        let pending = try XCTUnwrap(session.allTransactions().first { $0.pendingAskToBuyConfirmation })
        try session.approveAskToBuyTransaction(identifier: pending.identifier)
        try await eventually("the approved car arrives") { store.isPurchased(car) }
    }

    @MainActor
    func testAskToBuyDeclinedLeavesNothing() async throws {
        let store = await launchedStore()
        let car = try product("nonconsumable.car", in: store)
        session.askToBuyEnabled = true
        let transaction = try await store.purchase(car)
        XCTAssertNil(transaction)
        let pending = try XCTUnwrap(session.allTransactions().first)
        try session.declineAskToBuyTransaction(identifier: pending.identifier)
        await store.updateCustomerProductStatus()
        XCTAssertFalse(store.isPurchased(car))
        XCTAssertEqual(session.allTransactions().first?.state, .failed)
    }

    @MainActor
    func testExpiredSubscriptionIsNoLongerOwned() async throws {
        let store = await launchedStore()
        let pro = try product("subscription.pro", in: store)
        try await store.purchase(pro)
        XCTAssertTrue(store.isPurchased(pro))
        try session.expireSubscription(productIdentifier: pro.id)
        await store.updateCustomerProductStatus()
        XCTAssertFalse(store.isPurchased(pro))
        XCTAssertEqual(store.subscriptionGroupStatus, .expired)
    }

    @MainActor
    func testRefundRevokesThroughTheListener() async throws {
        let store = await launchedStore()
        let car = try product("nonconsumable.utilityvehicle", in: store)
        let purchased = try await store.purchase(car)
        let transaction = try XCTUnwrap(purchased)
        try session.refundTransaction(identifier: Int(transaction.id))
        try await eventually("the refunded car is taken back") { !store.isPurchased(car) }
    }

    @MainActor
    func testPurchaseMadeOutsideTheAppArrives() async throws {
        let store = await launchedStore()
        try await session.buyProduct(identifier: "nonconsumable.car")
        let car = try product("nonconsumable.car", in: store)
        try await eventually("the car bought elsewhere arrives") { store.isPurchased(car) }
    }

    @MainActor
    func testRestoreOnAFreshInstall() async throws {
        let first = await launchedStore()
        try await first.purchase(product("nonconsumable.racecar", in: first))
        let reinstalled = await launchedStore()
        try await reinstalled.restore()
        XCTAssertEqual(reinstalled.purchasedCars.map(\.id), ["nonconsumable.racecar"])
    }

    @MainActor
    func testConsumableDeliveredOnceWhenRedelivered() async throws {
        let store = await launchedStore()
        let fuel = try product("consumable.fuel.octane87", in: store)
        try await store.purchase(fuel, options: [.quantity(2)])
        try await store.purchase(fuel)
        XCTAssertEqual(store.fuelTank[fuel.id], 3)
    }

    @MainActor
    func testSimulatedPurchaseErrorReachesTheCaller() async throws {
        let store = await launchedStore()
        try await session.setSimulatedError(.purchase(.purchaseNotAllowed), forAPI: .purchase)
        do {
            try await store.purchase(product("nonconsumable.car", in: store))
            XCTFail("the purchase went through")
        } catch Product.PurchaseError.purchaseNotAllowed {
        }
    }
}

/// The `@Observable` variant: observation tells the UI, and the same session drives it.
final class EntitlementsTests: SessionTestCase {

    @MainActor
    func testPurchaseIsObservedAndARefundTakesItBack() async throws {
        let entitlements = Entitlements()
        let products = try await Product.products(for: ["nonconsumable.car"])
        let car = try XCTUnwrap(products.first)
        let changed = expectation(description: "observers hear of the purchase")
        withObservationTracking { _ = entitlements.ownedProductIDs } onChange: { changed.fulfill() }
        await entitlements.buy(car)
        await fulfillment(of: [changed], timeout: 5)
        XCTAssertEqual(entitlements.ownedProductIDs, ["nonconsumable.car"])
        let bought = try XCTUnwrap(session.allTransactions().first)
        try session.refundTransaction(identifier: bought.identifier)
        for _ in 0..<500 where !entitlements.ownedProductIDs.isEmpty { try await Task.sleep(for: .milliseconds(10)) }
        XCTAssertEqual(entitlements.ownedProductIDs, [])
    }

    @MainActor
    func testAFailedPurchaseIsKept() async throws {
        let entitlements = Entitlements()
        let products = try await Product.products(for: ["nonconsumable.car"])
        let car = try XCTUnwrap(products.first)
        try await session.setSimulatedError(.generic(.networkError(URLError(.notConnectedToInternet))), forAPI: .purchase)
        await entitlements.buy(car)
        XCTAssertNotNil(entitlements.lastError as? StoreKitError)
        XCTAssertEqual(entitlements.ownedProductIDs, [])
    }
}
