import Foundation
import StoreKit
import StoreKitTest
import StorefrontTestSupport
import Testing

/// Every suite that opens an `SKTestSession`: one test environment per process, as in Xcode, so they run one at a time.
@Suite(.serialized) struct StoreKitSuites {
    /// Apple's SKDemo sample configuration: four non-consumables and consumables, a group of three subscriptions, a non-renewing one.
    static let configuration = Repo.sharedFixtures.appendingPathComponent("storekit/cntrump+SKDemo__Products.storekit")

    /// A session on it with nothing bought, as a test's setup makes one.
    static func freshSession() throws -> SKTestSession {
        let session = try SKTestSession(contentsOf: configuration)
        session.disableDialogs = true
        session.resetToDefaultState()
        session.clearTransactions()
        return session
    }

    static func product(_ id: String) async throws -> Product {
        try #require(try await Product.products(for: [id]).first)
    }

    /// Buys `id` and hands back its verified transaction, finished unless `finishing` is false.
    static func buy(_ id: String, options: Set<Product.PurchaseOption> = [], finishing: Bool = true) async throws -> Transaction {
        let result = try await product(id).purchase(options: options)
        guard case .success(.verified(let transaction)) = result else { throw TestFailure("\(id): \(result)") }
        if finishing { await transaction.finish() }
        return transaction
    }

    struct TestFailure: Error, CustomStringConvertible { let description: String; init(_ d: String) { description = d } }
}

/// The first element `sequence` gives that passes `test`, or nil after `seconds` (a missed update fails, never hangs).
func first<S: AsyncSequence & Sendable>(_ sequence: S, within seconds: Double = 5, where test: @escaping @Sendable (S.Element) -> Bool) async -> S.Element?
where S.Element: Sendable {
    await withTaskGroup(of: S.Element?.self) { group in
        group.addTask {
            var iterator = sequence.makeAsyncIterator()
            while let element = try? await iterator.next() { if test(element) { return element } }
            return nil
        }
        group.addTask { try? await Task.sleep(for: .seconds(seconds)); return nil }
        let found = await group.next() ?? nil
        group.cancelAll()
        return found
    }
}

/// StoreKit's rules, asserted through Apple's API as an app's code and tests call it (storekit.md).
/// One test environment per process, as in Xcode: these run one at a time.
extension StoreKitSuites {
@Suite("StoreKit rules through the public API")
struct StoreKitFidelityTests {
    let session: SKTestSession
    init() throws { session = try StoreKitSuites.freshSession() }
    func product(_ id: String) async throws -> Product { try await StoreKitSuites.product(id) }

    func transactions(_ sequence: Transaction.Transactions) async -> [Transaction] {
        var all: [Transaction] = []
        for await result in sequence { all.append(result.unsafePayloadValue) }
        return all
    }

    @Test func productsForLeavesOutUnknownAndMistypedIdentifiers() async throws {
        let products = try await Product.products(for: ["nonconsumable.car", "nonconsumable.carr", "no.such.product"])
        #expect(products.map(\.id) == ["nonconsumable.car"])
    }

    @Test func currentEntitlementsHoldNoConsumables() async throws {
        for id in ["consumable.fuel.octane87", "nonconsumable.car"] {
            let result = try await product(id).purchase()
            guard case .success(.verified(let transaction)) = result else { Issue.record("\(id): \(result)"); return }
            await transaction.finish()
        }
        #expect(await transactions(Transaction.currentEntitlements).map(\.productID) == ["nonconsumable.car"])
    }

    @Test func currentEntitlementsLeaveOutRevokedTransactions() async throws {
        guard case .success(.verified(let car)) = try await product("nonconsumable.car").purchase() else { Issue.record("no purchase"); return }
        await car.finish()
        try session.refundTransaction(identifier: Int(car.id))
        #expect(await transactions(Transaction.currentEntitlements).isEmpty)
        #expect(await Transaction.latest(for: car.productID)?.unsafePayloadValue.revocationDate != nil)
    }

    @Test func updatesRedeliverUnfinishedTransactionsAtLaunch() async throws {
        guard case .success(.verified(let car)) = try await product("nonconsumable.car").purchase() else { Issue.record("no purchase"); return }
        // The app dies before finish(); at the next launch its listener hears of the purchase first.
        var updates = Transaction.updates.makeAsyncIterator()
        #expect(await updates.next()?.unsafePayloadValue.id == car.id)
        #expect(await transactions(Transaction.unfinished).map(\.id) == [car.id])
        await car.finish()
        #expect(await transactions(Transaction.unfinished).isEmpty)
    }

    @Test func buyingAnOwnedNonConsumableHandsBackTheSameTransaction() async throws {
        let car = try await product("nonconsumable.car")
        guard case .success(.verified(let first)) = try await car.purchase() else { Issue.record("no purchase"); return }
        await first.finish()
        guard case .success(.verified(let again)) = try await car.purchase() else { Issue.record("no second purchase"); return }
        #expect(again.id == first.id)
        #expect(await transactions(Transaction.all).count == 1)
    }

    @Test func renewalsArriveThroughUpdatesAndBecomeTheEntitlement() async throws {
        guard case .success(.verified(let first)) = try await product("subscription.standard").purchase() else { Issue.record("no purchase"); return }
        await first.finish()
        var updates = Transaction.updates.makeAsyncIterator()
        try session.forceRenewalOfSubscription(productIdentifier: "subscription.standard")
        let renewal = try #require(await updates.next()).unsafePayloadValue
        #expect(renewal.reason == .renewal && renewal.originalID == first.originalID && renewal.id != first.id)
        #expect(await transactions(Transaction.currentEntitlements).map(\.id) == [renewal.id])
    }

    @Test func currentEntitlementsKeepNonRenewingSubscriptionsForGood() async throws {
        guard case .success(.verified(let plan)) = try await product("nonRenewing.standard").purchase() else { Issue.record("no purchase"); return }
        await plan.finish()
        #expect(plan.expirationDate == nil, "the app computes a non-renewing subscription's end")
        #expect(await transactions(Transaction.currentEntitlements).map(\.id) == [plan.id])
    }

    @Test func anExpiredSubscriptionLeavesTheEntitlements() async throws {
        guard case .success(.verified(let pro)) = try await product("subscription.pro").purchase() else { Issue.record("no purchase"); return }
        await pro.finish()
        try session.expireSubscription(productIdentifier: pro.productID)
        #expect(await transactions(Transaction.currentEntitlements).isEmpty)
        #expect(await transactions(Transaction.all).map(\.id).contains(pro.id))
    }

    @Test func transactionAllLeavesOutFinishedConsumables() async throws {
        guard case .success(.verified(let fuel)) = try await product("consumable.fuel.octane87").purchase() else { Issue.record("no purchase"); return }
        #expect(await transactions(Transaction.all).map(\.id) == [fuel.id], "an unfinished consumable is in Transaction.all")
        await fuel.finish()
        let listed = await transactions(Transaction.all).map(\.id)
        #expect(!listed.contains(fuel.id))
    }

    // MARK: Rules from a behaviour audit against Apple's pages and tests run on Xcode

    func renewalInfo(_ groupID: String = "3F19ED53") async throws -> Product.SubscriptionInfo.RenewalInfo {
        let status = try #require(try await Product.SubscriptionInfo.status(for: groupID).first)
        guard case .verified(let info) = status.renewalInfo else { throw StoreKitSuites.TestFailure("unverified renewal info") }
        return info
    }

    @Test func currentEntitlementsHoldOnlyTheLatestPurchaseOfANonRenewingSubscription() async throws {
        let first = try await StoreKitSuites.buy("nonRenewing.standard")
        let second = try await StoreKitSuites.buy("nonRenewing.standard")
        #expect(await transactions(Transaction.currentEntitlements).map(\.id) == [second.id])
        #expect(await transactions(Transaction.currentEntitlements(for: "nonRenewing.standard")).map(\.id) == [second.id])
        #expect(await transactions(Transaction.all).map(\.id).contains(first.id), "the first is still in the history")
    }

    @Test func aNonRenewingSubscriptionSellsUpToTenAtOnce() async throws {
        let plan = try await StoreKitSuites.buy("nonRenewing.standard", options: [.quantity(3)])
        #expect(plan.purchasedQuantity == 3)
        await #expect(throws: Product.PurchaseError.invalidQuantity) { try await product("nonRenewing.standard").purchase(options: [.quantity(11)]) }
    }

    @Test func expiringASubscriptionEndsItsLatestTransactionNow() async throws {
        let pro = try await StoreKitSuites.buy("subscription.pro")
        let before = Date()
        try session.expireSubscription(productIdentifier: pro.productID)
        let latest = try #require(await Transaction.latest(for: pro.productID)).unsafePayloadValue
        let expires = try #require(latest.expirationDate)
        #expect(latest.id == pro.id && expires < pro.expirationDate!)
        #expect(abs(expires.timeIntervalSince(before)) < 5, "now, not the period's end: \(expires)")
        #expect(latest.signedDate >= before.addingTimeInterval(-1), "signed again")
        #expect(await transactions(Transaction.currentEntitlements).isEmpty)
    }

    @Test func forcingARenewalEndsTheRenewedTransactionNowAndStartsAPeriod() async throws {
        let standard = try await StoreKitSuites.buy("subscription.standard")
        var updates = Transaction.updates.makeAsyncIterator()
        try session.forceRenewalOfSubscription(productIdentifier: standard.productID)
        let renewal = try #require(await updates.next()).unsafePayloadValue
        let renewed = try #require(await transactions(Transaction.all).first { $0.id == standard.id })
        #expect(renewed.expirationDate == renewal.purchaseDate, "the renewed period ends as the new one begins")
        #expect(renewal.expirationDate! > renewal.purchaseDate)
    }

    @Test func anExpiredSubscriptionsRenewalInfoKeepsItsRenewalDate() async throws {
        let pro = try await StoreKitSuites.buy("subscription.pro")
        try session.expireSubscription(productIdentifier: pro.productID)
        let info = try await renewalInfo()
        #expect(info.renewalDate != nil, "always present for an auto-renewable subscription, even an expired one")
        #expect(!info.willAutoRenew)
    }

    @Test func billingRetryReportsABillingErrorAsTheExpirationReason() async throws {
        session.shouldEnterBillingRetryOnRenewal = true
        let standard = try await StoreKitSuites.buy("subscription.standard")
        try session.forceRenewalOfSubscription(productIdentifier: standard.productID)
        let info = try await renewalInfo()
        #expect(info.isInBillingRetry && info.expirationReason == .billingError)
        let latest = try #require(await Transaction.latest(for: standard.productID)).unsafePayloadValue
        #expect(latest.expirationDate! <= Date().addingTimeInterval(1), "the failed renewal's period ended now")
    }

    @Test func aSubscriberIsNotEligibleForAnIntroductoryOfferUntilTheSubscriptionLapses() async throws {
        let pro = try #require(try await product("subscription.pro").subscription)
        #expect(await pro.isEligibleForIntroOffer)
        let standard = try await StoreKitSuites.buy("subscription.standard")  // no introductory offer
        #expect(await !pro.isEligibleForIntroOffer, "introductory offers are for new subscribers")
        try session.expireSubscription(productIdentifier: standard.productID)
        #expect(await pro.isEligibleForIntroOffer, "never received one: eligible again once lapsed")
    }

    @Test func decliningAPriceIncreaseLeavesNoneWaiting() async throws {
        let pro = try await StoreKitSuites.buy("subscription.pro")
        try session.requestPriceIncreaseConsentForTransaction(identifier: Int(pro.id))
        try session.requestPriceIncreaseConsentForTransaction(identifier: Int(pro.id))  // may be asked repeatedly
        #expect(try await renewalInfo().priceIncreaseStatus == .pending)
        try session.declinePriceIncreaseForTransaction(identifier: Int(pro.id))
        let info = try await renewalInfo()
        #expect(info.priceIncreaseStatus == .noIncreasePending && !info.willAutoRenew)
        #expect(session.allTransactions().allSatisfy { !$0.isPendingPriceIncreaseConsent })
    }

    @Test func resolvingAnIssueOfASubscriptionOutOfBillingRetryDoesNothing() async throws {
        let pro = try await StoreKitSuites.buy("subscription.pro")
        try session.resolveIssueForTransaction(identifier: Int(pro.id))
        #expect(await transactions(Transaction.all).map(\.id) == [pro.id], "no renewal")
    }

    @Test func deletingASubscriptionsOriginalTransactionDeletesItsRenewals() async throws {
        let standard = try await StoreKitSuites.buy("subscription.standard")
        try session.forceRenewalOfSubscription(productIdentifier: standard.productID)
        try session.forceRenewalOfSubscription(productIdentifier: standard.productID)
        #expect(session.allTransactions().count == 3)
        try session.deleteTransaction(identifier: Int(standard.id))
        #expect(session.allTransactions().isEmpty)
        #expect(await transactions(Transaction.currentEntitlements).isEmpty)
    }

    @Test func changingTheStorefrontKeepsTheLocale() async throws {
        session.locale = Locale(identifier: "de_DE")
        session.storefront = "GBR"
        #expect(session.storefront == "GBR" && session.locale.identifier == "de_DE")
    }

    @Test func aSessionStartsWithDialogsOnAndItsResetPutsThemAndTheFailureErrorBack() throws {
        let fresh = try SKTestSession(contentsOf: StoreKitSuites.configuration)
        #expect(!fresh.disableDialogs)
        fresh.disableDialogs = true
        fresh.failureError = .paymentNotAllowed
        fresh.resetToDefaultState()
        #expect(!fresh.disableDialogs && fresh.failureError == .unknown)
        fresh.disableDialogs = true
    }
}
}
