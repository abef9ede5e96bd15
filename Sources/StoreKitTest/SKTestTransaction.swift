import Foundation
import StoreCore
import StoreEngine
import StoreKit

/// StoreKitTest's `SKTestTransaction`: the test environment's view of one transaction, pending and declined ones too.
public final class SKTestTransaction: Sendable, CustomStringConvertible {
    public let identifier: Int
    public let originalTransactionIdentifier: Int
    public let productIdentifier: String
    public let state: SKPaymentTransactionState
    public let purchaseDate: Date
    public let expirationDate: Date?
    public let revocationDate: Date?
    public let webOrderLineItemID: String
    public let autoRenewingEnabled: Bool
    public let pendingAskToBuyConfirmation: Bool
    /// Whether the customer meant to buy it (false for one a tester made, as `buyProduct` does).
    public let hasPurchaseIntent: Bool

    init(_ entry: LedgerEntry, autoRenews: Bool) {
        let payload = entry.payload
        identifier = Int(payload.transactionID)
        originalTransactionIdentifier = Int(payload.originalTransactionID)
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
        autoRenewingEnabled = autoRenews
        pendingAskToBuyConfirmation = entry.status == .pendingApproval
        hasPurchaseIntent = true
    }

    public var description: String { "SKTestTransaction(\(identifier), \(productIdentifier), \(state))" }
}
