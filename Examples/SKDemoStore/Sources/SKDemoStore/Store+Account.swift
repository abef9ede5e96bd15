// The account screen's actions, as a team writes them for iOS: refunds, managing subscriptions, and App Store
// messages the app holds back until a calm moment. (None of these calls exists on macOS: iOS and Linux only.)
#if !os(macOS)
import Foundation
import StoreKit

extension Store {
    /// "Request a Refund" for a product: the sheet for its latest transaction; nil when there is none.
    public func requestRefund(for product: Product, in scene: UIWindowScene) async throws -> Transaction.RefundRequestStatus? {
        guard case .verified(let transaction)? = await product.latestTransaction else { return nil }
        return try await transaction.beginRefundRequest(in: scene)
    }

    /// "Manage Subscriptions": the App Store's sheet, then what the customer now owns.
    public func manageSubscriptions(in scene: UIWindowScene) async throws {
        try await AppStore.showManageSubscriptions(in: scene)
        await updateCustomerProductStatus()
    }

    /// Keeps the App Store's messages instead of letting them interrupt; `showPendingMessages(in:)` shows them.
    public func listenForMessages() -> Task<Void, Never> {
        Task { [weak self] in
            for await message in Message.messages { self?.pendingMessages.append(message) }
        }
    }

    /// Shows the messages held back (after a purchase flow ends, say).
    public func showPendingMessages(in scene: UIWindowScene) throws {
        for message in pendingMessages { try message.display(in: scene) }
        pendingMessages = []
    }

    /// Keeps the group's status current as the subscription renews, lapses or is changed outside the app.
    public func listenForStatusUpdates() -> Task<Void, Never> {
        Task { [weak self] in
            for await _ in Product.SubscriptionInfo.Status.updates { await self?.updateCustomerProductStatus() }
        }
    }
}
#endif
