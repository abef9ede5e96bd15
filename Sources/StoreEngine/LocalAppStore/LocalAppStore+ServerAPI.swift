import Foundation
import StoreCore

/// What the App Store Server API reads and changes (`storefront serve`): Apple's server side of the
/// same store, read as another process on the same ledger. It hands out the store's signed data as
/// stored, never the app-side copies `present` may break on purpose.
extension LocalAppStore {
    /// One completed transaction as the server API lists it.
    public struct ServerTransaction: Sendable {
        public var payload: TransactionPayload
        public var jws: String
        /// Whether the app (or the backend, Finish Transaction) finished it.
        public var finished: Bool
    }

    /// A customer's subscription as Get All Subscription Statuses reports it.
    public struct ServerSubscription: Sendable {
        public var groupID: String
        public var originalTransactionID: Int64
        public var state: SubscriptionState
        public var signedTransaction: String
        public var signedRenewalInfo: String
    }

    public enum RenewalExtensionFailure: Error, Equatable, Sendable {
        case notFound, notOriginalTransaction, familyShared, ineligible, tooManyExtensions
    }

    public struct RenewalExtension: Sendable, Equatable {
        public var originalTransactionID: Int64
        public var webOrderLineItemID: String?
        public var effectiveDate: Date
    }

    public var bundleID: String { catalog.app.bundleID }
    public var appAppleID: Int64? { catalog.app.appAppleID }
    public var environment: String { currentSettings.environment.rawValue }

    /// Every completed transaction, oldest first: the customer's history, which the API filters and pages.
    public func serverHistory() -> [ServerTransaction] {
        catchUp()
        return read([]) { try ledger.rows("SELECT \(Ledger.columns) FROM transactions WHERE status = 'completed' ORDER BY id") }
            .compactMap { row in row.jws.map { ServerTransaction(payload: row.payload, jws: $0, finished: row.finished) } }
    }

    /// Where a page of the history starts or ends: a transaction's `signedDate` in milliseconds, then its ID.
    public struct HistoryPosition: Sendable {
        public var date: Int64
        public var id: Int64
        public init(date: Int64, id: Int64) { (self.date, self.id) = (date, id) }
    }

    /// Up to `size` completed transactions that `matches`, after `position` in the order they were
    /// last signed (then by ID), ascending or descending, and whether more follow. Read through the
    /// ledger's index of that order a chunk at a time, so a page costs the same at 1k transactions as
    /// at 1M (reading all of them took 80 ms at 1k); only the rows read are decoded and given tokens.
    public func serverHistoryPage(after position: HistoryPosition?, ascending: Bool, size: Int,
                                  where matches: (ServerTransaction) -> Bool) -> (items: [ServerTransaction], hasMore: Bool) {
        catchUp()
        var after = position ?? (ascending ? HistoryPosition(date: .min, id: .min) : HistoryPosition(date: .max, id: .max))
        var found: [ServerTransaction] = []
        let chunk = size + 1
        while found.count <= size {
            let rows = read([]) { try ledger.historyRows(after: after.date, after.id, ascending: ascending, limit: chunk) }
            for row in rows {
                guard let jws = row.jws else { continue }
                let transaction = ServerTransaction(payload: row.payload, jws: jws, finished: row.finished)
                if matches(transaction) { found.append(transaction) }
            }
            guard rows.count == chunk, let last = rows.last else { break }
            after = HistoryPosition(date: Int64((last.payload.signedDate.timeIntervalSince1970 * 1000).rounded()), id: last.payload.transactionID)
        }
        return (Array(found.prefix(size)), found.count > size)
    }

    public func serverTransaction(id: Int64) -> ServerTransaction? {
        catchUp()
        guard let row = read(nil, { try ledger.row(id) }), row.status == .completed, let jws = row.jws else { return nil }
        return ServerTransaction(payload: row.payload, jws: jws, finished: row.finished)
    }

    /// Get Transaction Info's answer: a completed transaction's token, nil when there is none. Read beside the
    /// actor, on the caller's thread, when the ledger is a SQLite file (see `LedgerReaders`): a token is what
    /// was signed, and the renewals a catch-up would add are new transactions, with IDs no client knows yet.
    public nonisolated func serverSignedTransaction(id: Int64) async -> String? {
        if let readers = serverReaders, let token = readers.read({ try $0.completedToken(id) }) { return token }
        return await serverTransaction(id: id)?.jws
    }

    /// Whether `id` identifies this customer, as "any transaction ID" does for Apple's server: one of
    /// their transactions, an original transaction, or their app transaction.
    public func identifiesCustomer(_ id: Int64) -> Bool {
        String(id) == appTransactionID || serverTransaction(id: id) != nil
    }

    /// Every subscription in every group, with its status now.
    public func serverSubscriptions() throws -> [ServerSubscription] {
        catchUp()
        return try ledger.subscriptions().compactMap { record in
            guard let jws = try ledger.jws(record.latestTransactionID) else { return nil }
            return ServerSubscription(groupID: record.groupID, originalTransactionID: record.originalID, state: record.state,
                                      signedTransaction: jws, signedRenewalInfo: try signedRenewalInfo(record))
        }
    }

    /// Extend a Subscription Renewal Date: moves an active subscription's renewal `days` later, at most
    /// twice a year per subscription, and answers the new expiry as its `effectiveDate`, as Apple does.
    /// A request ID seen before answers as it did, extending nothing again.
    public func extendRenewalDate(originalTransactionID: Int64, days: Int, reasonCode: Int, requestID: String) throws -> RenewalExtension {
        catchUp()
        if let earlier = try ledger.renewalExtension(requestID: requestID) { return earlier }
        guard var record = try ledger.subscription(originalTransactionID) else {
            if let row = try ledger.row(originalTransactionID), row.payload.originalTransactionID != originalTransactionID {
                throw RenewalExtensionFailure.notOriginalTransaction
            }
            throw RenewalExtensionFailure.notFound
        }
        guard !record.familyShared else { throw RenewalExtensionFailure.familyShared }
        // Apple: not eligible are subscriptions "in a free offer period", in billing retry, in a grace period
        // (its expiration date is past), and expired ones.
        guard record.state == .subscribed, var latest = try ledger.row(record.latestTransactionID), let expiration = latest.payload.expirationDate,
              latest.payload.offerPaymentMode != .freeTrial else {
            throw RenewalExtensionFailure.ineligible
        }
        let yearAgo = now().addingTimeInterval(-365 * 86_400)
        guard try ledger.renewalExtensionCount(originalTransactionID: originalTransactionID, since: yearAgo) < 2 else {
            throw RenewalExtensionFailure.tooManyExtensions
        }
        let extended = Calendar.gregorianUTC.date(byAdding: .day, value: days, to: expiration) ?? expiration
        latest.payload.expirationDate = extended
        latest.payload.signedDate = now()
        latest.jws = asSigned(try sign(latest.payload.json))
        record.expirationDate = extended
        let result = RenewalExtension(originalTransactionID: originalTransactionID, webOrderLineItemID: latest.payload.webOrderLineItemID,
                                      effectiveDate: extended)
        try ledger.db.transaction {
            try ledger.update(latest)
            try ledger.save(record)
            try ledger.recordRenewalExtension(result, requestID: requestID, days: days, reasonCode: reasonCode, at: now())
            try enqueueNotification(.renewalExtended, transaction: latest.payload, record: record)
        }
        return result
    }

    /// Send Consumption Information: what the developer says about a refund request, kept for the tester to see.
    public func recordConsumption(transactionID: Int64, information: JSONValue) throws {
        try ledger.recordConsumption(transactionID: transactionID, information: information.compact, at: now())
    }

    /// The consumption information a backend sent for a transaction, as sent; nil when none was.
    public func consumption(transactionID: Int64) -> JSONValue? {
        read(nil) { try ledger.consumption(transactionID: transactionID).flatMap { try? JSONParser.parse($0) } }
    }
}

extension Calendar {
    static let gregorianUTC: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()
}

extension LocalAppStore {
    /// Get App Transaction Info: the customer's app transaction, signed now.
    public func serverAppTransaction() throws -> String {
        try sign(appTransactionPayload().json)
    }
}
