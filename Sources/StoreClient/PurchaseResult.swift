import Foundation
import StoreCore
import StoreEngine
import StoreVerification

/// `Product.PurchaseResult`, verified, plus a thrown error as a case.
public enum PurchaseResult: Sendable, Equatable {
    case success(Verification<TransactionPayload>)
    case userCancelled
    case pending(PendingReason)
    case failed(StoreFailure)
}

/// `Product.SubscriptionInfo.Status`, verified.
public struct SubscriptionStatus: Sendable, Equatable {
    public var state: SubscriptionState
    public var transaction: Verification<TransactionPayload>
    public var renewalInfo: Verification<RenewalInfoPayload>
}

