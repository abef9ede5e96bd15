import Foundation

/// StoreKit testing settings a catalog may set by default (as a `.storekit` file's `settings`),
/// and that the QA panel and scenarios change at run time.
public struct TestSettings: Hashable, Sendable {
    public var storefront: String?
    public var locale: String?
    public var timeRate: TimeRate = .realTime
    public var askToBuy = false
    /// Purchases need a "resolve" step before completing (Xcode's interrupted purchases).
    public var interruptedPurchases = false
    /// Renewals fail and enter billing retry.
    public var billingRetryOnRenewal = false
    public var gracePeriod = false
    /// Signed data fails verification, to test the unverified path.
    public var invalidSignatures = false
    /// Refund requests from the app are approved at once (Xcode's behaviour) instead of waiting for the tester.
    public var autoApproveRefunds = false
    /// Seconds a purchase stays "in flight", to show a realistic spinner.
    public var networkDelay: Double = 0
    /// Errors injected per API, as `SKTestSession.setSimulatedError(_:forAPI:)`.
    public var failures: [StoreAPI: StoreFailure] = [:]
    /// What signed data names as its environment.
    public var environment = StoreEnvironment.standard

    public init() {}
}
