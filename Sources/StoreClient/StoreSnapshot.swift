import Foundation
import StoreCore
import StoreEngine
import StoreVerification

/// Everything the UI shows of the store, as one value.
public struct StoreSnapshot: Sendable, Equatable {
    public var products: [Product] = []
    public var missingProductIDs: [String] = []
    public var loadError: StoreFailure?
    public var statusError: StoreFailure?
    /// Product IDs the customer is entitled to now.
    public var entitlements: Set<String> = []
    /// When each non-renewing subscription among them ends, by product ID: its entitlement ends then
    /// by the clock alone, with nothing in the store changing (see `nextTimedChange`).
    public var nonRenewingEnds: [String: Date] = [:]
    /// Consumable balances by product ID.
    public var balances: [String: Int] = [:]
    public var subscriptionStatuses: [String: [SubscriptionStatus]] = [:]
    public var introEligibility: [String: Bool] = [:]
    /// The newest of `Transaction.all` (at most `StoreManager.historyLimit`), newest first.
    public var history: [Verification<TransactionPayload>] = []
    /// The history is still to be loaded, after the UI's first frame (see `StoreManager.loadHistory`).
    public var isLoadingHistory = false
    /// How many transactions `Transaction.all` holds in all.
    public var transactionCount = 0
    public var unfinishedCount = 0
    public var storefront = Storefront.usa
    public var locale = "en_US"
    public var now = Date(timeIntervalSince1970: 0)
    public var lastPurchase: PurchaseResult?
    public var lastError: StoreFailure?
    public var lastEvent: AppEvent?
    public var appTransaction: Verification<AppTransactionPayload>?
    /// What is wrong with the store's records (a damaged ledger row), to show instead of less than was bought.
    public var damage: String?

    public init() {}

    /// The store time at which this snapshot goes out of date with nothing in the store changing: the
    /// first non-renewing entitlement to end. Renewals and expiries are the store's, which it writes.
    public var nextTimedChange: Date? { nonRenewingEnds.values.min() }

    /// The status that grants access in a group: the highest service level among those that grant it,
    /// else the most recent one.
    public func effectiveStatus(group: String) -> SubscriptionStatus? {
        let statuses = subscriptionStatuses[group] ?? []
        func level(_ s: SubscriptionStatus) -> Int {
            products.first { $0.id == s.transaction.payload?.productID }?.subscription?.level ?? Int.max
        }
        let granting = statuses.filter { $0.state.grantsAccess && $0.transaction.isVerified }
        return granting.min { level($0) < level($1) } ?? statuses.first
    }
}

