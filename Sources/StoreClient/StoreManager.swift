import Foundation
import StoreCore
import StoreEngine
@_spi(Storefront) import StoreKit
import StoreVerification

/// What an iOS app's store code does, done correctly, written on Apple's StoreKit 2 API (Storefront's
/// `StoreKit`): load products, purchase and handle every result, deliver *then* finish, listen to
/// `Transaction.updates` from launch, recompute entitlements, restore, ask for refunds, manage
/// subscriptions. StoreKit verifies; the app reads its results. What the storefront shows beyond what
/// an app can see (the ledger's counts and damage, the whole catalog, why a purchase waits) it reads from
/// the store beneath, as the App Store's own screens do. The UI reads `snapshot` and `events`.
public actor StoreManager {
    public var source: any TransactionSource { connection.source }
    /// The app's StoreKit: its store, and the root it trusts. Every StoreKit call runs on it (`storeKit`),
    /// so several apps (devices) can run on their own stores in one process.
    private let connection: StoreConnection
    private let verifier: SignedDataVerifier
    let wallet: ConsumableWallet
    private let productIDs: [String]?
    /// The app's `SKIncludeConsumableInAppPurchaseHistory`: whether its history keeps finished consumables.
    private let includesConsumableHistory: Bool
    private var listener: Task<Void, Never>?
    /// Listens to `PurchaseIntent.intents` from launch, as an app that promotes its products must.
    private var intentListener: Task<Void, Never>?
    /// How many purchase intents the app has heard (and reported): a scenario's `promote` waits for its own.
    public private(set) var purchaseIntentsHeard = 0
    /// Where each of `snapshot.products` is, by ID: what `purchase` buys.
    private var productIndex: [String: Int] = [:]
    /// Products the app holds beside `snapshot.products`, as an app keeps its `Product`s: ones loaded to be
    /// bought, and ones a later load left out (buying one no longer sold in the storefront is refused by the store).
    private var keptProducts: [String: StoreCore.Product] = [:]
    private var continuations: [UUID: AsyncStream<AppEvent>.Continuation] = [:]

    public internal(set) var snapshot = StoreSnapshot()
    /// Refreshes leave the history out until `loadHistory()`.
    private var historyDeferred = false
    /// How much of `Transaction.all` the snapshot keeps: the newest, so a long history never costs a refresh.
    public static let historyLimit = 200
    /// Verification results by token: a refresh re-reads the same signed data many times.
    private var verified = VerificationCache<TransactionPayload>()
    /// The signed statuses `snapshot.subscriptionStatuses` was verified from (see `verifiedStatuses`).
    private var signedStatuses: [String: [SignedSubscriptionStatus]] = [:]
    /// Where the source stood when the snapshot was last brought up to date; nil: unknown, read everything.
    private var stamp: ChangeStamp?
    /// The products the snapshot was last read whole for: statuses are read per group, non-renewing ends from durations.
    private var readForProducts: [StoreCore.Product] = []
    /// Verified, unrevoked transactions of `currentEntitlements`, before non-renewing ones are checked against the clock.
    private var entitling: [TransactionPayload] = []
    /// Refreshes run one at a time, each from where the one before left the snapshot: one runs, these wait.
    private var isRefreshing = false
    private var waitingRefreshes: [CheckedContinuation<Void, Never>] = []
    /// Delivers the verified updates waiting, a batch at a time, until none is left (see `StoreManager+Updates`).
    var delivering: Task<Void, Never>?
    /// Updates verified and not yet delivered, oldest first.
    var undelivered: [VerificationResult<Transaction>] = []
    /// Whether the first snapshot is read: updates wait for it.
    var isLaunched = false
    /// Whether a refresh for the updates handled is queued, not yet begun.
    var updatesRefreshQueued = false
    /// The last refresh queued for updates (see `refreshAfterUpdates`), for `stop` to wait for.
    var updatesRefresh: Task<Void, Never>?
    /// QA: the app dies after delivering the next transaction, before `finish()` (a crash a tester reproduces).
    var crashesBeforeFinish = false
    /// The app died that way: it no longer listens or finishes anything.
    public internal(set) var hasCrashed = false

    public init(source: any TransactionSource, verifier: SignedDataVerifier, wallet: ConsumableWallet, productIDs: [String]? = nil,
                includesConsumableHistory: Bool = false) {
        self.includesConsumableHistory = includesConsumableHistory
        connection = StoreConnection(source: source, verifier: verifier, includesConsumableHistory: includesConsumableHistory)
        self.verifier = verifier
        self.wallet = wallet
        self.productIDs = productIDs
    }

    /// Starts listening to `Transaction.updates` (as an app does at launch), loads everything, then
    /// handles what the updates brought meanwhile and after.
    /// `historyAfterFirstFrame`: everything but the history, which the UI loads with `loadHistory()`
    /// once its first frame is drawn (verifying it was most of a launch); until then the snapshot
    /// says it is loading, and refreshes leave it out.
    public func start(historyAfterFirstFrame: Bool = false) async {
        (historyDeferred, snapshot.isLoadingHistory) = (historyAfterFirstFrame, historyAfterFirstFrame)
        // Listening from the first moment, as Apple's sample apps do; delivered once the first snapshot is
        // read (see `isLaunched`): an app back after years away has thousands of unfinished renewals waiting.
        let connection = connection
        let updates = await storeKit { await Transaction.listeningUpdates() }
        listener = Task { [weak self] in
            await StoreKitRuntime.withConnection(connection) {
                // StoreKit verifies each off the app's actor, beside the one before it being delivered and finished.
                // A cancelled sequence may still hand out what it buffered: stop at once instead, and
                // what was not handled stays unfinished, to be redelivered at the next launch.
                for await update in updates {
                    if Task.isCancelled { break }
                    await self?.handleUpdate(update)
                }
            }
        }
        intentListener = Task { [weak self] in
            await StoreKitRuntime.withConnection(connection) {
                for await intent in PurchaseIntent.intents {
                    await self?.heard(intent)
                }
            }
        }
        await loadProducts()
        await loadAppTransaction()
        await refresh()
        isLaunched = true
        startDelivering()
    }

    private func heard(_ intent: PurchaseIntent) {
        purchaseIntentsHeard += 1
        emit(.purchaseIntent(productID: intent.id, offerID: intent.offer?.id))
    }

    /// Runs StoreKit calls on this app's store.
    func storeKit<T: Sendable>(_ body: nonisolated(nonsending) @Sendable () async throws -> T) async rethrows -> T {
        try await StoreKitRuntime.withConnection(connection, body)
    }

    /// `AppTransaction.shared`: what the app knows of its own purchase (for business-model migrations).
    public func loadAppTransaction() async {
        do {
            snapshot.appTransaction = try await storeKit { try await AppTransaction.shared }.verification(\.payload)
        } catch {
            snapshot.appTransaction = nil
            emit(.failed(.appTransaction, Self.failure(error)))
        }
    }

    /// The manage-subscriptions sheet, where the customer does `action`; what changed reaches the app
    /// through updates and status.
    @discardableResult
    public func manageSubscription(groupID: String, _ action: ManageSubscriptionAction) async -> StoreFailure? {
        let answer: StoreSheet.Answer = switch action {
        case .cancel: .cancelSubscription(groupID: groupID)
        case .reenable: .resumeSubscription(groupID: groupID)
        case .switchTo(let productID): .switchSubscription(toProductID: productID)
        }
        do {
            try await storeKit {
                try await AppStore.showManageSubscriptions(in: UIWindowScene(answering: answer), subscriptionGroupID: groupID)
            }
            await refresh()
            return nil
        } catch {
            emit(.failed(.manageSubscriptions, Self.failure(error)))
            return Self.failure(error)
        }
    }

    /// Stops listening and waits for the update being handled, if any, and the refresh it queued: nothing
    /// the app does outlives its stop (exiting under a verification once crashed in OpenSSL's exit-time
    /// cleanup, which `CCryptoSetup` now turns off for every program).
    public func stop() async {
        let running = [listener, intentListener]
        stopListening()
        for task in running { await task?.value }
        await delivering?.value
        await updatesRefresh?.value
    }

    func stopListening() {
        listener?.cancel()
        listener = nil
        intentListener?.cancel()
        intentListener = nil
        for continuation in continuations.values { continuation.finish() }
        continuations.removeAll()
    }

    /// A new stream of events for one listener (the UI loop, a scenario runner).
    public func events() -> AsyncStream<AppEvent> {
        let (stream, continuation) = AsyncStream<AppEvent>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let id = UUID()
        continuations[id] = continuation
        continuation.onTermination = { [weak self] _ in Task { await self?.removeContinuation(id) } }
        return stream
    }

    private func removeContinuation(_ id: UUID) { continuations[id] = nil }

    /// How many events the app has reported: a listener that counts what it heard knows when it has heard everything.
    public private(set) var eventCount = 0

    func emit(_ event: AppEvent) {
        eventCount += 1
        if case .failed(_, let failure) = event { snapshot.lastError = failure }
        snapshot.lastEvent = event
        for continuation in continuations.values { continuation.yield(event) }
    }

    // MARK: Products

    public func loadProducts() async {
        do {
            // An app names its products and loads them through StoreKit. Storefront's own shows its whole
            // catalog, read from the store beneath: one copy of a 100k-product catalog rather than several
            // (`Product.products(for:)` wants the IDs, and each `Product` is a copy of its item).
            let products: [StoreCore.Product]
            if let productIDs {
                products = try await storeKit { try await StoreKit.Product.products(for: productIDs) }.map(\.item)
            } else {
                products = try await source.products(for: nil)
            }
            let index = Dictionary(products.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
            keptProducts = keptProducts.filter { index[$0.key] == nil }
            for product in snapshot.products where index[product.id] == nil { keptProducts[product.id] = product }
            (snapshot.products, productIndex) = (products, index)
            snapshot.missingProductIDs = (productIDs ?? []).filter { index[$0] == nil }
            snapshot.loadError = nil
        } catch {
            snapshot.loadError = Self.failure(error)
            emit(.failed(.loadProducts, Self.failure(error)))
        }
        snapshot.storefront = await source.storefront()
        snapshot.locale = await source.locale()
    }

    // MARK: Purchase

    /// Purchases a product; `answer` is what the customer did at the payment sheet.
    @discardableResult
    public func purchase(_ productID: String, options: PurchaseOptions = PurchaseOptions(),
                         answer: PaymentSheetAnswer = .confirm) async -> PurchaseResult {
        snapshot.lastError = nil // the last error is the last action's
        let result: PurchaseResult
        do {
            let product = try await storeKitProduct(productID)
            let scene = UIWindowScene(answering: answer == .confirm ? .confirm : .cancel)
            let purchase = try await storeKit {
                try await product.purchaseTellingWhy(confirmIn: scene, options: StoreKit.Product.PurchaseOption.options(options))
            }
            switch purchase.result {
            case .success(let transaction):
                let verification = transaction.verification(\.payload)
                // Kept: the refresh after it reads the same token in the history.
                _ = verified.result(transaction.jwsRepresentation) { _ in verification }
                await deliverAndFinish(transaction, verification)
                result = .success(verification)
                if let error = verification.error {
                    emit(.failed(.purchase, .verification(error)))
                } else {
                    emit(.purchased(productID: productID, quantity: verification.payload?.quantity ?? 1))
                }
            case .userCancelled:
                result = .userCancelled
                emit(.cancelled(productID: productID))
            case .pending:
                let reason = purchase.pendingReason ?? .askToBuy
                result = .pending(reason)
                emit(.pending(productID: productID, reason: reason))
            @unknown default:
                result = .failed(.storeKit(.unknown))
                emit(.failed(.purchase, .storeKit(.unknown)))
            }
        } catch {
            result = .failed(Self.failure(error))
            emit(.failed(.purchase, Self.failure(error)))
        }
        snapshot.lastPurchase = result
        await refresh()
        return result
    }

    /// The product to buy: one the app loaded (or loaded before), else loaded now, as an app loads what it
    /// sells before selling it.
    private func storeKitProduct(_ id: String) async throws -> StoreKit.Product {
        if let index = productIndex[id] { return StoreKit.Product(snapshot.products[index]) }
        if let kept = keptProducts[id] { return StoreKit.Product(kept) }
        guard let product = try await storeKit({ try await StoreKit.Product.products(for: [id]) }).first else {
            throw StoreFailure.purchase(.productUnavailable)
        }
        keptProducts[id] = product.item
        return product
    }

    /// Deliver, then finish: if the app dies between the two, the unfinished transaction is
    /// redelivered at launch and the wallet's idempotent credit makes the second delivery a no-op.
    private func deliverAndFinish(_ transaction: VerificationResult<Transaction>, _ verification: Verification<TransactionPayload>) async {
        guard await deliver(verification) else { return }
        if crashesBeforeFinish { crash(); return }
        await transaction.unsafePayloadValue.finish()
    }

    /// Credits a verified consumable to the wallet (anything else the snapshot delivers); false when
    /// the credit failed, so the transaction is left unfinished and comes back.
    func deliver(_ verification: Verification<TransactionPayload>) async -> Bool {
        guard let transaction = verification.payload else { return false }
        guard verification.isVerified, !transaction.isRevoked, transaction.productType == .consumable else { return true }
        do {
            try await wallet.credit(transactionID: transaction.transactionID, productID: transaction.productID, quantity: transaction.quantity)
            return true
        } catch {
            emit(.failed(.purchase, .storeKit(.systemError)))
            return false
        }
    }

    // MARK: Entitlements and status

    /// Refreshes made so far: a reader that saw the snapshot after one knows whether another ended since.
    public private(set) var refreshes = 0

    /// Recomputes what the customer is entitled to, from `currentEntitlements` and subscription status.
    /// One at a time: a refresh brings the snapshot up to date from where the one before left it.
    public func refresh() async {
        // Waits its turn, and hands the turn on to the next one waiting (no task made when none is).
        if isRefreshing {
            await withCheckedContinuation { waitingRefreshes.append($0) }
        } else {
            isRefreshing = true
        }
        await refreshNow()
        refreshes += 1
        if waitingRefreshes.isEmpty { isRefreshing = false } else { waitingRefreshes.removeFirst().resume() }
    }

    private func refreshNow() async {
        if let stamp, snapshot.products == readForProducts, let changes = await source.changes(since: stamp) {
            await apply(changes)
        } else {
            await readEverything()
        }
    }

    /// Brings the snapshot up to date with what changed since it was read: the same snapshot as
    /// reading everything (see `SourceChanges`), at the cost of the new transactions alone.
    private func apply(_ changes: SourceChanges) async {
        var entitlingChanged = false
        for jws in changes.transactions {
            let result = verify(jws)
            // A history left for after the first frame is read whole when it loads. The app's own purchase
            // is finished by now unless the app died first (see `inHistory`).
            if !historyDeferred, inHistory(result, finished: !hasCrashed) { snapshot.history.insert(result, at: 0) }
            if case .verified(let t) = result, !t.isRevoked, t.productType != .consumable {
                entitling.append(t)
                entitlingChanged = true
            }
        }
        if snapshot.history.count > Self.historyLimit { snapshot.history.removeLast(snapshot.history.count - Self.historyLimit) }
        snapshot.now = changes.now
        // Unchanged until what entitles changes or a non-renewing one ends: a consumable's refresh rebuilt them for nothing.
        if entitlingChanged || snapshot.nextTimedChange.map({ $0 <= changes.now }) ?? false { updateEntitlements(at: changes.now) }
        snapshot.damage = changes.damage
        snapshot.balances = (try? await wallet.balances()) ?? snapshot.balances
        // A consumable the history kept while it was unfinished leaves it once finished (see `inHistory`).
        if !includesConsumableHistory, !historyDeferred, changes.unfinishedCount < snapshot.unfinishedCount,
           snapshot.history.contains(where: { $0.payload.map { $0.productType == .consumable && !$0.isRevoked } ?? false }) {
            await refreshHistory()
        }
        snapshot.transactionCount = changes.transactionCount
        snapshot.unfinishedCount = changes.unfinishedCount
        snapshot.storefront = changes.storefront
        snapshot.locale = changes.locale
        stamp = changes.stamp
    }

    /// Reads everything; the snapshot is where the source stood when nothing changed meanwhile.
    private func readEverything() async {
        stamp = nil
        let start = await source.changeStamp()
        readForProducts = snapshot.products
        verified.startRefresh()
        let now = await source.now()
        entitling = await storeKit {
            var entitling: [TransactionPayload] = []
            for await case .verified(let transaction) in Transaction.currentEntitlements where transaction.revocationDate == nil {
                entitling.append(transaction.payload)
            }
            return entitling
        }
        updateEntitlements(at: now)
        snapshot.damage = await source.damage()
        snapshot.now = now
        snapshot.balances = (try? await wallet.balances()) ?? snapshot.balances
        let groupIDs = Array(Set(snapshot.products.compactMap { $0.subscription?.groupID })).sorted()
        do {
            snapshot.subscriptionStatuses = verifiedStatuses(try await source.subscriptionStatuses(groupIDs: groupIDs))
        } catch {
            snapshot.statusError = Self.failure(error)
            (snapshot.subscriptionStatuses, signedStatuses) = ([:], [:])
        }
        snapshot.introEligibility = await source.introOfferEligibility(groupIDs: groupIDs)
        if !historyDeferred { await refreshHistory() }
        snapshot.transactionCount = await source.transactionCount()
        snapshot.unfinishedCount = await source.unfinishedCount()
        snapshot.storefront = await source.storefront()
        snapshot.locale = await source.locale()
        // Written meanwhile only what leaves the records read here as they were (finishes, as updates
        // handled beside this read make): the next refresh applies it from `start`. Anything else, read again.
        if let start {
            let unchanged = await source.changeStamp() == start
            let described = unchanged ? nil : await source.changes(since: start)
            if unchanged || described?.transactions.isEmpty == true { stamp = start }
        }
    }

    /// The groups' statuses verified, each group's taken from the snapshot while what was signed for it is
    /// unchanged: verification depends on the tokens alone, and looking up a thousand groups' tokens at
    /// every refresh was a third of it. A renewal info is verified again only when it was signed again.
    private func verifiedStatuses(_ signed: [String: [SignedSubscriptionStatus]]) -> [String: [SubscriptionStatus]] {
        if signed == signedStatuses { return snapshot.subscriptionStatuses }
        var statuses: [String: [SubscriptionStatus]] = [:]
        for (groupID, group) in signed {
            if signedStatuses[groupID] == group, let known = snapshot.subscriptionStatuses[groupID] {
                statuses[groupID] = known
            } else {
                statuses[groupID] = group.map {
                    SubscriptionStatus(state: $0.state, transaction: verify($0.transaction), renewalInfo: verifier.renewalInfo($0.renewalInfo))
                }
            }
        }
        signedStatuses = signed
        return statuses
    }

    /// What the customer is entitled to at `now` (a non-renewing subscription ends with its duration),
    /// and when each non-renewing one still in force ends.
    private func updateEntitlements(at now: Date) {
        var entitled: Set<String> = [], ends: [String: Date] = [:]
        for t in entitling {
            if t.productType == .nonRenewing, let end = nonRenewingEnd(t) {
                if end <= now { continue }
                ends[t.productID] = max(end, ends[t.productID] ?? end)
            }
            entitled.insert(t.productID)
        }
        snapshot.entitlements = entitled
        snapshot.nonRenewingEnds = ends
    }

    /// The newest of `Transaction.all`, verified (part of every refresh once the history is loaded).
    public func refreshHistory() async {
        let all = await source.allTransactions(limit: Self.historyLimit).map(verify)
        let unfinished = includesConsumableHistory ? [] : Set(await source.unfinishedTransactions().compactMap { verify($0).payload?.transactionID })
        snapshot.history = all.filter { inHistory($0, finished: !($0.payload.map { unfinished.contains($0.transactionID) } ?? false)) }
        snapshot.isLoadingHistory = false
    }

    /// Whether `Transaction.all` (and `latest(for:)`) hands the app this transaction: StoreKit leaves out
    /// finished consumables, unless refunded or revoked, when the app does not opt in (`includesConsumableHistory`).
    private func inHistory(_ result: Verification<TransactionPayload>, finished: Bool) -> Bool {
        result.payload.map { $0.isInHistory(finished: finished, includesConsumables: includesConsumableHistory) } ?? true
    }

    /// The history the launch left for after the first frame (see `start(historyAfterFirstFrame:)`);
    /// refreshes from now on include it.
    public func loadHistory() async {
        guard historyDeferred else { return }
        historyDeferred = false
        await refreshHistory()
    }

    private func verify(_ jws: String) -> Verification<TransactionPayload> {
        verified.result(jws, verifier.transaction)
    }

    /// A non-renewing subscription has no expiration date: the app computes it from the catalog's duration.
    public func nonRenewingEnd(_ transaction: TransactionPayload) -> Date? {
        snapshot.products.first { $0.id == transaction.productID }?.duration?.advance(transaction.purchaseDate)
    }
}
