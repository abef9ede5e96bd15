import Foundation
import StoreCore
@_spi(Storefront) import StoreKit

/// StoreKitTest's failure a simulated API raises.
public protocol SKTestFailure: Equatable, Sendable {}

/// A StoreKit API whose failures a session can simulate (`.loadProducts`, `.purchase`…).
public protocol FailableStoreKitAPI<Failure>: Sendable {
    associatedtype Failure: SKTestFailure
}

/// What a failure is in the store's own vocabulary, and which API an API value names.
protocol StoreFailureConvertible { var storeFailure: StoreFailure { get } }
protocol StoreAPINaming { static var storeAPI: StoreAPI { get } }

/// The failures each API can be made to raise.
public enum SKTestFailures {
    public enum LoadProducts: SKTestFailure, StoreFailureConvertible {
        case generic(StoreKit.StoreKitError)
        var storeFailure: StoreFailure { .storeKit(self.error.storeCode) }
        private var error: StoreKit.StoreKitError { switch self { case .generic(let e): e } }
    }

    public enum Purchase: SKTestFailure, StoreFailureConvertible {
        case generic(StoreKit.StoreKitError)
        case purchase(StoreKit.Product.PurchaseError)
        var storeFailure: StoreFailure {
            switch self {
            case .generic(let e): .storeKit(e.storeCode)
            case .purchase(let e): .purchase(StoreCore.PurchaseError(rawValue: e.rawValue) ?? .productUnavailable)
            }
        }
    }

    public enum Verification: SKTestFailure, StoreFailureConvertible {
        case verification(VerificationResult<Any>.VerificationError)
        var storeFailure: StoreFailure {
            switch self { case .verification(let e): .verification(StoreCore.VerificationError(rawValue: e.rawValue) ?? .invalidSignature) }
        }
    }

    public enum RefundRequest: SKTestFailure, StoreFailureConvertible {
        case generic(StoreKit.StoreKitError)
        case refundRequest(StoreKit.Transaction.RefundRequestError)
        var storeFailure: StoreFailure {
            switch self {
            case .generic(let e): .storeKit(e.storeCode)
            case .refundRequest(let e): .refund(StoreCore.RefundRequestError(rawValue: e.rawValue) ?? .failed)
            }
        }
    }

    public enum AppStoreSync: SKTestFailure, StoreFailureConvertible { case generic(StoreKit.StoreKitError); var storeFailure: StoreFailure { SKTestFailures.genericFailure(self) } }
    public enum SubscriptionStatus: SKTestFailure, StoreFailureConvertible { case generic(StoreKit.StoreKitError); var storeFailure: StoreFailure { SKTestFailures.genericFailure(self) } }
    public enum AppTransaction: SKTestFailure, StoreFailureConvertible { case generic(StoreKit.StoreKitError); var storeFailure: StoreFailure { SKTestFailures.genericFailure(self) } }
    public enum ManageSubscriptions: SKTestFailure, StoreFailureConvertible { case generic(StoreKit.StoreKitError); var storeFailure: StoreFailure { SKTestFailures.genericFailure(self) } }
    public enum OfferCodeRedeem: SKTestFailure, StoreFailureConvertible { case generic(StoreKit.StoreKitError); var storeFailure: StoreFailure { SKTestFailures.genericFailure(self) } }

    /// A one-case failure's `.generic` error, through its mirror (the five enums differ only in name).
    static func genericFailure(_ failure: some SKTestFailure) -> StoreFailure {
        let error = Mirror(reflecting: failure).children.first?.value as? StoreKit.StoreKitError ?? .unknown
        return .storeKit(error.storeCode)
    }
}

public struct StoreKitLoadProductsAPI: FailableStoreKitAPI, StoreAPINaming {
    public typealias Failure = SKTestFailures.LoadProducts
    static let storeAPI = StoreAPI.loadProducts
}
public struct StoreKitPurchaseAPI: FailableStoreKitAPI, StoreAPINaming {
    public typealias Failure = SKTestFailures.Purchase
    static let storeAPI = StoreAPI.purchase
}
public struct StoreKitVerificationAPI: FailableStoreKitAPI, StoreAPINaming {
    public typealias Failure = SKTestFailures.Verification
    static let storeAPI = StoreAPI.verification
}
public struct StoreKitAppStoreSyncAPI: FailableStoreKitAPI, StoreAPINaming {
    public typealias Failure = SKTestFailures.AppStoreSync
    static let storeAPI = StoreAPI.appStoreSync
}
public struct StoreKitSubscriptionStatusAPI: FailableStoreKitAPI, StoreAPINaming {
    public typealias Failure = SKTestFailures.SubscriptionStatus
    static let storeAPI = StoreAPI.subscriptionStatus
}
public struct StoreKitAppTransactionAPI: FailableStoreKitAPI, StoreAPINaming {
    public typealias Failure = SKTestFailures.AppTransaction
    static let storeAPI = StoreAPI.appTransaction
}
public struct StoreKitManageSubscriptionsAPI: FailableStoreKitAPI, StoreAPINaming {
    public typealias Failure = SKTestFailures.ManageSubscriptions
    static let storeAPI = StoreAPI.manageSubscriptions
}
public struct StoreKitRefundRequestAPI: FailableStoreKitAPI, StoreAPINaming {
    public typealias Failure = SKTestFailures.RefundRequest
    static let storeAPI = StoreAPI.refundRequest
}
public struct StoreKitOfferCodeRedeemAPI: FailableStoreKitAPI, StoreAPINaming {
    public typealias Failure = SKTestFailures.OfferCodeRedeem
    static let storeAPI = StoreAPI.offerCodeRedeem
}

extension FailableStoreKitAPI where Self == StoreKitLoadProductsAPI { public static var loadProducts: Self { .init() } }
extension FailableStoreKitAPI where Self == StoreKitPurchaseAPI { public static var purchase: Self { .init() } }
extension FailableStoreKitAPI where Self == StoreKitVerificationAPI { public static var verification: Self { .init() } }
extension FailableStoreKitAPI where Self == StoreKitAppStoreSyncAPI { public static var appStoreSync: Self { .init() } }
extension FailableStoreKitAPI where Self == StoreKitSubscriptionStatusAPI { public static var subscriptionStatus: Self { .init() } }
extension FailableStoreKitAPI where Self == StoreKitAppTransactionAPI { public static var appTransaction: Self { .init() } }
extension FailableStoreKitAPI where Self == StoreKitManageSubscriptionsAPI { public static var manageSubscriptions: Self { .init() } }
extension FailableStoreKitAPI where Self == StoreKitRefundRequestAPI { public static var refundRequest: Self { .init() } }
extension FailableStoreKitAPI where Self == StoreKitOfferCodeRedeemAPI { public static var offerCodeRedeem: Self { .init() } }

extension SKTestSession {
    /// Makes an API fail with `error` until it is set to nil.
    public func setSimulatedError<API: FailableStoreKitAPI>(_ error: API.Failure?, forAPI api: API) async throws {
        guard let api = (API.self as? any StoreAPINaming.Type)?.storeAPI else { throw SKTestError(.invalidAction, "\(API.self) cannot fail here") }
        let failure = (error as? any StoreFailureConvertible)?.storeFailure
        await store.update { $0.failures[api] = failure }
    }

    /// The error an API is set to fail with, if any.
    public func simulatedError<API: FailableStoreKitAPI>(forAPI api: API) async -> API.Failure? {
        guard let naming = API.self as? any StoreAPINaming.Type, let failure = await store.settings().failures[naming.storeAPI] else { return nil }
        return Self.testFailure(failure) as? API.Failure
    }

    /// The StoreKitTest failure for one the store holds.
    private static func testFailure(_ failure: StoreFailure) -> any SKTestFailure {
        switch failure {
        case .purchase(let e): SKTestFailures.Purchase.purchase(StoreKit.Product.PurchaseError(rawValue: e.rawValue)!)
        case .verification(let e): SKTestFailures.Verification.verification(.init(rawValue: e.rawValue)!)
        case .refund(let e): SKTestFailures.RefundRequest.refundRequest(StoreKit.Transaction.RefundRequestError(rawValue: e.rawValue)!)
        case .storeKit(let e): SKTestFailures.LoadProducts.generic(StoreKit.StoreKitError(e))
        case .offerCode: SKTestFailures.OfferCodeRedeem.generic(.unknown)
        }
    }
}

