import Foundation
import StoreCore

/// What a backend keeps at the App Store through the Server API, apart from transactions: one kind
/// of record each, stored as the API's JSON (the server checks it; the store keeps and hands it back).
public enum ServerRecordKind: String, Sendable {
    /// Retention messaging: images (PNG, base64), messages, default messages by product and locale,
    /// the realtime URL, performance tests by request ID.
    case image, message, defaultMessage, realtimeURL, performanceTest
    /// Mass renewal-date extensions by product and request ID, with their outcome.
    case massExtension
    /// The team's In-App Purchase keys by key ID: the public key and issuer ID (see `LocalAppStore+TeamKeys`).
    case inAppPurchaseKey
}

extension LocalAppStore {
    public func serverRecord(_ kind: ServerRecordKind, id: String) -> String? {
        read(nil) { try ledger.serverRecord(kind, id: id) }
    }

    public func serverRecords(_ kind: ServerRecordKind) -> [(id: String, value: String)] {
        read([]) { try ledger.serverRecords(kind) }
    }

    public func putServerRecord(_ kind: ServerRecordKind, id: String, value: String) throws {
        try ledger.db.transaction { try ledger.putServerRecord(kind, id: id, value: value) }
    }

    /// Whether there was one to delete.
    public func deleteServerRecord(_ kind: ServerRecordKind, id: String) throws -> Bool {
        try ledger.db.transaction { try ledger.deleteServerRecord(kind, id: id) }
    }

    public enum AppAccountTokenFailure: Error, Equatable, Sendable {
        case notFound, notOriginalTransaction, familyShared
    }

    /// Set App Account Token: the original transaction carries `token` from now on, and so do a
    /// subscription's renewal info and the renewals after it (they take the subscription's token).
    public func setAppAccountToken(originalTransactionID: Int64, token: UUID) throws {
        catchUp()
        guard var row = try ledger.row(originalTransactionID), row.status == .completed else { throw AppAccountTokenFailure.notFound }
        guard row.payload.originalTransactionID == originalTransactionID else { throw AppAccountTokenFailure.notOriginalTransaction }
        guard row.payload.ownership != .familyShared else { throw AppAccountTokenFailure.familyShared }
        row.payload.appAccountToken = token
        row.payload.signedDate = now()
        row.jws = asSigned(try sign(row.payload.json))
        var record = try ledger.subscription(originalTransactionID)
        record?.appAccountToken = token
        try ledger.db.transaction {
            try ledger.update(row)
            if let record { try ledger.save(record) }
        }
    }

    /// Extend Subscription Renewal Dates for All Active Subscribers: each active subscription to
    /// `productID` bought in one of `storefronts` (all when nil) is extended as one extension would be
    /// (and notified, RENEWAL_EXTENDED); one that may not be counts as failed (RENEWAL_EXTENSION
    /// FAILURE). Complete at once, told by RENEWAL_EXTENSION SUMMARY, as Apple tells it when done, and kept
    /// (`massExtension`, by product and request ID) for its status. A request ID seen before does nothing
    /// again: checked and kept with no wait between, so two retries at once cannot both run.
    public func extendRenewalDates(productID: String, days: Int, reasonCode: Int, requestID: String, storefronts: Set<String>?) throws {
        let key = productID + "/" + requestID
        guard try ledger.serverRecord(.massExtension, id: key) == nil else { return }
        catchUp()
        var succeeded = 0, failed = 0
        for record in try ledger.subscriptions() where record.productID == productID && record.isActive {
            if let storefronts, let row = try ledger.row(record.latestTransactionID), !storefronts.contains(row.payload.storefront) { continue }
            do {
                _ = try extendRenewalDate(originalTransactionID: record.originalID, days: days, reasonCode: reasonCode,
                                          requestID: "\(requestID)/\(record.originalID)")
                succeeded += 1
            } catch is RenewalExtensionFailure {
                failed += 1
                try ledger.db.transaction { try enqueueNotification(.renewalExtensionFailed, record: record) }
            }
        }
        var summary: [(key: String, value: JSONValue)] = [("requestIdentifier", .string(requestID)), ("productId", .string(productID))]
        if let storefronts { summary.append(("storefrontCountryCodes", .array(storefronts.sorted().map { .string($0) }))) }
        summary += [("succeededCount", .number(String(succeeded))), ("failedCount", .number(String(failed)))]
        let status: JSONValue = ["requestIdentifier": .string(requestID), "complete": .bool(true),
                                 "completeDate": .number(String(Ledger.ms(now()))),
                                 "succeededCount": .number(String(succeeded)), "failedCount": .number(String(failed))]
        try ledger.db.transaction {
            try enqueueNotification(.renewalExtensionSummary, data: .object(summary))
            try ledger.putServerRecord(.massExtension, id: key, value: status.compact)
        }
    }
}

extension LocalAppStore {
    /// A Retention Messaging realtime request's `signedPayload` for a subscription, signed with the
    /// store's identity as notifications are (Apple's `verify_and_decode_realtime_request` reads it);
    /// nil when `originalTransactionID` is no subscription of the customer's.
    public func signedRealtimeRequest(originalTransactionID: Int64, locale: String) throws -> String? {
        guard let record = try ledger.subscription(originalTransactionID) else { return nil }
        let payload: JSONValue = [
            "originalTransactionId": .string(String(originalTransactionID)),
            "appAppleId": .number(String(catalog.app.appAppleID ?? 0)), "productId": .string(record.productID),
            "userLocale": .string(locale), "requestIdentifier": .string(UUID().uuidString.lowercased()),
            "signedDate": .number(String(now().milliseconds)), "environment": .string(currentSettings.environment.rawValue),
        ]
        return try identity.signer.sign(payload: Data(payload.compact.utf8))
    }
}
