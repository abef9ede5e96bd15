import Foundation
import StoreCore
import StoreSigning
import Locking

/// The embedded simulated App Store: a ledger that survives a crash, a clock that can run fast, a signer, and
/// StoreKit's rules for purchases, Ask to Buy, interrupted purchases, offers, codes, refunds and
/// subscriptions. It plays Apple's part only: it hands out signed data and never decides what
/// the app unlocks.
public actor LocalAppStore: TransactionSource, StoreTestControls {
    public nonisolated let catalog: Catalog
    public nonisolated let identity: StoreIdentity
    /// Rung when a notification may have fallen due (see `OutboxBell`): what a sender waits on.
    public nonisolated let outboxBell = OutboxBell()
    let ledger: Ledger
    /// Read-only connections beside `ledger`, for the Server API's reads that need no actor (see `LedgerReaders`).
    nonisolated let serverReaders: LedgerReaders?
    let time: any RealTimeSource
    /// What subscriptions renew to, for the app's install (`AppTransaction`; one per ledger).
    let terms: RenewalTerms
    var clock: StoreClock
    var currentSettings: TestSettings
    var currentStorefront: Storefront
    var currentLocale: String
    var isShutDown = false
    /// Other processes' writes to the same ledger, and the ticks that follow them.
    var follower: LedgerFollower
    /// How often a tick comes: for renewals falling due, and other processes' commits no wake told of.
    var tickInterval: Duration = .milliseconds(250)
    /// The app's `Transaction.updates` listeners, and how far the ledger's events were read.
    var delivery: UpdateDelivery
    /// Signs what the store hands out, and keeps what it signed and read (see `SignedDataPresenter`).
    var presenter: SignedDataPresenter
    /// The notifications `recentNotifications` read last, by sequence.
    var notificationsRead: [Int64: StoreNotification] = [:]
    /// The ledger writes this store can describe to an app (see `changes(since:)`).
    var journal = ChangeJournal()
    /// What went wrong reading the ledger (see `read`).
    var health = LedgerHealth()
    /// Set during a catch-up: renewals are signed beside it, and its notifications held, until it commits.
    var batch: CatchUpBatch?
    /// How many renewals a catch-up holds before it writes them (tests make it small).
    var catchUpChunk = CatchUpBatch.chunk
    /// Purchases begun on the App Store that the app has not taken yet (`sendPurchaseIntent`).
    var pendingPurchaseIntents: [PurchaseIntentRequest] = []
    /// The app's order and visibility for its promoted products (`Product.PromotionInfo`); in memory, as a device keeps it.
    var promotions: [PromotionOverride] = []

    /// Opens a store. `stateDirectory` nil keeps everything in memory (`--ephemeral`); `ledger` nil is the
    /// state directory's; a PostgreSQL one holds the ledger and the signing identity instead (the state directory is not used).
    public init(catalog: Catalog, stateDirectory: String?, ledger location: LedgerLocation? = nil, storefront: String? = nil,
                locale: String? = nil, time: any RealTimeSource = SystemTime(), numbering: TransactionNumbering = .appStore) throws {
        self.catalog = catalog
        self.time = time
        // Damage SQLite meets here that the open's quick check missed is the ledger's (`LedgerError.damaged`).
        do {
            (ledger, identity) = try Ledger.open(location ?? .stateDirectory(stateDirectory), stateDirectory: stateDirectory)
            ledger.numbering = numbering
            ledger.outboxBell = outboxBell
            serverReaders = LedgerReaders(ledger.location, tokenPrefix: ledger.tokenPrefix)
            // What the tester changed last time wins over the catalog's defaults, until a reset.
            var settings = catalog.settings
            // Settings that are not JSON are damage; ones the catalog no longer has room for (a storefront
            // taken out of it) give way to the catalog's.
            if let saved = try ledger.meta("settings", as: "a JSON object of settings", Self.settingsJSON),
               let restored = try? CatalogFormat.decodeSettings(saved, storefronts: catalog.storefronts, file: "ledger") {
                settings = restored
            }
            currentSettings = settings
            let real = time.now()
            clock = StoreClock(rate: settings.timeRate, realAnchor: real, storeAnchor: real)
            if let restored = try ledger.meta("clock", as: "a store clock", StoreClock.init(text:)) { clock = restored }
            guard let place = catalog.place(storefront: storefront, locale: locale, settings: settings) else {
                throw StoreFailure.storeKit(.notAvailableInStorefront)
            }
            (currentStorefront, currentLocale) = place
            delivery = UpdateDelivery(lastSeenEvent: try ledger.lastEventSeq())
            let appTransactionID = try ledger.meta("appTransactionID") {
                String(UInt64.random(in: 700_000_000_000_000_000...799_999_999_999_999_999))
            }
            guard UInt64(appTransactionID) != nil else {
                throw LedgerError.damagedRow(path: ledger.path ?? ":memory:", table: "meta", key: "appTransactionID",
                                             detail: "its value is not an app transaction ID")
            }
            terms = RenewalTerms(catalog: catalog, appTransactionID: appTransactionID)
            presenter = SignedDataPresenter(signer: identity.signer)
            let sharedSettings = try ledger.meta("settings")
            let clockText = String(decoding: try JSONEncoder().encode(clock), as: UTF8.self)
            try ledger.setMeta("clock", clockText)
            follower = LedgerFollower(clock: clockText, settings: sharedSettings)
        }
    }

    /// Saved settings as JSON: an object, else nil (damage).
    static func settingsJSON(_ text: String) -> JSONValue? {
        guard let json = try? JSONParser.parse(text), case .object = json else { return nil }
        return json
    }

    /// A store dropped without `shutdown()` (a test, an error path) still ends its listening thread and connection.
    deinit { follower.wake?.stop() }

    public nonisolated var certificate: Certificate { identity.certificate }

    /// The app's install, as `AppTransaction` identifies it.
    public var appTransactionID: String { terms.appTransactionID }

    // MARK: Clock

    public func now() -> Date { clock.now(real: time.now()) }

    func saveClock() {
        let text = String(decoding: (try? JSONEncoder().encode(clock)) ?? Data(), as: UTF8.self)
        try? ledger.setSharedMeta("clock", text)
        follower.wrote(clock: text)
    }

    /// Takes up the clock and settings another process on the ledger saved since (a tester moving time
    /// or switching Ask to Buy in the storefront while `serve` answers a backend, or a second storefront):
    /// one store, one clock, one set of switches. Read at every tick, so a change arrives within a second.
    func adoptSharedState() {
        let (clockText, settingsText) = read((nil, nil)) { (try ledger.meta("clock"), try ledger.meta("settings")) }
        if let moved = follower.movedClock(clockText) { clock = moved }
        guard follower.settingsChanged(settingsText) else { return }
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
        try checkPurchaseDate(options, of: item)
        var promotion: SignedPromotion?
        if let requested = options.promotionalOffer, let signature = requested.signature, item.subscription != nil {
            promotion = try self.promotion(signature, productID: productID, offerID: requested.id, appAccountToken: options.appAccountToken)
        }
        let eligibility = try options.introductoryOfferEligibility.map { try introductoryOfferEligibility($0, productID: productID) }
        let offer = try offerFor(item, options: options, promotion: promotion, introductoryOffer: eligibility?.allowIntroductoryOffer)
        // Buying what the customer already has gets it again for free: the existing transaction, no charge, no new row.
        if let owned = try alreadyPurchased(item) {
            guard answer == .confirm else { return .userCancelled }
            if item.type == .autoRenewable, var current = try planChange(to: item)?.current {
                // Apple: a customer who "subscribes again after canceling a subscription" re-enables auto-renew.
                if !current.willAutoRenew {
                    current.setAutoRenew(true)
                    try save(current, notifying: .autoRenewChanged(enabled: true))
                }
                try callOffChange(current, keeping: item.id)
                if let offer, offer.type == .promotional, let nonce = promotion?.nonce { try carryToNextRenewal(offer, of: item, nonce: nonce) }
            }
            return .success(jws: present(owned))
        }
        guard answer == .confirm else { return .userCancelled }
        try await simulateNetwork(.purchase, delay: true)
        // The offer's signatures are used here, after the purchase's last wait and before its write: another
        // purchase with the same one (another task, another process on the ledger) finds it used, and is refused.
        for nonce in [promotion?.nonce, eligibility?.nonce].compactMap({ $0 }) {
            guard try ledger.useNonce(nonce) else { throw StoreFailure.purchase(.invalidOfferSignature) }
        }

        let change = item.type == .autoRenewable ? try planChange(to: item) : nil
        let pending = Checkout.hold(currentSettings, options)
        if pending != nil, options.purchaseDate != nil {
            throw TestControlError("purchase date: a purchase held for Ask to Buy or interrupted completes when it is resolved, "
                                   + "not at a date given: turn those off for it")
        }
        // A plan change asks for approval too; it takes effect when it completes (see `complete`).
        if let change, pending == nil { return try applyChange(change, to: item, options: options, offer: offer) }
        let payload = try newPayload(item, price: price, options: options, offer: offer)
        if let pending {
            try commit(payload, kind: .silent, status: pending)
            return .pending(pending == .pendingApproval ? .askToBuy : .interrupted)
        }
        let committed: String?
        do {
            committed = try commitPurchase(payload, kind: .purchase, options: options)
        } catch StoreFailure.purchase(.purchaseNotAllowed) {
            // Another process sold it a moment ago, under the write lock: this customer owns it now.
            guard let owned = try alreadyPurchased(item) else { throw StoreFailure.purchase(.purchaseNotAllowed) }
            return .success(jws: present(owned))
        }
        guard let jws = committed else { throw StoreFailure.storeKit(.unknown) }
        return .success(jws: present(jws))
    }

    /// The most renewals a dated purchase may bring until now (a year of monthly ones is 12; a date months
    /// back under a fast time rate would be hundreds of thousands, in one write that holds the store).
    static let datedPurchaseRenewalLimit = 1000

    /// A test's purchase date (`.purchaseDate(_:renewalBehavior:)`) starts the purchase then: now or in the past
    /// and, for a subscription, starting one after the group's last (the app's purchase also refuses it when held).
    func checkPurchaseDate(_ options: PurchaseOptions, of item: CatalogProduct) throws {
        guard let date = options.purchaseDate else { return }
        catchUp()  // what the group's subscription is now, renewals due included
        func refused(_ why: String) -> TestControlError { TestControlError("purchase date \(date.formatted(.iso8601)): \(why)") }
        if date > now() { throw refused("it is in the future (the store's clock reads \(now().formatted(.iso8601))): pass a date in the past or now") }
        guard let terms = item.subscription else { return }
        if let current = groupSubscription(terms.groupID), let latest = try ledger.row(current.latestTransactionID)?.payload {
            if current.isActive { throw refused("the customer is subscribed in \(terms.groupID): a dated purchase starts a subscription, it does not change one") }
            let lapsed = latest.expirationDate ?? latest.purchaseDate
            if date < lapsed { throw refused("it is before the group's last subscription ended (\(lapsed.formatted(.iso8601))): pass a later date") }
        }
        guard options.renewsAfterFirstPeriod, clock.rate.renewalLimit == nil else { return }
        let period = terms.billingPeriod(on: options.billingPlan)
        var (end, periods) = (date, 0)
        while end < now(), periods <= Self.datedPurchaseRenewalLimit { (end, periods) = (schedule.end(of: period, from: end), periods + 1) }
        if periods > Self.datedPurchaseRenewalLimit {
            throw refused("more than \(Self.datedPurchaseRenewalLimit) renewals until now at the time rate \(clock.rate.name): "
                          + "set the time rate to real time (SKTestSession.timeRate = .realTime) or pass a later date")
        }
    }

    /// Commits a purchase; one dated with `.cancelImmediately` has auto-renew off in the same write, so no
    /// catch-up (another process's either) renews its first period, and the app never sees it renewing.
    func commitPurchase(_ payload: TransactionPayload, kind: Ledger.EventKind, options: PurchaseOptions, redeeming code: String? = nil) throws -> String? {
        guard options.purchaseDate != nil, !options.renewsAfterFirstPeriod, let group = payload.subscriptionGroupID else {
            return try commit(payload, kind: kind, redeeming: code)
        }
        let jws = try ledger.db.transaction { () throws -> String? in
            let jws = try commit(payload, kind: kind, redeeming: code)
            // The group's newest subscription is the one just started: no other commit comes under this write lock.
            if var started = try ledger.subscriptions(group: group).max(by: { $0.latestTransactionID < $1.latestTransactionID }), started.willAutoRenew {
                started.willAutoRenew = false
                try save(started, notifying: .autoRenewChanged(enabled: false))
            }
            return jws
        }
        pumpEvents()
        return jws
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
                if payload.originalTransactionID == Self.provisionalID { payload.originalTransactionID = id }
                payload.transactionID = id
            }
            // Each subscription purchase event's own, from the ID it completes as (a held upgrade takes its request's).
            if payload.webOrderLineItemID != nil { payload.webOrderLineItemID = String(payload.transactionID + 1_000_000_000) }
            if payload.productType == .nonConsumable, payload.ownership == .purchased, !replacing,
               try ledger.ownsOneTimeProduct(payload.productID) {
                throw code == nil ? StoreFailure.purchase(.purchaseNotAllowed) : StoreFailure.offerCode(.alreadyOwned)
            }
            payload.signedDate = now()
            let text = payload.json.compact
            var jws: String?
            if status == .completed, let batch {
                batch.sign(text, for: payload.transactionID)
            } else if status == .completed {
                jws = asSigned(try identity.signer.sign(payload: Data(text.utf8)))
            }
            // The store signer's token over exactly `text`: the row keeps its signature.
            try ledger.insert(.init(payload: payload, status: status, finished: false, jws: jws), payloadJSON: text,
                              signature: jws.map(Ledger.signature(of:)), signedLater: status == .completed && batch != nil)
            if status == .completed {
                let (previous, record) = payload.productType == .autoRenewable ? try startOrExtendSubscription(with: payload) : (nil, nil)
                try enqueueNotification(.transaction(payload.productType, isRenewal: payload.reason == .renewal, offer: payload.offerType,
                                                     previous: previous, upgrade: upgrade),
                                        transaction: payload, record: record)
            }
            if let code { try ledger.recordRedemption(code: code, transactionID: payload.transactionID) }
            event = try ledger.appendEvent(transactionID: payload.transactionID, kind: kind, origin: delivery.origin)
            return jws
        }
        if let from = stamps.from, let to = stamps.to, let jws { record(from: from, to: to, transaction: jws, unfinishedChange: 1) }
        // Inside a batch (a catch-up, an upgrade) the batch delivers once it has committed.
        if !ledger.db.isInTransaction { pumpEvents(after: event, of: kind) }
        return jws
    }

    /// A new payload's ID until `commit` allocates the real one under the write lock: one no transaction
    /// has (Xcode's numbering starts at 0), so a payload whose original is still it starts a new subscription.
    static let provisionalID: Int64 = -1

    func newPayload(_ item: CatalogProduct, price: Decimal, options: PurchaseOptions, offer: SubscriptionOffer?,
                    originalID: Int64? = nil, originalDate: Date? = nil, purchaseDate: Date? = nil,
                    reason: TransactionPayload.Reason = .purchase) throws -> TransactionPayload {
        let id = Self.provisionalID
        let date = purchaseDate ?? options.purchaseDate ?? now()
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

    private static let knownMilliunits = Locked<[Decimal: Int64]>([:])

    // MARK: Signing and handing out

    func sign(_ json: JSONValue) throws -> String { try presenter.sign(json) }

    /// A token as the store makes it now (see `SignedDataPresenter.asSigned`).
    func asSigned(_ jws: String) -> String { SignedDataPresenter.asSigned(jws, injected) }

    /// What the app receives (see `SignedDataPresenter.present`).
    func present(_ jws: String) -> String { presenter.present(jws, injected) }

}

extension LocalAppStore {
    /// A ledger read behind a non-throwing API: a damaged row cannot be shown, so it is recorded
    /// and reported through `damage()` rather than silently left out.
    /// A shared ledger out of reach is reported the same way until a read succeeds again.
    func read<T>(_ fallback: T, _ body: () throws -> T) -> T {
        do {
            let value = try body()
            health.readSucceeded()
            return value
        } catch {
            health.readFailed(error)
            return fallback
        }
    }

    public func damage() -> String? {
        health.checked(ledger.integrityCheck?.damage)
        return health.description
    }

    /// The first full disk the ledger met since the last call: a purchase that failed for it reports
    /// only StoreKit's `systemError`, which does not say what to free.
    public func takeDiskFull() -> LedgerError? { ledger.db.takeDiskFull() }

    /// Runs `body` on the ledger's connection (tests: to make its disk full).
    func withLedgerDatabase<T>(_ body: (any LedgerDatabase) throws -> T) rethrows -> T { try body(ledger.db) }
}
