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
protocol StoreAPINaming { var storeAPI: StoreAPI { get } }
extension StoreKitFailableAPI: StoreAPINaming {}

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

/// One failable API: which of the store's APIs it names, and the failures it takes.
public struct StoreKitFailableAPI<Failure: SKTestFailure>: FailableStoreKitAPI {
    let storeAPI: StoreAPI
}

public typealias StoreKitLoadProductsAPI = StoreKitFailableAPI<SKTestFailures.LoadProducts>
public typealias StoreKitPurchaseAPI = StoreKitFailableAPI<SKTestFailures.Purchase>
public typealias StoreKitVerificationAPI = StoreKitFailableAPI<SKTestFailures.Verification>
public typealias StoreKitAppStoreSyncAPI = StoreKitFailableAPI<SKTestFailures.AppStoreSync>
public typealias StoreKitSubscriptionStatusAPI = StoreKitFailableAPI<SKTestFailures.SubscriptionStatus>
public typealias StoreKitAppTransactionAPI = StoreKitFailableAPI<SKTestFailures.AppTransaction>
public typealias StoreKitManageSubscriptionsAPI = StoreKitFailableAPI<SKTestFailures.ManageSubscriptions>
public typealias StoreKitRefundRequestAPI = StoreKitFailableAPI<SKTestFailures.RefundRequest>
public typealias StoreKitOfferCodeRedeemAPI = StoreKitFailableAPI<SKTestFailures.OfferCodeRedeem>

extension FailableStoreKitAPI where Self == StoreKitLoadProductsAPI { public static var loadProducts: Self { .init(storeAPI: .loadProducts) } }
extension FailableStoreKitAPI where Self == StoreKitPurchaseAPI { public static var purchase: Self { .init(storeAPI: .purchase) } }
extension FailableStoreKitAPI where Self == StoreKitVerificationAPI { public static var verification: Self { .init(storeAPI: .verification) } }
extension FailableStoreKitAPI where Self == StoreKitAppStoreSyncAPI { public static var appStoreSync: Self { .init(storeAPI: .appStoreSync) } }
extension FailableStoreKitAPI where Self == StoreKitSubscriptionStatusAPI { public static var subscriptionStatus: Self { .init(storeAPI: .subscriptionStatus) } }
extension FailableStoreKitAPI where Self == StoreKitAppTransactionAPI { public static var appTransaction: Self { .init(storeAPI: .appTransaction) } }
extension FailableStoreKitAPI where Self == StoreKitManageSubscriptionsAPI { public static var manageSubscriptions: Self { .init(storeAPI: .manageSubscriptions) } }
extension FailableStoreKitAPI where Self == StoreKitRefundRequestAPI { public static var refundRequest: Self { .init(storeAPI: .refundRequest) } }
extension FailableStoreKitAPI where Self == StoreKitOfferCodeRedeemAPI { public static var offerCodeRedeem: Self { .init(storeAPI: .offerCodeRedeem) } }

extension SKTestSession {
    /// Makes an API fail with `error` until it is set to nil.
    public func setSimulatedError<API: FailableStoreKitAPI>(_ error: API.Failure?, forAPI api: API) async throws {
        guard let api = (api as? any StoreAPINaming)?.storeAPI else { throw SKTestError(.invalidAction, "\(API.self) cannot fail here") }
        let failure = (error as? any StoreFailureConvertible)?.storeFailure
        await store.update { $0.failures[api] = failure }
    }

    /// The error an API is set to fail with, if any.
    public func simulatedError<API: FailableStoreKitAPI>(forAPI api: API) async -> API.Failure? {
        guard let api = (api as? any StoreAPINaming)?.storeAPI, let failure = await store.settings().failures[api] else { return nil }
        return Self.testFailure(failure, api: api) as? API.Failure
    }

    /// The StoreKitTest failure for one the store holds for an API.
    private static func testFailure(_ failure: StoreFailure, api: StoreAPI) -> any SKTestFailure {
        let generic = if case .storeKit(let code) = failure { StoreKit.StoreKitError(code) } else { StoreKit.StoreKitError.unknown }
        switch (failure, api) {
        case (.purchase(let e), _): return SKTestFailures.Purchase.purchase(StoreKit.Product.PurchaseError(rawValue: e.rawValue)!)
        case (.verification(let e), _): return SKTestFailures.Verification.verification(.init(rawValue: e.rawValue)!)
        case (.refund(let e), _): return SKTestFailures.RefundRequest.refundRequest(StoreKit.Transaction.RefundRequestError(rawValue: e.rawValue)!)
        case (_, .loadProducts): return SKTestFailures.LoadProducts.generic(generic)
        case (_, .purchase): return SKTestFailures.Purchase.generic(generic)
        case (_, .appStoreSync): return SKTestFailures.AppStoreSync.generic(generic)
        case (_, .subscriptionStatus): return SKTestFailures.SubscriptionStatus.generic(generic)
        case (_, .appTransaction): return SKTestFailures.AppTransaction.generic(generic)
        case (_, .manageSubscriptions): return SKTestFailures.ManageSubscriptions.generic(generic)
        case (_, .refundRequest): return SKTestFailures.RefundRequest.generic(generic)
        case (_, .offerCodeRedeem), (_, .verification): return SKTestFailures.OfferCodeRedeem.generic(generic)
        }
    }
}
