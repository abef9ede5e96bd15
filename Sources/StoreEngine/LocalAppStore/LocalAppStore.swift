import Foundation
import StoreCore
import StoreSigning
import Synchronization

/// The embedded simulated App Store: a ledger that survives a crash, a clock that can run fast, a signer, and
/// StoreKit's rules for purchases, Ask to Buy, interrupted purchases, offers, codes, refunds and
/// subscriptions. It plays Apple's part only: it hands out signed data and never decides what
/// the app unlocks.
public actor LocalAppStore: TransactionSource, StoreTestControls {
    public let catalog: Catalog
    public nonisolated let identity: StoreIdentity
    let ledger: Ledger
    let time: any RealTimeSource
    /// Tells this process's events from another's on the same ledger.
    let origin = UUID().uuidString
    /// The app's install, as `AppTransaction` identifies it; one per ledger.
    let appTransactionID: String
    var clock: StoreClock
    var currentSettings: TestSettings
    var currentStorefront: Storefront
    var currentLocale: String
    var lastSeenEvent: Int64
    var subscribers: [UUID: AsyncStream<String>.Continuation] = [:]
    var poller: Task<Void, Never>?
    /// On PostgreSQL, what tells this process of other processes' commits (nil: poll the ledger at each tick).
    var changeFeed: LedgerChangeFeed?
    /// Set by the feed; with one, a tick reads the shared state and events only when it is.
    var ledgerChanged = true
    /// Without a feed (SQLite), the ledger's version at the last tick: a tick reads the shared state
    /// and events only when another process has committed since.
    var tickedDataVersion: Int64?
    var isShutDown = false
    /// The first damaged ledger row a read met (see `read`).
    var ledgerDamage: LedgerError?
    /// Why the last read of a PostgreSQL ledger failed, until one succeeds (see `read`).
    var ledgerOutOfReach: LedgerError?
    lazy var rogueSigner: JWSSigner? = try? StoreIdentity.ephemeral().signer
    /// Set during a catch-up: renewals are signed beside it and their tokens written before it commits.
    var signingPipeline: SigningPipeline?
    /// During a catch-up, the notifications it makes, written in order before it commits (see `enqueueNotification`).
    var batchNotifications: [Ledger.OutboxRow] = []
    /// Renewal info as last signed, by original transaction (see `signedRenewalInfo`).
    var signedRenewals: [Int64: SignedRenewal] = [:]
    /// The tokens last read, and where the ledger stood then (see `tokens`).
    var tokensRead: (stamp: ChangeStamp, tokens: [Int64: String])?
    /// The clock and settings as this process last wrote or read them in the ledger (see `adoptSharedState`).
    var sharedClock: String?
    var sharedSettings: String?
    /// The ledger writes this store can describe to an app, newest last (see `changes(since:)`).
    var journal: [JournalEntry] = []

    /// Opens a store. `stateDirectory` nil keeps everything in memory (`--ephemeral`); `ledger` nil is the
    /// state directory's; a PostgreSQL one holds the ledger and the signing identity instead (the state directory is not used).
    public init(catalog: Catalog, stateDirectory: String?, ledger location: LedgerLocation? = nil, storefront: String? = nil,
                locale: String? = nil, time: any RealTimeSource = SystemTime()) throws {
        self.catalog = catalog
        self.time = time
        // Damage SQLite meets here that the open's quick check missed is the ledger's (`LedgerError.damaged`).
        do {
            (ledger, identity) = try Ledger.open(location ?? .stateDirectory(stateDirectory), stateDirectory: stateDirectory)
            // What the tester changed last time wins over the catalog's defaults, until a reset.
            var settings = catalog.settings
            if let saved = try ledger.meta("settings").flatMap({ try? JSONParser.parse($0) }),
               let restored = try? CatalogFormat.decodeSettings(saved, storefronts: catalog.storefronts, file: "ledger") {
                settings = restored
            }
            currentSettings = settings
            let real = time.now()
            clock = StoreClock(rate: settings.timeRate, realAnchor: real, storeAnchor: real)
            if let saved = try ledger.meta("clock"), let restored = try? JSONDecoder().decode(StoreClock.self, from: Data(saved.utf8)) {
                clock = restored
            }
            guard let place = catalog.place(storefront: storefront, locale: locale, settings: settings) else {
                throw StoreFailure.storeKit(.notAvailableInStorefront)
            }
            (currentStorefront, currentLocale) = place
            lastSeenEvent = try ledger.lastEventSeq()
            appTransactionID = try ledger.meta("appTransactionID") {
                String(UInt64.random(in: 700_000_000_000_000_000...799_999_999_999_999_999))
            }
            sharedSettings = try ledger.meta("settings")
            let clockText = String(decoding: try JSONEncoder().encode(clock), as: UTF8.self)
            try ledger.setMeta("clock", clockText)
            sharedClock = clockText
        }
    }

    /// A store dropped without `shutdown()` (a test, an error path) still ends its listening thread and connection.
    deinit { changeFeed?.stop() }

    public nonisolated var certificate: Certificate { identity.certificate }

    // MARK: Clock

    public func now() -> Date { clock.now(real: time.now()) }

    func saveClock() {
        let text = String(decoding: (try? JSONEncoder().encode(clock)) ?? Data(), as: UTF8.self)
        try? ledger.setMeta("clock", text)
        sharedClock = text
    }

    /// Takes up the clock and settings another process on the ledger saved since (a tester moving time
    /// or switching Ask to Buy in the storefront while `serve` answers a backend, or a second storefront):
    /// one store, one clock, one set of switches. Read at every tick, so a change arrives within a second.
    func adoptSharedState() {
        let (clockText, settingsText) = read((nil, nil)) { (try ledger.meta("clock"), try ledger.meta("settings")) }
        if let clockText, clockText != sharedClock, let shared = try? JSONDecoder().decode(StoreClock.self, from: Data(clockText.utf8)) {
            clock = shared
            sharedClock = clockText
        }
        guard settingsText != sharedSettings else { return }
        sharedSettings = settingsText
        // No saved settings: a reset went back to the catalog's.
        let shared = settingsText.flatMap { try? JSONParser.parse($0) }
            .flatMap { try? CatalogFormat.decodeSettings($0, storefronts: catalog.storefronts, file: "ledger") } ?? catalog.settings
        let placeChanged = shared.storefront != currentSettings.storefront || shared.locale != currentSettings.locale
        currentSettings = shared
        if placeChanged, let place = catalog.place(storefront: shared.storefront, locale: shared.locale, settings: shared) {
            (currentStorefront, currentLocale) = place
        }
    }

    // MARK: Products

    public func storefront() -> Storefront { currentStorefront }
    public func locale() -> String { currentLocale }

    public func products(for ids: [String]?) async throws -> [Product] {
        try await simulateNetwork(.loadProducts)
        return catalog.products(for: ids, storefront: currentStorefront.code, locale: currentLocale)
    }

    func simulateNetwork(_ api: StoreAPI, delay: Bool = false) async throws {
        if delay, currentSettings.networkDelay > 0 {
            try? await Task.sleep(for: .milliseconds(Int(currentSettings.networkDelay * 1000)))
        }
        try injected.check(api)
    }

    /// The failures the tester injected.
    var injected: FailureInjection { FailureInjection(currentSettings) }

    // MARK: Purchase

    public func purchase(_ productID: String, options: PurchaseOptions, answer: PaymentSheetAnswer) async throws -> PurchaseOutcome {
        catchUp()
        try injected.check(.purchase)
        guard let item = catalog.product(productID) else { throw StoreFailure.purchase(.productUnavailable) }
        guard item.prices[currentStorefront.code] != nil else { throw StoreFailure.storeKit(.notAvailableInStorefront) }
        // A billing plan the product does not sell (or monthly billing of anything but a yearly subscription).
        guard let price = item.price(in: currentStorefront.code, on: options.billingPlan) else { throw StoreFailure.purchase(.productUnavailable) }
        guard Checkout.allowedQuantities(of: item.type).contains(options.quantity) else { throw StoreFailure.purchase(.invalidQuantity) }
        let promotion = try options.promotionalOffer?.signature.flatMap(promotion)
        let offer = try offerFor(item, options: options, promotion: promotion)
        // Buying what the customer already has gets it again for free: the existing transaction, no charge, no new row.
        if let owned = try alreadyPurchased(item) {
            guard answer == .confirm else { return .userCancelled }
            if item.type == .autoRenewable, let current = try planChange(to: item)?.current { try callOffChange(current, keeping: item.id) }
            return .success(jws: present(owned))
        }
        guard answer == .confirm else { return .userCancelled }
        try await simulateNetwork(.purchase, delay: true)

        let change = item.type == .autoRenewable ? try planChange(to: item) : nil
        let pending = Checkout.hold(currentSettings, options)
        // A plan change asks for approval too; it takes effect when it completes (see `complete`).
        if let change, pending == nil { return try applyChange(change, to: item, options: options, offer: offer) }
        let payload = try newPayload(item, price: price, options: options, offer: offer)
        if let pending {
            try commit(payload, kind: .silent, status: pending)
            return .pending(pending == .pendingApproval ? .askToBuy : .interrupted)
        }
        let committed: String?
        do {
            committed = try commit(payload, kind: .purchase)
        } catch StoreFailure.purchase(.purchaseNotAllowed) {
            // Another process sold it a moment ago, under the write lock: this customer owns it now.
            guard let owned = try alreadyPurchased(item) else { throw StoreFailure.purchase(.purchaseNotAllowed) }
            return .success(jws: present(owned))
        }
        guard let jws = committed else { throw StoreFailure.storeKit(.unknown) }
        if let nonce = promotion?.nonce { _ = try ledger.useNonce(nonce) }
        return .success(jws: present(jws))
    }

    /// The transaction of what the customer already has: a non-consumable they own, or the
    /// subscription they are subscribed to now. StoreKit hands it back ("You've already purchased
    /// this… get it again for free"); nil when buying it is a new purchase.
    func alreadyPurchased(_ item: CatalogProduct) throws -> String? {
        switch item.type {
        case .nonConsumable:
            return try ledger.ownedOneTimeRow(item.id)?.jws
        case .autoRenewable:
            guard let change = try planChange(to: item), change.kind == .alreadySubscribed else { return nil }
            return try ledger.jws(change.current.latestTransactionID)
        default:
            return nil
        }
    }

    /// Stores a transaction, signed when completed (inside a catch-up the token comes later, and
    /// nil is returned), with its subscription state, redemption and event,
    /// in ONE write transaction: the ID is allocated and a one-time product's ownership re-checked
    /// under the write lock, so two processes on one ledger can never take the same ID or sell a
    /// non-consumable twice. `replacing` completes a pending row under its own ID. A completed
    /// transaction leaves its notification (`upgrade`: it upgrades the subscription) in the same write.
    @discardableResult
    func commit(_ payload: TransactionPayload, kind: Ledger.EventKind, status: LedgerEntry.Status = .completed,
                redeeming code: String? = nil, replacing: Bool = false, upgrade: Bool = false) throws -> String? {
        // A write of its own, adding the newest transaction and changing no subscription, is described
        // to the app (see `changes(since:)`); stamped under the write lock, so no other commit comes between.
        let described = !ledger.db.isInTransaction && !replacing && status == .completed && payload.productType != .autoRenewable
        var stamps: (from: ChangeStamp?, to: ChangeStamp?) = (nil, nil)
        var event: Int64?
        let jws: String? = try ledger.db.transaction {
            if described { stamps.from = try ledger.stamp() }
            defer { if described { stamps.to = try? ledger.stamp() } }
            var payload = payload
            if replacing {
                try ledger.delete(payload.transactionID)
            } else {
                let id = try ledger.nextTransactionID()
                if payload.originalTransactionID == payload.transactionID { payload.originalTransactionID = id }
                if payload.webOrderLineItemID != nil { payload.webOrderLineItemID = String(id + 1_000_000_000) }
                payload.transactionID = id
            }
            if payload.productType == .nonConsumable, payload.ownership == .purchased, !replacing,
               try ledger.ownsOneTimeProduct(payload.productID) {
                throw code == nil ? StoreFailure.purchase(.purchaseNotAllowed) : StoreFailure.offerCode(.alreadyOwned)
            }
            payload.signedDate = now()
            let text = payload.json.compact
            var jws: String?
            if status == .completed, let signingPipeline {
                signingPipeline.submit(text, for: payload.transactionID)
            } else if status == .completed {
                jws = asSigned(try identity.signer.sign(payload: Data(text.utf8)))
            }
            // The store signer's token over exactly `text`: the row keeps its signature.
            try ledger.insert(.init(payload: payload, status: status, finished: false, jws: jws), payloadJSON: text,
                              signature: jws.map(Ledger.signature(of:)), signedLater: status == .completed && signingPipeline != nil)
            if status == .completed {
                let (previous, record) = payload.productType == .autoRenewable ? try startOrExtendSubscription(with: payload) : (nil, nil)
                try enqueueNotification(.transaction(payload.productType, isRenewal: payload.reason == .renewal, offer: payload.offerType,
                                                     previous: previous, upgrade: upgrade),
                                        transaction: payload, record: record)
            }
            if let code { try ledger.recordRedemption(code: code, transactionID: payload.transactionID) }
            event = try ledger.appendEvent(transactionID: payload.transactionID, kind: kind, origin: origin)
            return jws
        }
        if let from = stamps.from, let to = stamps.to, let jws { record(from: from, to: to, transaction: jws) }
        // Inside a batch (a catch-up, an upgrade) the batch delivers once it has committed.
        if !ledger.db.isInTransaction { pumpEvents(after: event, of: kind) }
        return jws
    }

    func newPayload(_ item: CatalogProduct, price: Decimal, options: PurchaseOptions, offer: SubscriptionOffer?,
                    originalID: Int64? = nil, originalDate: Date? = nil, purchaseDate: Date? = nil,
                    reason: TransactionPayload.Reason = .purchase) throws -> TransactionPayload {
        let id: Int64 = 0  // provisional: `commit` allocates the real ID under the write lock
        let date = purchaseDate ?? now()
        // A subscription continues the customer's subscription in its group: same original transaction.
        let continued = originalID == nil ? item.subscription.flatMap { groupSubscription($0.groupID) } : nil
        let originalID = originalID ?? continued?.originalID
        let originalDate = originalDate ?? continued.flatMap { try? ledger.row($0.latestTransactionID) }?.payload.originalPurchaseDate
        let charged = offer?.charge(in: currentStorefront.code) ?? price
        var payload = TransactionPayload(
            transactionID: id, originalTransactionID: originalID ?? id, bundleID: catalog.app.bundleID,
            productID: item.id, productType: item.type, purchaseDate: date, originalPurchaseDate: originalDate ?? date,
            quantity: options.quantity, signedDate: now(), storefront: currentStorefront.code, storefrontID: currentStorefront.id,
            currency: currentStorefront.currency, priceMilliunits: Self.milliunits(charged * Decimal(options.quantity)),
            appTransactionID: appTransactionID)
        payload.reason = reason
        payload.appAccountToken = options.appAccountToken
        payload.environment = currentSettings.environment.rawValue
        if let terms = item.subscription {
            payload.subscriptionGroupID = terms.groupID
            payload.webOrderLineItemID = String(id + 1_000_000_000)
            payload.expirationDate = schedule.end(of: offer?.firstPeriod ?? terms.billingPeriod(on: options.billingPlan), from: date)
            if !terms.billingPlans.isEmpty { payload.billingPlanType = options.billingPlan }
            // The monthly plan's first payment starts a 12-month commitment (a renewal continues its own; see `renew`):
            // twelve billing periods on the store clock, each as long as the time rate makes it.
            if let plan = terms.billingPlan(options.billingPlan), plan.type == .monthly {
                let month = terms.billingPeriod(on: .monthly), anchorDay = Period.anchorDay(nil, at: date)
                let expires = (0..<plan.billingPeriodsPerCommitment).reduce(date) { end, _ in schedule.end(of: month, from: end, anchorDay: anchorDay) }
                payload.commitment = .init(billingPeriodNumber: 1, totalBillingPeriods: plan.billingPeriodsPerCommitment, expiresDate: expires,
                                           priceMilliunits: Self.milliunits(plan.commitmentPrice(in: currentStorefront.code, listed: item.prices[currentStorefront.code] ?? 0)))
            }
        }
        if let offer {
            payload.offerType = offer.type
            payload.offerID = offer.id
            payload.offerPaymentMode = offer.paymentMode
            payload.offerPeriod = offer.type == .code && item.type != .autoRenewable ? nil : offer.duration
        }
        return payload
    }

    /// Thousandths of `amount`, truncated. Remembered, as a catalog has few prices: the conversion
    /// through NSDecimalNumber took half a microsecond, twice a renewal (its price, its renewal info's).
    static func milliunits(_ amount: Decimal) -> Int64 {
        if let known = knownMilliunits.withLock({ $0[amount] }) { return known }
        let value = Int64(truncating: NSDecimalNumber(decimal: amount * 1000))
        knownMilliunits.withLock {
            if $0.count >= 10_000 { $0 = [:] }
            $0[amount] = value
        }
        return value
    }

    private static let knownMilliunits = Mutex<[Decimal: Int64]>([:])

    // MARK: Signing and handing out

    func sign(_ json: JSONValue) throws -> String {
        try identity.signer.sign(payload: Data(json.compact.utf8))
    }

    /// A token as the store makes it now: while invalid signatures are on, with a broken signature,
    /// kept for good. (Its 11th character changes: `present` changes the first, so it cannot mend it.)
    func asSigned(_ jws: String) -> String {
        guard injected.invalidSignatures, let dot = jws.lastIndex(of: "."),
              let spot = jws.index(dot, offsetBy: 11, limitedBy: jws.index(before: jws.endIndex)) else { return jws }
        return jws[..<spot] + (jws[spot] == "A" ? "B" : "A") + jws[jws.index(after: spot)...]
    }

    /// What the app receives: the signed data, or a broken copy when a verification failure is injected.
    func present(_ jws: String) -> String {
        guard let failure = injected.verificationFailure else { return jws }
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3 else { return jws }
        switch failure {
        case .invalidEncoding: return parts[0] + "." + parts[1]
        case .invalidSignature, .invalidDeviceVerification:
            let flipped = parts[2].first == "A" ? "B" + parts[2].dropFirst() : "A" + parts[2].dropFirst()
            return parts[0] + "." + parts[1] + "." + flipped
        case .invalidCertificateChain, .revokedCertificate:
            return (try? rogueSigner?.sign(payload: Base64URL.decode(parts[1]) ?? Data())) ?? jws
        case .missingRequiredProperties:
            return (try? identity.signer.sign(payload: Data("{\"signedDate\":\(Int64(now().timeIntervalSince1970 * 1000))}".utf8))) ?? jws
        }
    }

    // MARK: Updates

    public func updates() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream<String>.makeStream()
        let id = UUID()
        subscribers[id] = continuation
        continuation.onTermination = { [weak self] _ in Task { await self?.unsubscribe(id) } }
        // StoreKit redelivers every unfinished transaction at launch.
        for row in read([], ledger.unfinishedRows) { if let jws = row.jws { continuation.yield(present(jws)) } }
        startPolling()
        return stream
    }

    func unsubscribe(_ id: UUID) {
        subscribers[id] = nil
        if subscribers.isEmpty { stopPolling() }
    }

    /// Renewals happen while the program runs, and other processes' purchases arrive, without any call from the app.
    /// On PostgreSQL, other processes' commits are told by `LISTEN/NOTIFY` (a tick follows each at once); the
    /// ticks in between only renew what falls due.
    func startPolling() {
        guard poller == nil else { return }
        changeFeed = ledger.changeFeed { [weak self] in Task { await self?.ledgerDidChange() } }
        poller = Task { [weak self] in
            while (try? await Task.sleep(for: .milliseconds(250))) != nil {
                await self?.tick()
            }
        }
    }

    func stopPolling() {
        poller?.cancel()
        poller = nil
        changeFeed?.stop()
        changeFeed = nil
    }

    func ledgerDidChange() {
        ledgerChanged = true
        tick()
    }

    public func tick() {
        guard !isShutDown else { return }
        // This process's own changes were delivered as it made them (see `commit`); only others' are news.
        let changed = changeFeed == nil ? othersCommitted() : ledgerChanged
        ledgerChanged = false
        if changed { adoptSharedState() }
        catchUp()  // delivers what it renews itself
        if changed { pumpEvents() }
    }

    /// Whether another connection committed since the last tick asked (yes when the ledger cannot say).
    private func othersCommitted() -> Bool {
        guard let version = try? ledger.db.dataVersion() else { return true }
        defer { tickedDataVersion = version }
        return version != tickedDataVersion
    }

    /// What a reader compares to know whether anything the store would tell it changed since it last
    /// looked: every commit to the ledger, this process's and others', and what is wrong with it.
    /// Time moving on is not in it (see `now()`). nil: the ledger cannot say (a shared one out of reach).
    public func changeVersion() -> ChangeVersion? {
        guard let others = try? ledger.db.dataVersion() else { return nil }
        return ChangeVersion(others: others, own: ledger.db.ownChanges, damage: damage())
    }

    public struct ChangeVersion: Equatable, Sendable {
        let others: Int64
        let own: Int64
        let damage: String?
    }

    /// Delivers the events up to `seq`, one of `kind` this process has just written: when it follows the
    /// last one seen and is not delivered to this process (its own purchase), there is nothing to read.
    func pumpEvents(after seq: Int64?, of kind: Ledger.EventKind) {
        guard kind != .update, let seq, seq == lastSeenEvent + 1 else { return pumpEvents() }
        lastSeenEvent = seq
    }

    /// Delivers ledger events this process hasn't seen: its own updates, and everything another process did.
    func pumpEvents() {
        // With no one to deliver to, the events are passed over unread (a simulated year makes twelve thousand).
        guard !subscribers.isEmpty else {
            lastSeenEvent = max(lastSeenEvent, read(lastSeenEvent) { try ledger.lastEventSeq() })
            return
        }
        let events = read([]) { try ledger.events(after: lastSeenEvent) }
        for event in events {
            lastSeenEvent = event.seq
            guard event.kind == .update || (event.kind == .purchase && event.origin != origin),
                  let jws = try? ledger.jws(event.transactionID) else { continue }
            for subscriber in subscribers.values { subscriber.yield(present(jws)) }
        }
    }

    /// Stops renewing and delivering, and waits for a tick in progress: signing on another thread
    /// while the program exits crashes in OpenSSL's exit-time cleanup.
    public func shutdown() async {
        isShutDown = true
        poller?.cancel()
        await poller?.value
        stopPolling()
        ledger.integrityCheck?.stop()
        for subscriber in subscribers.values { subscriber.finish() }
        subscribers.removeAll()
    }

    // MARK: Transaction queries

    public func currentEntitlements() -> [String] {
        catchUp()
        let oneTime = read([], ledger.ownedOneTimeRows).compactMap(\.jws)
        let active = read([]) { try ledger.subscriptions() }.compactMap { $0.state.grantsAccess ? $0.latestTransactionID : nil }
        let tokens = read([:]) { try self.tokens(active) }
        let subscriptions = active.compactMap { tokens[$0] }
        return (oneTime + subscriptions).map(present)
    }

    public func allTransactions(limit: Int?) -> [String] {
        catchUp()
        return ((try? ledger.completedJWS(limit: limit)) ?? []).map(present)
    }

    public func transactionCount() -> Int {
        (try? ledger.completedCount()) ?? 0
    }

    public func unfinishedTransactions() -> [String] {
        read([], ledger.unfinishedRows).compactMap(\.jws).map(present)
    }

    public func finish(transactionID: Int64) {
        // A ledger that cannot stamp its writes (PostgreSQL) cannot describe them: one statement is enough.
        guard ledger.db.rowsWritten != nil else { try? ledger.setFinished(transactionID); return }
        // Described to the app: only the unfinished count changes, which `changes(since:)` reads anew.
        // Stamped in the same write, as `commit` is: one lock for the three statements.
        let stamps = try? ledger.db.transaction { () throws -> (ChangeStamp?, ChangeStamp?) in
            let from = try ledger.stamp()
            try ledger.setFinished(transactionID)
            return (from, try ledger.stamp())
        }
        if case let (from?, to?)? = stamps { record(from: from, to: to, transaction: nil) }
    }

    public func sync() async throws {
        try await simulateNetwork(.appStoreSync, delay: true)
        catchUp()
    }

    // MARK: Offer codes

    public func redeem(offerCode: String) async throws {
        catchUp()
        try await simulateNetwork(.offerCodeRedeem, delay: true)
        guard let code = catalog.offerCode(offerCode), let item = catalog.product(code.productID) else {
            throw StoreFailure.offerCode(.unknownCode)
        }
        let redemption = try OfferCodeRedemption(code: code, redemptions: ledger.redemptionCount(code: code.code),
                                                 isSoldInStorefront: item.prices[currentStorefront.code] != nil,
                                                 customer: customer(of: item), alreadyOwns: owns(item),
                                                 isSubscription: item.type == .autoRenewable)
        if let refusal = redemption.refusal(at: now()) { throw StoreFailure.offerCode(refusal) }
        if redemption.startsAtNextRenewal, let group = item.subscription?.groupID, var record = activeSubscription(group: group) {
            // Nothing is charged or delivered now: the subscription renews to the code's product, with its offer.
            record.offer = SubscriptionRecord.CarriedOffer(redeemed: redemption.offer, storefront: currentStorefront.code)
            record.autoRenewProductID = item.id
            record.willAutoRenew = true
            try ledger.db.transaction {
                try save(record, notifying: .offerRedeemedForNextRenewal(sameProduct: item.id == record.productID))
                try ledger.recordRedemption(code: code.code, transactionID: record.latestTransactionID)
            }
            return
        }
        // A code's offer is for one billing plan: the purchase is on that plan.
        let options = PurchaseOptions(billingPlan: redemption.offer.billingPlan)
        let payload = try newPayload(item, price: item.price(in: currentStorefront.code, on: options.billingPlan) ?? 0,
                                     options: options, offer: redemption.offer)
        try commit(payload, kind: .update, redeeming: code.code)
    }

    /// Who the customer is for a product, as offer codes see it: for a subscription, from their
    /// history in its group; for anything else, new until they own it.
    func customer(of item: CatalogProduct) throws -> CustomerEligibility {
        guard let group = item.subscription?.groupID else {
            return try item.type != .consumable && ledger.ownsOneTimeProduct(item.id) ? .existing : .new
        }
        return try OfferEligibility(history: ledger.subscriptions(group: group)).customer
    }

    /// Whether the customer owns the non-consumable, or holds an active subscription in the group.
    func owns(_ item: CatalogProduct) throws -> Bool {
        switch item.type {
        case .nonConsumable: try ledger.ownsOneTimeProduct(item.id)
        case .autoRenewable: item.subscription.map { activeSubscription(group: $0.groupID) != nil } ?? false
        default: false
        }
    }

    // MARK: Refund requests

    public func requestRefund(transactionID: Int64, reason: String) async throws -> RefundRequestOutcome {
        try await simulateNetwork(.refundRequest, delay: true)
        guard var row = try ledger.row(transactionID), row.status == .completed, !row.payload.isRevoked else {
            throw StoreFailure.refund(.failed)
        }
        if row.refundRequest == .pending { throw StoreFailure.refund(.duplicateRequest) }
        row.refundRequest = .pending
        try ledger.db.transaction {
            try ledger.update(row)
            try enqueueNotification(.refundRequested(row.payload.productType), transaction: row.payload, record: subscription(of: row))
        }
        if currentSettings.autoApproveRefunds { try decideRefundRequest(transactionID: transactionID, approve: true) }
        return .success
    }

    // MARK: Test controls

    public func settings() -> TestSettings { currentSettings }

    public func update(_ change: @Sendable (inout TestSettings) -> Void) {
        change(&currentSettings)
        if currentSettings.timeRate != clock.rate { setTimeRate(currentSettings.timeRate) }
        saveSettings()
    }

    func saveSettings() {
        let text = CatalogFormat.encode(currentSettings).compact
        try? ledger.setMeta("settings", text)
        sharedSettings = text
    }

    public func setStorefront(_ code: String, locale: String?) throws {
        guard let sf = catalog.storefront(code) else {
            throw TestControlError("unknown storefront \(code) (the catalog sells in \(catalog.storefronts.map(\.code).joined(separator: ", ")))")
        }
        currentStorefront = sf
        currentLocale = locale ?? sf.locale
        currentSettings.storefront = sf.code
        currentSettings.locale = currentLocale
        saveSettings()
    }

    public func ledgerEntries(limit: Int?) -> [LedgerEntry] {
        catchUp()
        let refunds = (try? ledger.upgradeRefunds()) ?? [:]
        let consumption = (try? ledger.consumptions()) ?? [:]
        return read([]) { try ledger.allRows(limit: limit) }.map {
            LedgerEntry(payload: $0.payload, status: $0.status, isFinished: $0.finished, refundRequest: $0.refundRequest, jws: $0.jws,
                        upgradeRefundMilliunits: refunds[$0.payload.transactionID],
                        consumption: consumption[$0.payload.transactionID].flatMap { try? JSONParser.parse($0) })
        }
    }

    func pendingRow(_ id: Int64, _ status: LedgerEntry.Status) throws -> Ledger.Row {
        guard let row = try ledger.row(id) else { throw TestControlError("no transaction \(id)") }
        guard row.status == status else { throw TestControlError("transaction \(id) is \(row.status.rawValue), not \(status.rawValue)") }
        return row
    }

    /// Completes a pending purchase; the app learns of it through updates. A pending plan change
    /// takes effect as the change would have when bought.
    func complete(_ row: Ledger.Row) throws {
        if let item = catalog.product(row.payload.productID), item.type == .autoRenewable, let change = try planChange(to: item) {
            let options = PurchaseOptions(quantity: row.payload.quantity, appAccountToken: row.payload.appAccountToken,
                                          billingPlan: row.payload.billingPlanType ?? .upFront)
            _ = try applyChange(change, to: item, options: options, offer: nil, kind: .update, pending: row.payload.transactionID)
            return
        }
        try commit(Checkout.completed(row.payload, at: now()), kind: .update, replacing: true)
    }

    public func approveAskToBuy(transactionID: Int64) throws {
        try complete(pendingRow(transactionID, .pendingApproval))
    }

    public func declineAskToBuy(transactionID: Int64) throws {
        var row = try pendingRow(transactionID, .pendingApproval)
        row.status = .declined
        try ledger.db.transaction {
            try ledger.update(row)
            try ledger.appendEvent(transactionID: transactionID, kind: .silent, origin: origin)
        }
    }

    public func resolveInterruptedPurchase(transactionID: Int64) throws {
        try complete(pendingRow(transactionID, .interrupted))
    }

    public func refund(transactionID: Int64, prorated: Bool) throws {
        guard prorated, let row = try ledger.row(transactionID), row.payload.expirationDate != nil else {
            return try revoke(transactionID, reason: .other, type: .refundFull, percentage: Proration.fullRefund)
        }
        let percentage = Proration(start: row.payload.purchaseDate, end: row.payload.expirationDate).revocationPercentage(at: now())
        try revoke(transactionID, reason: .other, type: .refundProrated, percentage: percentage)
    }

    public func revokeFamilySharing(transactionID: Int64) throws {
        try revoke(transactionID, reason: .other, type: .familyRevoke, percentage: nil)
    }

    public func decideRefundRequest(transactionID: Int64, approve: Bool) throws {
        guard var row = try ledger.row(transactionID), row.refundRequest == .pending else {
            throw TestControlError("transaction \(transactionID) has no pending refund request")
        }
        row.refundRequest = approve ? .approved : .declined
        try ledger.db.transaction {
            try ledger.update(row)
            if !approve { try enqueueNotification(.refundDeclined, transaction: row.payload, record: subscription(of: row)) }
        }
        if approve { try revoke(transactionID, reason: .other, type: .refundFull, percentage: Proration.fullRefund) }
    }

    /// Sets or clears a transaction's revocation and signs it again, to be delivered (unfinished) once more.
    private func resign(_ row: inout Ledger.Row, revoked: (reason: TransactionPayload.RevocationReason,
                                                          type: TransactionPayload.RevocationType, percentage: Int?)?) throws {
        row.payload.revocationDate = revoked == nil ? nil : now()
        row.payload.revocationReason = revoked?.reason
        row.payload.revocationType = revoked?.type
        row.payload.revocationPercentage = revoked?.percentage
        row.payload.signedDate = now()
        row.jws = asSigned(try sign(row.payload.json))
        row.finished = false
    }

    /// Marks a transaction revoked, re-signs it, ends its subscription, and tells the app through updates.
    func revoke(_ id: Int64, reason: TransactionPayload.RevocationReason, type: TransactionPayload.RevocationType, percentage: Int?) throws {
        guard var row = try ledger.row(id), row.status == .completed else { throw TestControlError("no completed transaction \(id)") }
        guard !row.payload.isRevoked else { throw TestControlError("transaction \(id) is already revoked") }
        try resign(&row, revoked: (reason, type, percentage))
        try ledger.db.transaction {
            try ledger.update(row)
            if var sub = try ledger.subscription(row.payload.originalTransactionID), sub.latestTransactionID == id {
                sub.state = .revoked
                sub.willAutoRenew = false
                try ledger.save(sub)
            }
            try enqueueNotification(type == .familyRevoke ? .familySharingRevoked : .refunded, transaction: row.payload,
                                    record: subscription(of: row))
            try ledger.appendEvent(transactionID: id, kind: .update, origin: origin)
        }
        pumpEvents()
    }

    /// Reverses a refund (the App Store does when a dispute goes the developer's way): the transaction
    /// is no longer revoked, a subscription it ended is reinstated until it expires, and the app is told.
    public func reverseRefund(transactionID id: Int64) throws {
        guard var row = try ledger.row(id), row.status == .completed else { throw TestControlError("no completed transaction \(id)") }
        guard row.payload.isRevoked, row.payload.revocationType != .familyRevoke else {
            throw TestControlError("transaction \(id) has no refund to reverse")
        }
        try resign(&row, revoked: nil)
        try ledger.db.transaction {
            try ledger.update(row)
            if var sub = try ledger.subscription(row.payload.originalTransactionID), sub.latestTransactionID == id, sub.state == .revoked {
                sub.state = sub.expirationDate > now() ? .subscribed : .expired
                try ledger.save(sub)
            }
            try enqueueNotification(.refundReversed, transaction: row.payload, record: subscription(of: row))
            try ledger.appendEvent(transactionID: id, kind: .update, origin: origin)
        }
        pumpEvents()
    }

    /// The subscription a transaction belongs to, when it is one.
    func subscription(of row: Ledger.Row) throws -> SubscriptionRecord? {
        row.payload.productType == .autoRenewable ? try ledger.subscription(row.payload.originalTransactionID) : nil
    }

    public func deleteTransaction(_ transactionID: Int64) throws {
        guard let row = try ledger.row(transactionID) else { throw TestControlError("no transaction \(transactionID)") }
        try ledger.db.transaction {
            try ledger.delete(transactionID)
            if let sub = try ledger.subscription(row.payload.originalTransactionID), sub.latestTransactionID == transactionID {
                try ledger.deleteSubscription(sub.originalID)
            }
        }
    }

    public func clearTransactions() throws {
        try ledger.db.transaction { try ledger.clear() }
    }

    public func buyOutsideApp(productID: String, familyShared: Bool) throws {
        guard let item = catalog.product(productID) else { throw TestControlError("unknown product \(productID)") }
        guard let price = item.prices[currentStorefront.code] else { throw StoreFailure.storeKit(.notAvailableInStorefront) }
        if familyShared, !item.isFamilyShareable { throw TestControlError("\(productID) is not family shareable") }
        // A family member's subscription stands beside the customer's own; the app grants the higher level.
        if item.type == .autoRenewable, !familyShared, let change = try planChange(to: item) {
            _ = try applyChange(change, to: item, options: PurchaseOptions(), offer: nil, kind: .update)
            return
        }
        var payload = try newPayload(item, price: price, options: PurchaseOptions(), offer: nil)
        if familyShared {
            // A family member's purchase is theirs: it starts its own original transaction.
            payload.ownership = .familyShared
            payload.originalTransactionID = payload.transactionID
            payload.originalPurchaseDate = payload.purchaseDate
        }
        try commit(payload, kind: .update)
    }

    public func reset() throws {
        try clearTransactions()
        currentSettings = catalog.settings
        try ledger.db.execute("DELETE FROM meta WHERE key IN ('settings', 'originalAppVersion', 'originalPurchaseDate', 'originalPlatform')")
        sharedSettings = nil
        let real = time.now()
        clock = StoreClock(rate: catalog.settings.timeRate, realAnchor: real, storeAnchor: real)
        saveClock()
        if let sf = catalog.storefront(catalog.settings.storefront ?? currentStorefront.code) { currentStorefront = sf }
        currentLocale = catalog.settings.locale ?? currentStorefront.locale
    }
}

extension LocalAppStore {
    /// A ledger read behind a non-throwing API: a damaged row cannot be shown, so it is recorded
    /// and reported through `damage()` rather than silently left out.
    /// A shared ledger out of reach is reported the same way until a read succeeds again.
    func read<T>(_ fallback: T, _ body: () throws -> T) -> T {
        do {
            let value = try body()
            ledgerOutOfReach = nil
            return value
        } catch {
            // Damage includes a page SQLite finds malformed (one the open's check has not reached yet, on a large ledger).
            if let error = error as? LedgerError {
                if !error.isDamage { ledgerOutOfReach = error } else if ledgerDamage == nil { ledgerDamage = error }
            }
            return fallback
        }
    }

    public func damage() -> String? {
        if ledgerDamage == nil, let found = ledger.integrityCheck?.damage { ledgerDamage = found }
        return ledgerDamage?.description ?? ledgerOutOfReach?.description
    }
}
