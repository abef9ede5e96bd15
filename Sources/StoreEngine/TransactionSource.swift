import Foundation
import StoreCore

/// Apple's part of StoreKit: the App Store and StoreKit's daemon. A source hands out *signed*
/// transactions (compact JWS); it never decides what the app unlocks (that is `StoreManager`'s job).
public protocol TransactionSource: Sendable {
    /// The catalog the source sells from, and where the customer is.
    func storefront() async -> Storefront
    func locale() async -> String
    /// The store's clock (runs fast under a time rate).
    func now() async -> Date

    /// `Product.products(for:)`: products sold in the current storefront; unknown IDs are left out.
    func products(for ids: [String]?) async throws -> [Product]
    /// `product.purchase(options:)`; `answer` is what the customer did at the payment sheet.
    func purchase(_ productID: String, options: PurchaseOptions, answer: PaymentSheetAnswer) async throws -> PurchaseOutcome
    /// `Transaction.updates`: every unfinished transaction first, then live updates (renewals,
    /// approvals, other devices' purchases, redemptions, refunds).
    func updates() async -> AsyncStream<String>
    /// `Transaction.currentEntitlements`, signed.
    func currentEntitlements() async -> [String]
    /// `Transaction.all`, newest first; `limit` bounds how many (a long history is never loaded whole).
    func allTransactions(limit: Int?) async -> [String]
    /// How many transactions `Transaction.all` holds.
    func transactionCount() async -> Int
    /// `Transaction.unfinished`.
    func unfinishedTransactions() async -> [String]
    /// How many `unfinishedTransactions()` gives, without handing them out (a refresh counts them).
    func unfinishedCount() async -> Int
    func finish(transactionID: Int64) async
    /// Several at once, as one write where the source can (a launch finishing a burst of redelivered renewals).
    func finish(transactionIDs: [Int64]) async
    /// `AppStore.sync()`.
    func sync() async throws
    /// `Product.SubscriptionInfo.status(for:)`.
    func subscriptionStatuses(groupID: String) async throws -> [SignedSubscriptionStatus]
    /// `Product.SubscriptionInfo.isEligibleForIntroOffer(for:)`.
    func isEligibleForIntroOffer(groupID: String) async -> Bool
    /// Every group's statuses in one call, as an app's refresh asks for all of them (one call per
    /// group was most of a refresh with a thousand groups). Throws as `subscriptionStatuses(groupID:)` does.
    func subscriptionStatuses(groupIDs: [String]) async throws -> [String: [SignedSubscriptionStatus]]
    /// Every group's intro-offer eligibility in one call.
    func introOfferEligibility(groupIDs: [String]) async -> [String: Bool]
    /// The redeem sheet: a successful redemption is delivered through `updates()`.
    func redeem(offerCode: String) async throws
    /// `Transaction.beginRefundRequest(for:)`.
    func requestRefund(transactionID: Int64, reason: String) async throws -> RefundRequestOutcome
    /// `AppTransaction.shared`, signed.
    func appTransaction() async throws -> String
    /// What the customer does in `AppStore.showManageSubscriptions(in:)`.
    func manageSubscription(groupID: String, _ action: ManageSubscriptionAction) async throws
    /// What is wrong with the source's own records when reading them failed (a damaged ledger
    /// row), so the app can say so instead of showing less than was bought; nil when nothing is.
    func damage() async -> String?
    /// Where the source's records stand now; nil when it cannot say (then every refresh reads everything).
    func changeStamp() async -> ChangeStamp?
    /// What changed since `stamp`, when the source can describe all of it; nil when it cannot (read everything).
    func changes(since stamp: ChangeStamp) async -> SourceChanges?
    /// Purchases the customer began on the App Store since the last call, each handed out once (`PurchaseIntent`).
    func takePurchaseIntents() async -> [PurchaseIntentRequest]
    /// Puts back intents taken that the app could not hand out yet (their products could not be read), first in line.
    func returnPurchaseIntents(_ intents: [PurchaseIntentRequest]) async
    /// The app's order and visibility for its promoted products (`Product.PromotionInfo`); empty while it set none.
    func promotionOrder() async throws -> [PromotionOverride]
    func setPromotionOrder(_ order: [PromotionOverride]) async throws
    func setPromotionVisibility(_ visibility: PromotionOverride.Visibility, for productID: String) async throws
}

/// Where a source's records stand: while the stamp is the same, so is everything they say. Opaque to the app.
public struct ChangeStamp: Sendable, Equatable {
    /// Other connections' commits (`LedgerDatabase.dataVersion`), and this one's writes (`ownChanges`).
    let version: Int64
    let written: Int64
}

/// Everything that changed since a stamp, as an app's snapshot sees it: the records changed only by
/// the new transactions listed, and the values that are cheap to read whole, read now.
public struct SourceChanges: Sendable, Equatable {
    public var stamp: ChangeStamp
    /// New completed transactions, signed, oldest first: each the newest of `Transaction.all`, none
    /// an auto-renewable subscription (whose statuses would change too), and nothing else changed.
    public var transactions: [String]
    public var now: Date
    public var transactionCount: Int
    public var unfinishedCount: Int
    public var storefront: Storefront
    public var locale: String
    public var damage: String?
}

/// An action in the manage-subscriptions sheet.
public enum ManageSubscriptionAction: Sendable, Equatable {
    /// Turn auto-renew off: the subscription runs to the end of its period.
    case cancel
    /// Turn auto-renew back on.
    case reenable
    /// Switch plans: an upgrade takes effect now, a downgrade or crossgrade to another period at the next renewal.
    case switchTo(productID: String)
}

extension TransactionSource {
    public func allTransactions() async -> [String] { await allTransactions(limit: nil) }

    public func changeStamp() async -> ChangeStamp? { nil }
    public func changes(since stamp: ChangeStamp) async -> SourceChanges? { nil }

    public func finish(transactionIDs: [Int64]) async {
        for id in transactionIDs { await finish(transactionID: id) }
    }

    public func subscriptionStatuses(groupIDs: [String]) async throws -> [String: [SignedSubscriptionStatus]] {
        var statuses: [String: [SignedSubscriptionStatus]] = [:]
        for group in groupIDs { statuses[group] = try await subscriptionStatuses(groupID: group) }
        return statuses
    }

    public func introOfferEligibility(groupIDs: [String]) async -> [String: Bool] {
        var eligibility: [String: Bool] = [:]
        for group in groupIDs { eligibility[group] = await isEligibleForIntroOffer(groupID: group) }
        return eligibility
    }
}

extension StoreTestControls {
    /// A refund for a reason other than an issue with the app (`revocationReason` 0), as Xcode's refunds are.
    public func refund(transactionID: Int64, prorated: Bool) async throws {
        try await refund(transactionID: transactionID, prorated: prorated, reason: .other)
    }
}

extension StoreTestControls {
    public func ledgerEntries() async -> [LedgerEntry] { await ledgerEntries(limit: nil) }

    public func buyOutsideApp(productID: String, familyShared: Bool) async throws {
        _ = try await buyOutsideApp(productID: productID, familyShared: familyShared, options: PurchaseOptions())
    }
}

/// What the customer did at the payment sheet.
public enum PaymentSheetAnswer: Sendable, Equatable { case confirm, cancel }

/// `Product.PurchaseOption`s.
public struct PurchaseOptions: Sendable, Equatable {
    public var quantity = 1
    public var appAccountToken: UUID?
    /// `.promotionalOffer(offerID:signature:)`: the offer and its signed JWS (nil = missing).
    public var promotionalOffer: (id: String, signature: String?)?
    public var winBackOfferID: String?
    public var simulatesAskToBuy = false
    /// `.billingPlanType(_:)`: how a subscription with billing plans is paid; up front unless chosen, as in StoreKit.
    public var billingPlan: BillingPlanType = .upFront
    /// `.introductoryOfferEligibility(compactJWS:)`: the team's server's word on the introductory offer.
    public var introductoryOfferEligibility: String?
    /// `.purchaseDate(_:renewalBehavior:)`, a test environment's: the purchase as made then (now or in the past).
    public var purchaseDate: Date?
    /// With `purchaseDate`: false, a subscription bought so has auto-renew off at once, one period only
    /// (`.cancelImmediately`); true, it renews from then until now (`.renewUntilNow`).
    public var renewsAfterFirstPeriod = true
    /// StoreKitTest's `codeOffer(referenceName:)`, for a test session's `buyProduct`: the purchase redeems that offer code.
    public var codeOfferReferenceName: String?
    /// StoreKitTest's `promotionalOffer(id:)`, for a test session's `buyProduct`: the promotional offer, no signature asked.
    public var unsignedPromotionalOfferID: String?

    public init(quantity: Int = 1, appAccountToken: UUID? = nil, promotionalOffer: (id: String, signature: String?)? = nil,
                winBackOfferID: String? = nil, simulatesAskToBuy: Bool = false, billingPlan: BillingPlanType = .upFront) {
        self.billingPlan = billingPlan
        self.quantity = quantity
        self.appAccountToken = appAccountToken
        self.promotionalOffer = promotionalOffer
        self.winBackOfferID = winBackOfferID
        self.simulatesAskToBuy = simulatesAskToBuy
    }

    public static func == (a: PurchaseOptions, b: PurchaseOptions) -> Bool {
        a.quantity == b.quantity && a.appAccountToken == b.appAccountToken && a.promotionalOffer?.id == b.promotionalOffer?.id
            && a.promotionalOffer?.signature == b.promotionalOffer?.signature && a.winBackOfferID == b.winBackOfferID
            && a.simulatesAskToBuy == b.simulatesAskToBuy && a.billingPlan == b.billingPlan
            && a.introductoryOfferEligibility == b.introductoryOfferEligibility && a.purchaseDate == b.purchaseDate
            && a.renewsAfterFirstPeriod == b.renewsAfterFirstPeriod && a.codeOfferReferenceName == b.codeOfferReferenceName
            && a.unsignedPromotionalOfferID == b.unsignedPromotionalOfferID
    }
}

/// `Product.PurchaseResult`, with the transaction still signed.
public enum PurchaseOutcome: Sendable, Equatable {
    case success(jws: String)
    case userCancelled
    case pending(PendingReason)
}

public enum PendingReason: String, Sendable, Equatable {
    /// Ask to Buy: waits for a parent's approval.
    case askToBuy
    /// Interrupted purchase: waits for the customer to resolve an issue (e.g. accept terms).
    case interrupted
}

public enum RefundRequestOutcome: Sendable, Equatable { case success, userCancelled }

/// One `Product.SubscriptionInfo.Status`, signed.
public struct SignedSubscriptionStatus: Sendable, Equatable {
    public var state: SubscriptionState
    public var transaction: String
    public var renewalInfo: String

    public init(state: SubscriptionState, transaction: String, renewalInfo: String) {
        self.state = state
        self.transaction = transaction
        self.renewalInfo = renewalInfo
    }
}

/// What Xcode's Transaction Manager and `SKTestSession` do: the QA panel and scenarios drive a
/// source through this, never through its internals.
public protocol StoreTestControls: Sendable {
    func settings() async -> TestSettings
    func update(_ change: @Sendable (inout TestSettings) -> Void) async
    func setStorefront(_ code: String, locale: String?) async throws
    /// Every transaction the ledger holds, with what the tester needs to see (pending, declined…).
    func ledgerEntries(limit: Int?) async -> [LedgerEntry]

    func approveAskToBuy(transactionID: Int64) async throws
    func declineAskToBuy(transactionID: Int64) async throws
    func resolveInterruptedPurchase(transactionID: Int64) async throws
    /// `reason`: the transaction's `revocationReason` (an issue with the app, or another).
    func refund(transactionID: Int64, prorated: Bool, reason: TransactionPayload.RevocationReason) async throws
    func revokeFamilySharing(transactionID: Int64) async throws
    func decideRefundRequest(transactionID: Int64, approve: Bool) async throws
    /// Reverses a refund: the transaction is no longer revoked (REFUND_REVERSED).
    func reverseRefund(transactionID: Int64) async throws
    /// The newest App Store Server Notifications, newest first.
    func recentNotifications(limit: Int) async -> [StoreNotification]
    /// Sends a notification again now, whatever became of it.
    func resendNotification(sequence: Int64) async throws
    func deleteTransaction(_ transactionID: Int64) async throws
    func clearTransactions() async throws
    /// `SKTestSession.buyProduct`: a purchase made outside the app (another device, the App Store), with
    /// the options a test passes (quantity, app account token, purchase date). Returns the purchase, signed
    /// (not a renewal a purchase date in the past brought after it); nil when the store signs it later.
    @discardableResult
    func buyOutsideApp(productID: String, familyShared: Bool, options: PurchaseOptions) async throws -> String?
    /// The customer taps the product's promotion on the App Store (with one of its promotional or
    /// win-back offers): the app receives a `PurchaseIntent`.
    func sendPurchaseIntent(productID: String, offerID: String?) async throws
    /// Issues a valid promotional offer signature (the developer's server's job).
    func signPromotionalOffer(productID: String, offerID: String) async throws -> String
    /// What the cancel sheet offers before a cancel (Retention Messaging); `ask` posts the signed realtime request.
    func retentionOffer(group: String, ask: @Sendable (_ url: String, _ signedPayload: String) async -> JSONValue?) async -> RetentionOffer?
    /// Registers one of the team's In-App Purchase keys, whose signatures the store then accepts.
    @discardableResult
    func registerInAppPurchaseKey(keyID: String, privateKeyPEM: String, issuerID: String?) async throws -> InAppPurchaseKey

    /// Throws past `SupportedDates.latest`.
    func advanceTime(by period: Period) async throws
    /// The clock moves on by exactly `seconds`, uncompressed by the time rate (a recorded session's passing time).
    func advanceClock(by seconds: TimeInterval) async throws
    func setTimeRate(_ rate: TimeRate) async
    func expireSubscription(productID: String) async throws
    func forceRenewal(productID: String) async throws
    func setAutoRenew(productID: String, enabled: Bool) async throws
    func requestPriceIncrease(productID: String) async throws
    func respondToPriceIncrease(productID: String, agree: Bool) async throws
    func resolveBillingIssue(productID: String) async throws
    /// Sets what `AppTransaction` reports of the customer's first download (business-model migrations).
    func setOriginalApp(version: String?, purchaseDate: Date?, platform: String?) async throws
    func reset() async throws
}

/// One ledger row as the tester sees it.
public struct LedgerEntry: Sendable, Equatable, Identifiable {
    public enum Status: String, Sendable {
        case completed, pendingApproval, declined, interrupted
    }
    public var id: Int64 { payload.transactionID }
    public var payload: TransactionPayload
    public var status: Status
    public var isFinished: Bool
    public var refundRequest: RefundRequestStatus?
    /// The signed form handed to the app (nil while pending).
    public var jws: String?
    /// For a transaction an upgrade replaced: the refund of its unused time, in milliunits.
    public var upgradeRefundMilliunits: Int64?
    /// What the developer's backend said of it through Send Consumption Information, as sent.
    public var consumption: JSONValue?

    public init(payload: TransactionPayload, status: Status, isFinished: Bool, refundRequest: RefundRequestStatus? = nil, jws: String?,
                upgradeRefundMilliunits: Int64? = nil, consumption: JSONValue? = nil) {
        self.consumption = consumption
        self.payload = payload
        self.status = status
        self.isFinished = isFinished
        self.refundRequest = refundRequest
        self.jws = jws
        self.upgradeRefundMilliunits = upgradeRefundMilliunits
    }

    /// The upgrade's refund in the transaction's currency.
    public var upgradeRefund: Decimal? { upgradeRefundMilliunits.map { Decimal($0) / 1000 } }
}

public enum RefundRequestStatus: String, Sendable { case pending, approved, declined }

public struct TestControlError: Error, Equatable, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
