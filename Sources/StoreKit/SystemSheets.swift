import Foundation
import StoreCore
import StoreEngine

// The calls that show one of the App Store's own sheets over the app: their shapes are Apple's; the scene's
// customer answers the sheet (see `UIScene`), and the store does what the customer chose.

extension Transaction {
    /// Shows the refund request sheet for a transaction. `.success` means the App Store received the
    /// request (its decision arrives later, as a revocation through `Transaction.updates`); a second
    /// request for the same purchase throws `RefundRequestError.duplicateRequest`.
    public static func beginRefundRequest(for transactionID: UInt64, in scene: UIWindowScene) async throws -> RefundRequestStatus {
        guard let connection = StoreKitRuntime.current else { throw RefundRequestError.failed }
        return try await refundRequest(transactionID, on: connection, in: scene)
    }

    /// Shows the refund request sheet for this transaction.
    public func beginRefundRequest(in scene: UIWindowScene) async throws -> RefundRequestStatus {
        try await Self.refundRequest(id, on: store, in: scene)
    }

    private static func refundRequest(_ id: UInt64, on connection: StoreConnection, in scene: UIScene) async throws -> RefundRequestStatus {
        let reason: String
        switch await scene.customer(.refundRequest(transactionID: id)) {
        case .cancel: return .userCancelled
        case .requestRefund(let chosen): reason = chosen
        default: reason = "Other"
        }
        let outcome = try await connection.call { try await $0.requestRefund(transactionID: Int64(id), reason: reason) }
        return outcome == .success ? .success : .userCancelled
    }
}

extension AppStore {
    /// Shows the sheet where the customer manages all their subscriptions; returns when they close it.
    /// What they change there (cancel, resume, switch plans) reaches the app through `Transaction.updates`
    /// and `Product.SubscriptionInfo.Status.updates`.
    public static func showManageSubscriptions(in scene: UIWindowScene) async throws {
        try await manageSubscriptions(groupID: nil, in: scene)
    }

    /// Shows the manage-subscriptions sheet for one subscription group.
    public static func showManageSubscriptions(in scene: UIWindowScene, subscriptionGroupID: String) async throws {
        try await manageSubscriptions(groupID: subscriptionGroupID, in: scene)
    }

    /// Shows the sheet where the customer redeems an offer code; returns when they close it. What a code
    /// gives arrives through `Transaction.updates`, as a purchase made outside the app does. A code the
    /// store refuses (unknown, used up, expired, not for this customer) is the sheet's to say, not an error
    /// here, as on Apple's platforms; a redemption that fails (a simulated `offerCodeRedeem` failure) throws.
    public static func presentOfferCodeRedeemSheet(in scene: UIWindowScene) async throws {
        guard let connection = StoreKitRuntime.current else { throw StoreKitError.unknown }
        guard case .redeem(let code) = await scene.customer(.offerCodeRedemption) else { return }
        do {
            try await connection.source.redeem(offerCode: code)
        } catch StoreFailure.offerCode {
            return
        } catch {
            throw StoreConnection.storeKitError(error)
        }
    }

    /// Asks the customer to rate the app. As on Apple's platforms it returns at once and tells the app
    /// nothing; the prompt reaches the scene's customer beside the app (in the test environment, every time).
    @MainActor public static func requestReview(in scene: UIWindowScene) {
        Task { _ = await scene.customer(.reviewRequest) }
    }

    /// The device's identifier for checking a signature's `deviceVerification` itself: nil, as a local
    /// store binds no device (its transactions' `deviceVerification` is empty); StoreKit's own check of
    /// every signature stands, as Apple says it does.
    public static var deviceVerificationID: UUID? { nil }

    /// The app's age rating as the App Store codes it (the catalog app's `ageRatingCode`); nil when there is
    /// none to give. An app compares it with the last one it saw to notice that its rating changed.
    public static var ageRatingCode: Int? { get async { StoreKitRuntime.current?.ageRatingCode } }

    private static func manageSubscriptions(groupID: String?, in scene: UIScene) async throws {
        guard let connection = StoreKitRuntime.current else { throw StoreKitError.unknown }
        let choice: (group: String, action: ManageSubscriptionAction)
        switch await scene.customer(.manageSubscriptions(subscriptionGroupID: groupID)) {
        case .cancelSubscription(let group): choice = (group, .cancel)
        case .resumeSubscription(let group): choice = (group, .reenable)
        case .switchSubscription(let productID):
            let product = try await connection.call { try await $0.products(for: [productID]) }.first
            guard let group = product?.subscription?.groupID else { throw StoreKitError.notAvailableInStorefront }
            choice = (group, .switchTo(productID: productID))
        default: return  // closed as it was: dismissing the sheet is not an error
        }
        try await connection.call { try await $0.manageSubscription(groupID: choice.group, choice.action) }
    }
}
