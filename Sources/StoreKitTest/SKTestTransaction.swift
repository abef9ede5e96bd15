import Foundation
import StoreCore
import StoreEngine
import StoreKit

/// StoreKitTest's `SKTestTransaction`: the test environment's view of one transaction, pending and declined ones too.
/// Compared by identity, as Apple's (an `NSObject`).
public final class SKTestTransaction: Sendable, Hashable, CustomStringConvertible {
    /// Unsigned, as StoreKitTest's (an `NSUInteger`): a transaction's `id` is `UInt(transaction.id)` here.
    public let identifier: UInt
    public let originalTransactionIdentifier: UInt
    public let productIdentifier: String
    public let state: SKPaymentTransactionState
    public let purchaseDate: Date
    public let expirationDate: Date?
    public let revocationDate: Date?
    /// When the transaction was refunded (StoreKit 1's cancellation date); nil while it stands.
    public var cancelDate: Date? { revocationDate }
    public let webOrderLineItemID: String
    public let autoRenewingEnabled: Bool
    public let pendingAskToBuyConfirmation: Bool
    /// Whether the customer meant to buy it (false for one a tester made, as `buyProduct` does).
    public let hasPurchaseIntent: Bool
    /// Whether `resolveIssueForTransaction(identifier:)` has something to resolve: an interrupted purchase,
    /// or the newest transaction of a subscription in billing retry or its grace period.
    public let hasPurchaseIssue: Bool
    /// Whether the subscription waits for the customer's consent to a price increase.
    public let isPendingPriceIncreaseConsent: Bool

    /// `renewal`: the subscription's renewal info; `isLatest`: the subscription's newest transaction.
    init(_ entry: LedgerEntry, renewal: RenewalInfoPayload?, isLatest: Bool) {
        let payload = entry.payload
        identifier = UInt(payload.transactionID)
        originalTransactionIdentifier = UInt(payload.originalTransactionID)
        productIdentifier = payload.productID
        state = switch entry.status {
        case .completed: .purchased
        case .pendingApproval: .deferred
        case .declined: .failed
        case .interrupted: .purchasing
        }
        purchaseDate = payload.purchaseDate
        expirationDate = payload.expirationDate
        revocationDate = payload.revocationDate
        webOrderLineItemID = payload.webOrderLineItemID ?? ""
        autoRenewingEnabled = renewal?.willAutoRenew ?? false
        pendingAskToBuyConfirmation = entry.status == .pendingApproval
        hasPurchaseIntent = true
        let billingIssue = isLatest && (renewal?.isInBillingRetry == true || renewal?.gracePeriodExpirationDate != nil)
        hasPurchaseIssue = entry.status == .interrupted || billingIssue
        isPendingPriceIncreaseConsent = renewal?.priceIncreaseStatus == .notYetResponded
    }

    public static func == (a: SKTestTransaction, b: SKTestTransaction) -> Bool { a === b }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    public var description: String { "SKTestTransaction(\(identifier), \(productIdentifier), \(state))" }
}
