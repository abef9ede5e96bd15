import Foundation
import StoreCore
import StoreSigning

/// App Store Server Notifications V2: every store event leaves a notification in the ledger's
/// outbox, in the same write transaction as the event (see `Ledger+Outbox`). What it says is kept
/// at event time; the `responseBodyV2` token is signed when first read or sent, so neither a
/// purchase nor a simulated year pays for it.
extension LocalAppStore {
    // MARK: Making

    /// Records the notification `event` calls for (nothing when the App Store sends none). The caller
    /// holds the write transaction of the event itself, and has written the transaction as it is now.
    /// `transaction`: the transaction it is about (else the subscription's latest); `record`: the
    /// subscription after the event (its renewal info and status go in).
    func enqueueNotification(_ event: StoreEvent, transaction: TransactionPayload? = nil, record: SubscriptionRecord? = nil,
                             testToken: String? = nil, data: JSONValue? = nil) throws {
        guard let (type, subtype) = event.notification else { return }
        var transaction = transaction
        if transaction == nil, let record, let latest = try ledger.row(record.latestTransactionID) {
            transaction = latest.payload
        }
        let created = batch?.eventDate ?? now()
        let url = currentSettings.notificationURL
        var row = Ledger.OutboxRow(
            type: type.rawValue, subtype: subtype?.rawValue, productID: transaction?.productID ?? record?.productID,
            originalID: transaction?.originalTransactionID ?? record?.originalID, transactionID: transaction?.transactionID,
            created: created, environment: currentSettings.environment.rawValue,
            status: record.map { Self.statusCode($0.state) }, testToken: testToken,
            delivery: url == nil ? .notSent : .pending, nextAttempt: url == nil ? nil : created, data: data?.compact)
        // In a catch-up the renewal info is serialized on the signing core and the row written
        // before the catch-up commits: a simulated year makes twelve thousand of these.
        if let batch {
            let (terms, storefront, environment) = (terms, currentStorefront, currentSettings.environment)
            var renewalInfo: (@Sendable () -> String)?
            if let record { renewalInfo = { terms.renewalInfo(record, storefront: storefront, environment: environment, at: created).json.compact } }
            batch.hold(row, renewalInfo: renewalInfo)
            return
        }
        row.renewalPayload = record.map { renewalInfo($0).json.compact }
        try ledger.insertNotification(row)
    }

    /// The App Store Server API's subscription `status`.
    static func statusCode(_ state: SubscriptionState) -> Int {
        switch state {
        case .subscribed: 1
        case .expired: 2
        case .inBillingRetryPeriod: 3
        case .inGracePeriod: 4
        case .revoked: 5
        }
    }

    /// Saves a subscription record the renewal schedule or a tester moved on, with the notification the change makes.
    func save(_ record: SubscriptionRecord, from old: SubscriptionRecord) throws {
        try ledger.db.transaction {
            try ledger.save(record)
            try enqueueNotification(.stateChanged(from: old.state, to: record.state, reason: record.expirationReason), record: record)
        }
    }

    /// Saves a subscription record with the notification `event` makes, in one write.
    func save(_ record: SubscriptionRecord, notifying event: StoreEvent) throws {
        try ledger.db.transaction {
            try ledger.save(record)
            try enqueueNotification(event, record: record)
        }
    }

    // MARK: Reading

    /// Notifications made between `since` and `until` (store time, inclusive), oldest first.
    public func notifications(since: Date? = nil, until: Date? = nil, limit: Int? = nil) -> [StoreNotification] {
        catchUp()
        return read([]) { try ledger.notifications(since: since, until: until, limit: limit).map(notification) }
    }

    /// The notification `requestTestNotification` made for this token; nil when there is none.
    public func notification(testToken: String) -> StoreNotification? {
        read(nil) { try ledger.notification(testToken: testToken).map(notification) }
    }

    /// The newest `limit` notifications, newest first. Only those new or changed since the last call
    /// are read whole: the storefront asks after every purchase, and reading 300 rows with their tokens
    /// was most of its store work.
    public func recentNotifications(limit: Int) -> [StoreNotification] {
        read([]) {
            let states = try ledger.newestNotificationStates(limit: limit)
            var known = notificationsRead
            notificationsRead = [:]  // the only reference, so adding to it copies nothing
            if let oldestChanged = states.filter({ known[$0.seq].map(Self.state) != $0 }).map(\.seq).min() {
                for row in try ledger.notifications(from: oldestChanged) { known[row.seq] = try notification(row) }
            }
            let notifications = states.compactMap { known[$0.seq] }
            notificationsRead = Dictionary(uniqueKeysWithValues: notifications.map { ($0.sequence, $0) })
            return notifications
        }
    }

    /// What `Ledger.newestNotificationStates` reads for a notification read whole (signed, as every one read is).
    private static func state(_ n: StoreNotification) -> Ledger.OutboxState {
        .init(seq: n.sequence, created: n.createdDate, delivery: n.delivery, attempts: n.attempts.count, nextAttempt: n.nextAttemptDate, isSigned: true)
    }

    public func notification(sequence: Int64) -> StoreNotification? {
        read(nil) { try ledger.notification(seq: sequence).map(notification) }
    }

    /// Makes a TEST notification, as "Request a Test Notification" does; returns its `testNotificationToken`.
    public func requestTestNotification() throws -> String {
        let token = UUID().uuidString.lowercased() + "_" + String(Int64(now().timeIntervalSince1970 * 1000))
        try ledger.db.transaction { try enqueueNotification(.test, testToken: token) }
        return token
    }

    private func notification(_ row: Ledger.OutboxRow) throws -> StoreNotification {
        let (signedPayload, uuid) = try signedPayload(row)
        return StoreNotification(sequence: row.seq, uuid: uuid, type: row.type, subtype: row.subtype, productID: row.productID,
                          originalTransactionID: row.originalID, transactionID: row.transactionID, createdDate: row.created,
                          signedPayload: signedPayload, attempts: row.attempts, delivery: row.delivery,
                          nextAttemptDate: row.nextAttempt)
    }

    /// The notification's `responseBodyV2` token and UUID: made the first time it is asked for, then kept.
    func signedPayload(_ row: Ledger.OutboxRow) throws -> (jws: String, uuid: String) {
        if let signed = row.signed, let uuid = row.uuid { return (signed, uuid) }
        let uuid = UUID().uuidString.lowercased()
        // A mass extension's SUMMARY carries `summary` in place of `data`: the request's outcome, no app version or transaction.
        let isSummary = row.type == NotificationType.renewalExtension.rawValue && row.subtype == NotificationSubtype.summary.rawValue
        var data: [(key: String, value: JSONValue)] = [(key: "environment", value: .string(row.environment))]
        // Apple: appAppleId "isn't present in the sandbox environment".
        if let appAppleID = catalog.app.appAppleID, row.environment == StoreEnvironment.production.rawValue {
            data.append((key: "appAppleId", value: .number(String(appAppleID))))
        }
        data.append((key: "bundleId", value: .string(catalog.app.bundleID)))
        if !isSummary { data.append((key: "bundleVersion", value: .string(catalog.app.appVersion))) }
        if let payload = row.transactionPayload {
            data.append((key: "signedTransactionInfo", value: .string(try identity.signer.sign(payload: Data(payload.utf8)))))
        }
        if let payload = row.renewalPayload {
            data.append((key: "signedRenewalInfo", value: .string(try identity.signer.sign(payload: Data(payload.utf8)))))
        }
        if let status = row.status { data.append((key: "status", value: .number(String(status)))) }
        if case .object(let fields)? = row.data.flatMap({ try? JSONParser.parse($0) }) { data += fields }
        var body: [(key: String, value: JSONValue)] = [(key: "notificationType", value: .string(row.type))]
        if let subtype = row.subtype { body.append((key: "subtype", value: .string(subtype))) }
        body += [(key: "notificationUUID", value: .string(uuid)), (key: isSummary ? "summary" : "data", value: .object(data)),
                 (key: "version", value: "2.0"), (key: "signedDate", value: .number(String(Ledger.ms(row.created))))]
        let signed = try sign(.object(body))
        // A write that changes nothing an app reads: described, so that the app's next refresh after it
        // still reads only what changed (the storefront signs each new notification as it shows it, and
        // every purchase's refresh after that read everything).
        // Outside a write transaction only, as `commit` describes its own (one rolled back would leave an entry).
        let from = ledger.db.isInTransaction ? nil : try? ledger.stamp()
        let kept = try ledger.setSignedPayload(signed, uuid: uuid, seq: row.seq)
        if let from, let to = try? ledger.stamp() { record(from: from, to: to, transaction: nil, unfinishedChange: 0) }
        return kept
    }

    // MARK: Sending (the dispatcher in StoreServer drives these)

    /// Leases up to `limit` notifications due now, for `lease` seconds of real time (see `Ledger.claimDueNotifications`),
    /// with the URL to send them to; none while no URL is set.
    public func claimDueNotifications(limit: Int = 8, lease: TimeInterval = 30) -> (url: String, notifications: [StoreNotification])? {
        guard !isShutDown, let url = currentSettings.notificationURL else { return nil }
        catchUp()
        let real = time.now()
        let rows = read([]) {
            try ledger.claimDueNotifications(storeNow: now(), realNow: real, leaseUntil: real.addingTimeInterval(lease), limit: limit)
        }
        return (url, read([]) { try rows.map(notification) })
    }

    /// Records an attempt to send notification `sequence` with Apple's `result`; a failure is retried on the App Store's schedule.
    public func recordSendAttempt(sequence: Int64, result: String) {
        guard let row = read(nil, { try ledger.notification(seq: sequence) }) else { return }
        // Made when it was due: a jump in store time (`advance`) passes each retry's time, and the
        // App Store would have tried then; the next one is due after it, maybe already (one attempt a time).
        let attempt = SendAttempt(date: min(row.nextAttempt ?? now(), now()), result: result)
        // Failed attempts in a row, this one included: the first attempt and five retries, then it gives up.
        let failures = row.attempts.reversed().prefix { $0.result != SendAttempt.success }.count + 1
        let next = result == SendAttempt.success ? nil : RetrySchedule.nextAttempt(afterFailures: failures, lastAt: attempt.date, rate: clock.rate)
        let delivery: NotificationDelivery = result == SendAttempt.success ? .delivered : next == nil ? .failed : .pending
        read(()) { try ledger.recordAttempt(attempt, seq: sequence, delivery: delivery, nextAttempt: next) }
    }

    /// Sends a notification again now, whatever became of it ("retry now", or a resend).
    public func resendNotification(sequence: Int64) throws {
        guard try ledger.notification(seq: sequence) != nil else { throw TestControlError("no notification \(sequence)") }
        guard currentSettings.notificationURL != nil else { throw TestControlError("no notification URL is set (--notify URL)") }
        try ledger.requeueNotification(seq: sequence, at: now())
    }
}
