import Foundation
import StoreCore
import StoreSigning

/// A transaction source whose purchase outcomes are queued by a test or scenario, kept in plain
/// memory with no ledger, clock or rules of its own: the proof that `StoreManager` depends only on
/// the `TransactionSource` contract. It still signs everything, so the app side verifies for real.
public actor ScriptedSource: TransactionSource, StoreTestControls {
    /// What the next purchase does, whatever the payment sheet says.
    public enum Outcome: Sendable, Equatable {
        case success
        case userCancelled
        case pending(PendingReason)
        case failure(StoreFailure)
    }

    public let catalog: Catalog
    public nonisolated let identity: StoreIdentity
    private var queue: [Outcome] = []
    private var entries: [LedgerEntry] = []
    private var subscribers: [UUID: AsyncStream<String>.Continuation] = [:]
    private var currentSettings: TestSettings
    private var currentStorefront: Storefront
    private var currentLocale: String
    private var clock: Date
    private var nextID: Int64 = 1

    public init(catalog: Catalog, now: Date = Date()) throws {
        self.catalog = catalog
        identity = try StoreIdentity.ephemeral()
        currentSettings = catalog.settings
        (currentStorefront, currentLocale) = catalog.place(storefront: nil, locale: nil, settings: catalog.settings) ?? (.usa, Storefront.usa.locale)
        clock = now
    }

    public nonisolated var certificate: Certificate { identity.certificate }

    /// Queues the outcome of the next purchase.
    public func enqueue(_ outcome: Outcome) { queue.append(outcome) }

    // MARK: TransactionSource

    public func storefront() -> Storefront { currentStorefront }
    public func locale() -> String { currentLocale }
    public func now() -> Date { clock }

    public func products(for ids: [String]?) throws -> [Product] {
        if let failure = currentSettings.failures[.loadProducts] { throw failure }
        return catalog.products(for: ids, storefront: currentStorefront.code, locale: currentLocale)
    }

    public func purchase(_ productID: String, options: PurchaseOptions, answer: PaymentSheetAnswer) throws -> PurchaseOutcome {
        guard let item = catalog.product(productID) else { throw StoreFailure.purchase(.productUnavailable) }
        let outcome = queue.isEmpty ? (answer == .confirm ? .success : .userCancelled) : queue.removeFirst()
        switch outcome {
        case .failure(let failure): throw failure
        case .userCancelled: return .userCancelled
        case .pending(let reason):
            entries.append(LedgerEntry(payload: try payload(item, quantity: options.quantity), status: reason == .askToBuy ? .pendingApproval : .interrupted,
                                       isFinished: false, jws: nil))
            return .pending(reason)
        case .success:
            return .success(jws: try add(item, quantity: options.quantity, notify: false))
        }
    }

    public func updates() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream<String>.makeStream()
        subscribers[UUID()] = continuation
        for entry in entries where entry.status == .completed && !entry.isFinished { continuation.yield(entry.jws!) }
        return stream
    }

    public func currentEntitlements() -> [String] {
        let entitled = entries.filter { e in
            e.status == .completed && !e.payload.isRevoked && e.payload.productType != .consumable
                && (e.payload.expirationDate.map { $0 > clock } ?? true) && !e.payload.isUpgraded
        }
        // A non-renewing subscription is entitled by its latest purchase only.
        let latestNonRenewing = Dictionary(entitled.filter { $0.payload.productType == .nonRenewing }.map { ($0.payload.productID, $0.id) },
                                           uniquingKeysWith: max)
        return entitled.filter { $0.payload.productType != .nonRenewing || latestNonRenewing[$0.payload.productID] == $0.id }.compactMap(\.jws)
    }

    public func allTransactions(limit: Int?) -> [String] {
        Array(entries.filter { $0.status == .completed }.reversed().compactMap(\.jws).prefix(limit ?? .max))
    }
    public func transactionCount() -> Int { entries.filter { $0.status == .completed }.count }
    public func unfinishedTransactions() -> [String] { entries.filter { $0.status == .completed && !$0.isFinished }.compactMap(\.jws) }
    public func unfinishedCount() -> Int { unfinishedTransactions().count }

    public func finish(transactionID: Int64) {
        if let i = entries.firstIndex(where: { $0.id == transactionID }) { entries[i].isFinished = true }
    }

    public func sync() throws {
        if let failure = currentSettings.failures[.appStoreSync] { throw failure }
    }

    public func subscriptionStatuses(groupID: String) throws -> [SignedSubscriptionStatus] {
        if let failure = currentSettings.failures[.subscriptionStatus] { throw failure }
        guard let latest = entries.last(where: { $0.status == .completed && $0.payload.subscriptionGroupID == groupID }) else { return [] }
        let p = latest.payload
        let state: SubscriptionState = p.isRevoked ? .revoked : (p.expirationDate.map { $0 > clock } ?? false) ? .subscribed : .expired
        let info = RenewalInfoPayload(originalTransactionID: p.originalTransactionID, productID: p.productID, autoRenewProductID: p.productID,
                                      willAutoRenew: state == .subscribed, renewalDate: p.expirationDate, currency: p.currency,
                                      signedDate: clock, appTransactionID: p.appTransactionID)
        return [SignedSubscriptionStatus(state: state, transaction: latest.jws!, renewalInfo: try sign(info.json))]
    }

    public func isEligibleForIntroOffer(groupID: String) -> Bool {
        !entries.contains { $0.payload.subscriptionGroupID == groupID }
    }

    public func redeem(offerCode: String) throws {
        if let failure = currentSettings.failures[.offerCodeRedeem] { throw failure }
        guard let code = catalog.offerCode(offerCode), let item = catalog.product(code.productID) else { throw StoreFailure.offerCode(.unknownCode) }
        _ = try add(item, quantity: 1, notify: true) { $0.offerType = .code; $0.offerPaymentMode = code.offer?.paymentMode ?? .oneTime }
    }

    public func requestRefund(transactionID: Int64, reason: String) throws -> RefundRequestOutcome {
        if let failure = currentSettings.failures[.refundRequest] { throw failure }
        guard let i = entries.firstIndex(where: { $0.id == transactionID }) else { throw StoreFailure.refund(.failed) }
        if entries[i].refundRequest == .pending { throw StoreFailure.refund(.duplicateRequest) }
        entries[i].refundRequest = .pending
        return .success
    }

    public func appTransaction() throws -> String {
        if let failure = currentSettings.failures[.appTransaction] { throw failure }
        return try sign(AppTransactionPayload(
            appTransactionID: "1", bundleID: catalog.app.bundleID, appVersion: catalog.app.appVersion,
            originalAppVersion: catalog.app.originalAppVersion, originalPurchaseDate: catalog.app.originalPurchaseDate ?? clock,
            originalPlatform: catalog.app.originalPlatform, deviceVerification: "", deviceVerificationNonce: UUID(), signedDate: clock).json)
    }

    public func manageSubscription(groupID: String, _ action: ManageSubscriptionAction) throws {
        throw unsupported("the manage-subscriptions sheet")
    }

    // MARK: Test controls

    public func setOriginalApp(version: String?, purchaseDate: Date?, platform: String?) throws {
        throw unsupported("the original app purchase")
    }

    public func settings() -> TestSettings { currentSettings }
    public func update(_ change: @Sendable (inout TestSettings) -> Void) { change(&currentSettings) }
    public func ledgerEntries(limit: Int?) -> [LedgerEntry] { Array(entries.reversed().prefix(limit ?? .max)) }

    public func setStorefront(_ code: String, locale: String?) throws {
        guard let sf = catalog.storefront(code) else { throw TestControlError("unknown storefront \(code)") }
        currentStorefront = sf
        currentLocale = locale ?? sf.locale
    }

    public func approveAskToBuy(transactionID: Int64) throws { try complete(transactionID, from: .pendingApproval) }
    public func resolveInterruptedPurchase(transactionID: Int64) throws { try complete(transactionID, from: .interrupted) }

    public func declineAskToBuy(transactionID: Int64) throws {
        guard let i = entries.firstIndex(where: { $0.id == transactionID && $0.status == .pendingApproval }) else {
            throw TestControlError("no pending transaction \(transactionID)")
        }
        entries[i].status = .declined
    }

    public func refund(transactionID: Int64, prorated: Bool, reason: TransactionPayload.RevocationReason) throws {
        try revoke(transactionID, type: prorated ? .refundProrated : .refundFull, reason: reason)
    }

    public func revokeFamilySharing(transactionID: Int64) throws { try revoke(transactionID, type: .familyRevoke) }

    public func decideRefundRequest(transactionID: Int64, approve: Bool) throws {
        guard let i = entries.firstIndex(where: { $0.id == transactionID && $0.refundRequest == .pending }) else {
            throw TestControlError("no pending refund request for \(transactionID)")
        }
        entries[i].refundRequest = approve ? .approved : .declined
        if approve { try revoke(transactionID, type: .refundFull) }
    }

    public func reverseRefund(transactionID: Int64) throws {
        guard let i = entries.firstIndex(where: { $0.id == transactionID && $0.payload.isRevoked && $0.payload.revocationType != .familyRevoke }) else {
            throw TestControlError("transaction \(transactionID) has no refund to reverse")
        }
        entries[i].payload.revocationDate = nil
        entries[i].payload.revocationReason = nil
        entries[i].payload.revocationType = nil
        entries[i].isFinished = false
        entries[i].jws = try sign(entries[i].payload.json)
        broadcast(entries[i].jws!)
    }

    /// A scripted source makes no server notifications.
    public func recentNotifications(limit: Int) -> [StoreNotification] { [] }

    public func resendNotification(sequence: Int64) throws {
        throw TestControlError("a scripted source sends no server notifications")
    }

    public func deleteTransaction(_ transactionID: Int64) { entries.removeAll { $0.id == transactionID } }
    public func clearTransactions() { entries.removeAll() }

    @discardableResult
    public func buyOutsideApp(productID: String, familyShared: Bool, options: PurchaseOptions) throws -> String? {
        guard let item = catalog.product(productID) else { throw TestControlError("unknown product \(productID)") }
        if options.purchaseDate != nil { throw unsupported("a purchase date") }
        return try add(item, quantity: options.quantity, notify: true) {
            if familyShared { $0.ownership = .familyShared }
            $0.appAccountToken = options.appAccountToken
        }
    }

    public func retentionOffer(group: String, ask: @Sendable (String, String) async -> JSONValue?) async -> RetentionOffer? { nil }

    public func registerInAppPurchaseKey(keyID: String, privateKeyPEM: String, issuerID: String?) throws -> InAppPurchaseKey {
        throw unsupported("the team's In-App Purchase keys")
    }

    /// No App Store around it: no purchases begun there.
    public func takePurchaseIntents() -> [PurchaseIntentRequest] { [] }
    public func returnPurchaseIntents(_ intents: [PurchaseIntentRequest]) {}
    public func promotionOrder() throws -> [PromotionOverride] { throw unsupported("promoted products") }
    public func setPromotionOrder(_ order: [PromotionOverride]) throws { throw unsupported("promoted products") }
    public func setPromotionVisibility(_ visibility: PromotionOverride.Visibility, for productID: String) throws {
        throw unsupported("promoted products")
    }

    public func sendPurchaseIntent(productID: String, offerID: String?) throws {
        throw unsupported("purchases begun on the App Store")
    }

    public func signPromotionalOffer(productID: String, offerID: String) throws -> String {
        try sign(["productId": .string(productID), "offerIdentifier": .string(offerID), "nonce": .string(UUID().uuidString)])
    }

    /// Plain memory: nothing to damage.
    public func damage() -> String? { nil }

    public func advanceTime(by period: Period) throws {
        if let problem = SupportedDates.problem(advancing: clock, by: period) { throw TestControlError(problem) }
        clock = period.advance(clock)
    }
    public func advanceClock(by seconds: TimeInterval) throws {
        guard seconds >= 0 else { throw TestControlError("the clock only goes forward") }
        clock = min(clock.addingTimeInterval(seconds), SupportedDates.latest)
    }
    public func setTimeRate(_ rate: TimeRate) { currentSettings.timeRate = rate }

    public func expireSubscription(productID: String) throws { throw unsupported("expiring subscriptions") }
    public func forceRenewal(productID: String) throws { throw unsupported("renewals") }
    public func setAutoRenew(productID: String, enabled: Bool) throws { throw unsupported("auto-renew") }
    public func requestPriceIncrease(productID: String) throws { throw unsupported("price increases") }
    public func respondToPriceIncrease(productID: String, agree: Bool) throws { throw unsupported("price increases") }
    public func resolveBillingIssue(productID: String) throws { throw unsupported("billing retry") }

    public func reset() {
        entries.removeAll()
        queue.removeAll()
        currentSettings = catalog.settings
    }

    // MARK: Internals

    private func unsupported(_ what: String) -> TestControlError {
        TestControlError("ScriptedSource does not simulate \(what); use the local App Store")
    }

    private func sign(_ json: JSONValue) throws -> String {
        try identity.signer.sign(payload: Data(json.compact.utf8))
    }

    private func payload(_ item: CatalogProduct, quantity: Int) throws -> TransactionPayload {
        defer { nextID += 1 }
        var p = TransactionPayload(
            transactionID: nextID, originalTransactionID: nextID, bundleID: catalog.app.bundleID, productID: item.id,
            productType: item.type, purchaseDate: clock, originalPurchaseDate: clock, quantity: quantity, signedDate: clock,
            storefront: currentStorefront.code, storefrontID: currentStorefront.id, currency: currentStorefront.currency,
            priceMilliunits: Int64(truncating: NSDecimalNumber(decimal: (item.prices[currentStorefront.code] ?? 0) * 1000)),
            appTransactionID: "1")
        p.environment = "Xcode"
        p.subscriptionGroupID = item.subscription?.groupID
        p.expirationDate = item.subscription.map { $0.period.advance(clock) }
        return p
    }

    private func add(_ item: CatalogProduct, quantity: Int, notify: Bool, edit: (inout TransactionPayload) -> Void = { _ in }) throws -> String {
        var p = try payload(item, quantity: quantity)
        edit(&p)
        let jws = try sign(p.json)
        entries.append(LedgerEntry(payload: p, status: .completed, isFinished: false, jws: jws))
        if notify { broadcast(jws) }
        return jws
    }

    private func complete(_ id: Int64, from status: LedgerEntry.Status) throws {
        guard let i = entries.firstIndex(where: { $0.id == id && $0.status == status }) else {
            throw TestControlError("no \(status.rawValue) transaction \(id)")
        }
        entries[i].status = .completed
        entries[i].jws = try sign(entries[i].payload.json)
        broadcast(entries[i].jws!)
    }

    private func revoke(_ id: Int64, type: TransactionPayload.RevocationType, reason: TransactionPayload.RevocationReason = .other) throws {
        guard let i = entries.firstIndex(where: { $0.id == id && $0.status == .completed }) else { throw TestControlError("no transaction \(id)") }
        entries[i].payload.revocationDate = clock
        entries[i].payload.revocationReason = reason
        entries[i].payload.revocationType = type
        entries[i].isFinished = false
        entries[i].jws = try sign(entries[i].payload.json)
        broadcast(entries[i].jws!)
    }

    private func broadcast(_ jws: String) {
        for subscriber in subscribers.values { subscriber.yield(jws) }
    }
}
