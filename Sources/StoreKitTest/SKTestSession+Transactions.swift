import Foundation
import StoreVerification
import StoreCore
import StoreEngine
@_spi(Storefront) import StoreKit
import StoreSigning

/// The Transaction Manager's controls, as `SKTestSession` methods.
extension SKTestSession {
    /// Every transaction in the environment: pending, declined and consumable ones too, oldest first.
    public func allTransactions() -> [SKTestTransaction] {
        (try? wait { [store] in
            let entries = await store.ledgerEntries()
            let autoRenewing = await Self.autoRenewing(store, groups: Set(entries.compactMap(\.payload.subscriptionGroupID)))
            return entries.sorted { $0.id < $1.id }.map {
                SKTestTransaction($0, autoRenews: $0.payload.productType == .autoRenewable && autoRenewing[$0.payload.originalTransactionID] == true)
            }
        }) ?? []
    }

    /// Which subscriptions (by original transaction) will renew, from their renewal info.
    private static func autoRenewing(_ store: LocalAppStore, groups: Set<String>) async -> [Int64: Bool] {
        let statuses = (try? await store.subscriptionStatuses(groupIDs: Array(groups))) ?? [:]
        var renews: [Int64: Bool] = [:]
        for status in statuses.values.joined() {
            let payload = status.renewalInfo.split(separator: ".").dropFirst().first.flatMap { Base64URL.decode(String($0)) }
            if let payload, let json = try? JSONParser.parse(payload), let info = RenewalInfoPayload(json: json) {
                renews[info.originalTransactionID] = info.willAutoRenew
            }
        }
        return renews
    }

    /// A purchase made outside the app (the App Store, another device): it reaches the app through `Transaction.updates`.
    /// The options are the purchase's (a quantity, an app account token, `.purchaseDate(_:renewalBehavior:)`).
    @discardableResult
    public func buyProduct(identifier: String, options: Set<StoreKit.Product.PurchaseOption> = []) async throws -> StoreKit.Transaction {
        let jws: String?
        do {
            jws = try await store.buyOutsideApp(productID: identifier, familyShared: false, options: StoreKit.Product.PurchaseOption.engineOptions(options))
        } catch {
            throw SKTestError.from(error)
        }
        guard let jws, let result = StoreConnection(store: store).transaction(jws) else {
            throw SKTestError(.noTransactionFound, "the purchase of \(identifier) made no transaction")
        }
        return result.unsafePayloadValue
    }

    @available(*, deprecated, renamed: "buyProduct(identifier:options:)")
    public func buyProduct(productIdentifier: String) throws {
        try wait { [store] in try await store.buyOutsideApp(productID: productIdentifier, familyShared: false) }
    }

    public func deleteTransaction(identifier: Int) throws {
        try wait { [store] in try await store.deleteTransaction(Int64(identifier)) }
    }

    /// Refunds a purchase at once (the test environment always approves): the app sees it revoked through `Transaction.updates`.
    public func refundTransaction(identifier: Int) throws {
        try wait { [store] in try await store.refund(transactionID: Int64(identifier), prorated: false) }
    }

    public func approveAskToBuyTransaction(identifier: Int) throws {
        try wait { [store] in try await store.approveAskToBuy(transactionID: Int64(identifier)) }
    }

    /// Declines an Ask to Buy purchase: as in StoreKit, the app hears nothing of it.
    public func declineAskToBuyTransaction(identifier: Int) throws {
        try wait { [store] in try await store.declineAskToBuy(transactionID: Int64(identifier)) }
    }

    /// Completes an interrupted purchase.
    public func resolveIssueForTransaction(identifier: Int) throws {
        try wait { [store] in try await store.resolveInterruptedPurchase(transactionID: Int64(identifier)) }
    }

    /// Ends the customer's subscription to a product now.
    public func expireSubscription(productIdentifier: String) throws {
        try wait { [store] in try await store.expireSubscription(productID: productIdentifier) }
    }

    /// Ends the current period and starts the next one now.
    public func forceRenewalOfSubscription(productIdentifier: String) throws {
        try wait { [store] in try await store.forceRenewal(productID: productIdentifier) }
    }

    public func enableAutoRenewForTransaction(identifier: Int) throws {
        try subscriptionControl(identifier) { store, product in try await store.setAutoRenew(productID: product, enabled: true) }
    }

    public func disableAutoRenewForTransaction(identifier: Int) throws {
        try subscriptionControl(identifier) { store, product in try await store.setAutoRenew(productID: product, enabled: false) }
    }

    public func requestPriceIncreaseConsentForTransaction(identifier: Int) throws {
        try subscriptionControl(identifier) { store, product in try await store.requestPriceIncrease(productID: product) }
    }

    public func consentToPriceIncreaseForTransaction(identifier: Int) throws {
        try subscriptionControl(identifier) { store, product in try await store.respondToPriceIncrease(productID: product, agree: true) }
    }

    public func declinePriceIncreaseForTransaction(identifier: Int) throws {
        try subscriptionControl(identifier) { store, product in try await store.respondToPriceIncrease(productID: product, agree: false) }
    }

    /// A control over the subscription a transaction belongs to.
    private func subscriptionControl(_ identifier: Int, _ body: @escaping @Sendable (LocalAppStore, String) async throws -> Void) throws {
        try wait { [store] in
            guard let entry = await store.ledgerEntries().first(where: { $0.id == Int64(identifier) }) else {
                throw SKTestError(.noTransactionFound, "no transaction \(identifier)")
            }
            guard entry.payload.productType == .autoRenewable else {
                throw SKTestError(.invalidProductType, "transaction \(identifier) is for \(entry.payload.productID), not an auto-renewable subscription")
            }
            try await body(store, entry.payload.productID)
        }
    }
}
