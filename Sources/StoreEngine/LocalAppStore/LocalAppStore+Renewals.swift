import Foundation
import StoreCore

/// Renewals on the store clock (see `RenewalScheduler`), time travel, and the tester's subscription controls.
extension LocalAppStore {
    // MARK: Time

    /// The renewal rules under the clock's rate and the tester's billing switches.
    var schedule: RenewalSchedule {
        RenewalSchedule(rate: clock.rate, billingRetryOnRenewal: currentSettings.billingRetryOnRenewal, gracePeriod: currentSettings.gracePeriod)
    }

    var scheduler: RenewalScheduler { RenewalScheduler(schedule: schedule, terms: terms) }

    public func advanceTime(by period: Period) throws {
        if let problem = SupportedDates.problem(advancing: now(), by: period) { throw TestControlError(problem) }
        // Under a time rate, the period's compressed length: time travel moves the same clock renewals follow.
        jump(to: schedule.end(of: period, from: now()))
    }

    /// The clock moves on by exactly `seconds`, uncompressed: the store time a recorded session spent
    /// at a fast time rate, replayed without waiting for it.
    public func advanceClock(by seconds: TimeInterval) throws {
        let end = now().addingTimeInterval(seconds)
        guard seconds >= 0, end <= SupportedDates.latest else {
            throw TestControlError("the store clock cannot go past \(SupportedDates.latestText) or back")
        }
        jump(to: end)
    }

    /// Time travel: the clock jumps, and everything that fell due on the way happens, in order.
    private func jump(to date: Date) {
        clock.advance(to: date, real: time.now())
        saveClock()
        catchUp()
        pumpEvents()
    }

    public func setTimeRate(_ rate: TimeRate) {
        clock.setRate(rate, real: time.now())
        currentSettings.timeRate = rate
        saveClock()
        saveSettings()
    }

    /// Processes every renewal, grace-period end, billing-retry end and expiry that is due, in order.
    func catchUp() {
        let now = now()
        // Most calls find nothing due: the earliest due date says so without looking at every record.
        guard let next = read(nil, ledger.nextDueDate), next <= now else { return }
        let scheduler = scheduler
        let due = scheduler.due(read([]) { try ledger.subscriptions() }, at: now)
        guard !due.isEmpty else { return }
        // One write transaction for the whole catch-up: a simulated year commits once, not per renewal.
        try? ledger.batch {
            let batch = CatchUpBatch(signer: identity.signer)
            self.batch = batch
            defer { self.batch = nil }
            for record in due {
                try scheduler.process(record, until: now, renew: { record, date in
                    batch.eventDate = date
                    return try renew(record, at: date)
                }, change: { next, old in
                    batch.eventDate = RenewalSchedule.dueDate(old).flatMap { $0 == .distantPast ? nil : min($0, now) }
                    try save(next, from: old)
                })
                // Between subscriptions: the next renewal of this one would look for its last in what was held.
                if batch.queued >= catchUpChunk { try write(batch) }
            }
            try write(batch)
        }
        pumpEvents()
    }

    /// Writes what a catch-up holds so far: its renewals, signed, and its notifications (still inside its transaction).
    private func write(_ batch: CatchUpBatch) throws {
        let (signatures, notifications) = try batch.take()
        for signed in signatures {
            // Broken as `asSigned` breaks a whole token's signature, while invalid signatures are on.
            ledger.setSignature(String(asSigned("." + signed.signature).dropFirst()), for: signed.id)
        }
        for row in notifications { try ledger.insertNotification(row) }
        try ledger.insertSignedRows()
    }

    /// A renewal: a new transaction on the same original ID, for the auto-renew product (a pending
    /// downgrade or crossgrade takes effect here), starting when the last period ended.
    /// `periodFrom`: where the new period starts, when not at `date` (a recovery within the grace period).
    func renew(_ record: SubscriptionRecord, at date: Date, periodFrom: Date? = nil) throws -> SubscriptionRecord {
        guard let item = catalog.product(record.autoRenewProductID), let last = try ledger.payload(record.latestTransactionID) else {
            var expired = record
            expired.state = .expired
            expired.expirationReason = .productUnavailable
            try save(expired, from: record)
            return expired
        }
        let scheduler = scheduler
        let plan = terms.renewalPlan(record, to: item) ?? .upFront
        let price = scheduler.price(of: record, to: item, on: plan, lastBoughtIn: last.storefront, storefront: currentStorefront.code)
        let new = try newPayload(item, price: price, options: PurchaseOptions(billingPlan: plan), offer: nil, originalID: record.originalID,
                                 originalDate: last.originalPurchaseDate, purchaseDate: date, reason: .renewal)
        let (payload, next) = scheduler.renewal(of: record, last: last, to: item, on: plan, payload: new, at: periodFrom ?? date)
        // What the renewal leaves of the offer is saved first, so its notification's renewal info says it.
        return try ledger.db.transaction {
            try ledger.save(next)
            try commit(payload, kind: .update)
            return try ledger.subscription(record.originalID) ?? next
        }
    }

    // MARK: Subscription test controls

    /// The subscription a tester control acts on (see `SubscriptionControls.target`).
    func record(forProduct productID: String, active: Bool = false) throws -> SubscriptionRecord {
        catchUp()
        guard let group = catalog.product(productID)?.subscription?.groupID else {
            throw TestControlError("\(productID) is not an auto-renewable subscription")
        }
        return try SubscriptionControls.target(productID, own: groupSubscription(group), inGroup: ledger.subscriptions(group: group),
                                               active: active)
    }

    /// Ends the subscription now: its latest transaction too expires now, as `SKTestSession.expireSubscription`
    /// changes it (an app comparing `expirationDate` with the time sees it end).
    public func expireSubscription(productID: String) throws {
        let old = try record(forProduct: productID, active: true)
        var record = old
        record.expire(at: now())
        try ledger.db.transaction {
            try endLatestTransaction(of: record, at: record.expirationDate)
            try save(record, from: old)
        }
    }

    /// Moves the subscription's latest transaction's expiration back to `date` and signs it again.
    private func endLatestTransaction(of record: SubscriptionRecord, at date: Date) throws {
        guard var row = try ledger.row(record.latestTransactionID), let expires = row.payload.expirationDate, expires > date else { return }
        row.payload.expirationDate = date
        row.payload.signedDate = now()
        row.jws = asSigned(try sign(row.payload.json))
        try ledger.update(row)
    }

    /// A renewal the tester asks for now. With renewals set to fail (billing retry on renewal), it fails as the
    /// clock's would: the period ends now and the subscription enters its grace period or billing retry.
    public func forceRenewal(productID: String) throws {
        let old = try record(forProduct: productID, active: true)
        var record = SubscriptionControls.forcedRenewal(old)
        if currentSettings.billingRetryOnRenewal, record.state == .subscribed {
            record.expirationDate = min(record.expirationDate, now())
            if case .change(let next, _)? = schedule.step(record, period: catalog.product(record.productID)?.subscription?.period, at: now()) {
                return try ledger.db.transaction {
                    try endLatestTransaction(of: next, at: record.expirationDate)
                    try save(next, from: old)
                }
            }
        }
        try renewNow(record)
    }

    /// A renewal the tester makes now (not the clock's): delivered to the app at once, as a catch-up's are.
    /// Purchased after the transaction it renews, to the millisecond signed dates keep, even when the
    /// store's clock has not moved since (a buy and a forced renewal in one millisecond were equal).
    /// The transaction it renews ends then, as `SKTestSession.forceRenewalOfSubscription` changes it.
    /// A billing issue resolved within the grace period renews from the old expiry: Apple: "There won't be
    /// any interruption to the subscriber's days of paid service" (in billing retry, service paused).
    private func renewNow(_ record: SubscriptionRecord) throws {
        let renewed = try ledger.row(record.latestTransactionID)?.payload.purchaseDate
        let date = max(now(), renewed.map { $0.addingTimeInterval(0.001) } ?? .distantPast)
        try ledger.db.transaction {
            try endLatestTransaction(of: record, at: date)
            _ = try renew(record, at: date, periodFrom: record.state == .inGracePeriod ? record.expirationDate : nil)
        }
        pumpEvents()
    }

    public func setAutoRenew(productID: String, enabled: Bool) throws {
        let record = try SubscriptionControls.autoRenew(record(forProduct: productID, active: true), enabled: enabled)
        try save(record, notifying: .autoRenewChanged(enabled: enabled))
    }

    public func requestPriceIncrease(productID: String) throws {
        let record = try record(forProduct: productID, active: true)
        let last = try ledger.row(record.latestTransactionID)
        let storefront = last?.payload.storefront ?? currentStorefront.code
        let listed = catalog.product(record.productID)?.price(in: storefront, on: record.billingPlan ?? .upFront)
        let increase = try SubscriptionControls.priceIncreaseRequested(record, listed: listed.map(Self.milliunits),
                                                                       currency: last?.payload.currency ?? currentStorefront.currency)
        guard increase != record else { return }  // the one waiting, asked again: nothing new to tell the backend
        try save(increase, notifying: .priceIncreaseRequested)
    }

    public func respondToPriceIncrease(productID: String, agree: Bool) throws {
        let record = try SubscriptionControls.priceIncreaseAnswered(record(forProduct: productID), agree: agree)
        try save(record, notifying: agree ? .priceIncreaseAccepted : .autoRenewChanged(enabled: false))
    }

    public func resolveBillingIssue(productID: String) throws {
        try renewNow(SubscriptionControls.billingIssue(record(forProduct: productID), productID: productID))
    }

    /// The same, for the subscription a transaction belongs to (by its original transaction); nothing
    /// once it has left billing retry (Apple's header says the call then has no effect).
    public func resolveBillingIssue(originalTransactionID: Int64) throws {
        catchUp()
        guard let record = try ledger.subscriptions().first(where: { $0.originalID == originalTransactionID }) else {
            throw TestControlError("no subscription has original transaction \(originalTransactionID)")
        }
        guard record.state.isInBillingRetry else { return }
        try renewNow(SubscriptionControls.billingIssue(record, productID: record.productID))
    }
}
