import Foundation

// StoreKit's system sheets (the payment sheet, refund request, manage subscriptions, App Store messages) appear
// over a scene on Apple's platforms. Linux has no UIKit: `UIScene` and `UIWindowScene` are stand-ins with UIKit's
// names, so `Transaction.beginRefundRequest(for:in:)` and the rest keep Apple's shapes. Nothing is drawn: the
// scene's customer answers each sheet (a test's scripted answers, or the storefront's own sheet a person answers).
#if !canImport(UIKit)
/// UIKit's `UIScene`, on Linux: where StoreKit's sheets appear, and the customer who answers them.
// @unchecked: the one stored property is a `let` of a Sendable type; the class is open only to mirror
// UIKit's `UIWindowScene: UIScene`, and the subclass adds no state.
open class UIScene: @unchecked Sendable {
    let customer: nonisolated(nonsending) @Sendable (StoreSheet) async -> StoreSheet.Answer

    /// A scene whose customer answers each sheet with `customer` (which may wait: for a person, say).
    public init(customer: nonisolated(nonsending) @escaping @Sendable (StoreSheet) async -> StoreSheet.Answer) { self.customer = customer }

    /// A scene whose customer gives every sheet the same answer: by default they confirm (buy, submit,
    /// act on a message), as with `SKTestSession.disableDialogs`.
    public convenience init(answering answer: StoreSheet.Answer = .confirm) { self.init { _ in answer } }
}

/// UIKit's `UIWindowScene`, on Linux (see `UIScene`).
public final class UIWindowScene: UIScene, @unchecked Sendable {}
#endif

/// A system sheet StoreKit shows over a scene.
public enum StoreSheet: Sendable {
    /// The payment sheet of `purchase(confirmIn:options:)`.
    case payment(Product)
    /// `Transaction.beginRefundRequest`: the customer picks a reason and submits, or cancels.
    case refundRequest(transactionID: UInt64)
    /// `AppStore.showManageSubscriptions`: all the customer's subscriptions, or one group's.
    case manageSubscriptions(subscriptionGroupID: String?)
    /// `Message.display(in:)`: a price increase to agree to, a billing issue, a win-back offer.
    case message(Message)
    /// `AppStore.presentOfferCodeRedeemSheet(in:)`: the customer types an offer code, or closes the sheet.
    case offerCodeRedemption
    /// `AppStore.requestReview(in:)`: the rating prompt; whatever the customer answers, the app hears nothing.
    case reviewRequest

    /// What the customer does at a sheet.
    public enum Answer: Sendable, Equatable {
        /// Buys, submits the refund request (reason "Other"), acts on the message (agrees, updates the
        /// payment method, takes the offer); closes the manage-subscriptions sheet as it is.
        case confirm
        /// Cancels the payment or refund sheet, taps Not Now on a message, closes the manage-subscriptions sheet.
        case cancel
        /// Submits the refund request with one of the sheet's reasons ("I didn't receive it", …).
        case requestRefund(reason: String)
        /// In the manage-subscriptions sheet: cancels the group's subscription (it runs to the end of its period).
        case cancelSubscription(groupID: String)
        /// In the manage-subscriptions sheet: turns the group's auto-renew back on.
        case resumeSubscription(groupID: String)
        /// In the manage-subscriptions sheet: switches to another plan of the same group.
        case switchSubscription(toProductID: String)
        /// In the offer code redemption sheet: redeems this code (the sheet says itself why one is refused).
        case redeem(code: String)
    }
}
