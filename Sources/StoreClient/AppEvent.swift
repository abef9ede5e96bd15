import Foundation
import StoreCore
import StoreEngine

/// What happened, for the UI's status line and for scenario checks.
public enum AppEvent: Sendable, Equatable {
    case purchased(productID: String, quantity: Int)
    case cancelled(productID: String)
    case pending(productID: String, reason: PendingReason)
    /// Delivered through updates: an approval, another device's purchase, a redemption; `familyShared`:
    /// a family member's purchase shared with the customer.
    case transactionArrived(productID: String, offer: OfferType?, familyShared: Bool = false)
    case renewed(productID: String)
    /// Refunded (`refund`: what was given back, formatted) or, with none, Family Sharing taken back.
    case revoked(productID: String, refund: String? = nil)
    case restored(count: Int)
    case redeemed(code: String)
    case refundRequested(transactionID: Int64, outcome: RefundRequestOutcome)
    case failed(StoreAPI, StoreFailure)
    /// The customer began a purchase on the App Store (a promoted product, a win-back offer): StoreKit's
    /// `PurchaseIntent`, for the app to complete.
    case purchaseIntent(productID: String, offerID: String?)

    public var isFailure: Bool {
        if case .failed = self { true } else { false }
    }

    /// One line, in product IDs: what a scenario's `expect message` reads (the storefront's status
    /// line says more, from what it knows besides: see `StatusLine`).
    public var message: String {
        switch self {
        case .purchased(let id, let q): q > 1 ? "Purchased \(q) × \(id)" : "Purchased \(id)"
        case .cancelled: "Purchase cancelled"
        case .pending(_, .askToBuy): "Waiting for approval (Ask to Buy)"
        case .pending(_, .interrupted): "Purchase interrupted: waiting for the customer to resolve it"
        case .transactionArrived(let id, .code?, _): "Offer code redeemed: \(id)"
        case .transactionArrived(let id, _, _): "Transaction arrived: \(id)"
        case .renewed(let id): "Renewed \(id)"
        case .revoked(let id, _): "Refunded / revoked: \(id)"
        case .restored(0): "Nothing to restore"
        case .restored(let n): n == 1 ? "Restored 1 purchase" : "Restored \(n) purchases"
        case .redeemed(let code): "Code \(code) accepted"
        case .refundRequested(_, .success): "Refund requested"
        case .refundRequested(_, .userCancelled): "Refund request cancelled"
        case .failed(let api, let failure): "\(api.title) failed: \(failure.message)"
        case .purchaseIntent(let id, _): "Purchase begun on the App Store: \(id)"
        }
    }
}
