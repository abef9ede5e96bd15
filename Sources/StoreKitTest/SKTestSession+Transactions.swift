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
            let entries = await store.ledgerEntries().sorted { $0.id < $1.id }
            let renewals = await Self.renewalInfo(store, groups: Set(entries.compactMap(\.payload.subscriptionGroupID)))
            var latest: [Int64: Int64] = [:]  // each subscription's newest transaction, by original transaction
            for entry in entries where entry.payload.productType == .autoRenewable { latest[entry.payload.originalTransactionID] = entry.id }
            return entries.map { entry in
                let info = entry.payload.productType == .autoRenewable ? renewals[entry.payload.originalTransactionID] : nil
                return SKTestTransaction(entry, renewal: info, isLatest: latest[entry.payload.originalTransactionID] == entry.id)
            }
        }) ?? []
    }

    /// Each subscription's renewal info (by original transaction).
    private static func renewalInfo(_ store: LocalAppStore, groups: Set<String>) async -> [Int64: RenewalInfoPayload] {
        let statuses = (try? await store.subscriptionStatuses(groupIDs: Array(groups))) ?? [:]
        var infos: [Int64: RenewalInfoPayload] = [:]
        for status in statuses.values.joined() {
            let payload = status.renewalInfo.split(separator: ".").dropFirst().first.flatMap { Base64URL.decode(String($0)) }
            if let payload, let json = try? JSONParser.parse(payload), let info = RenewalInfoPayload(json: json) {
                infos[info.originalTransactionID] = info
            }
        }
        return infos
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

    /// Resolves what `hasPurchaseIssue` names: an interrupted purchase completes; a subscription in billing retry
    /// or its grace period (the transaction given is one of it) renews now, its billing issue resolved.
    public func resolveIssueForTransaction(identifier: Int) throws {
        try wait { [store] in
            let entry = await store.ledgerEntries().first { $0.id == Int64(identifier) }
            if let entry, entry.status == .completed, entry.payload.productType == .autoRenewable {
                try await store.resolveBillingIssue(originalTransactionID: entry.payload.originalTransactionID)
            } else {
                try await store.resolveInterruptedPurchase(transactionID: Int64(identifier))
            }
        }
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

/// The controls by a `UInt` identifier too: app code passes a transaction's `id` (a `UInt64`) as `UInt(transaction.id)`,
/// and StoreKitTest's Swift interface takes that as well as an `Int`.
extension SKTestSession {
    public func deleteTransaction(identifier: UInt) throws { try deleteTransaction(identifier: Int(identifier)) }
    public func refundTransaction(identifier: UInt) throws { try refundTransaction(identifier: Int(identifier)) }
    public func approveAskToBuyTransaction(identifier: UInt) throws { try approveAskToBuyTransaction(identifier: Int(identifier)) }
    public func declineAskToBuyTransaction(identifier: UInt) throws { try declineAskToBuyTransaction(identifier: Int(identifier)) }
    public func resolveIssueForTransaction(identifier: UInt) throws { try resolveIssueForTransaction(identifier: Int(identifier)) }
    public func enableAutoRenewForTransaction(identifier: UInt) throws { try enableAutoRenewForTransaction(identifier: Int(identifier)) }
    public func disableAutoRenewForTransaction(identifier: UInt) throws { try disableAutoRenewForTransaction(identifier: Int(identifier)) }
    public func requestPriceIncreaseConsentForTransaction(identifier: UInt) throws { try requestPriceIncreaseConsentForTransaction(identifier: Int(identifier)) }
    public func consentToPriceIncreaseForTransaction(identifier: UInt) throws { try consentToPriceIncreaseForTransaction(identifier: Int(identifier)) }
    public func declinePriceIncreaseForTransaction(identifier: UInt) throws { try declinePriceIncreaseForTransaction(identifier: Int(identifier)) }
}
