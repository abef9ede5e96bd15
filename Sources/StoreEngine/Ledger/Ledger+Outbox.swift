import Foundation
import StoreCore

/// The outbox of App Store Server Notifications V2. A row is written in the same write transaction
/// as the store event it tells of, with what the notification says at that moment; it is signed
/// (and given its UUID) when first read or sent, and the token kept. The transaction's payload is
/// not copied: the row names the transaction, and a trigger copies its payload into the row before
/// the transaction changes or goes, so the notification still says what it said when it was made
/// (a simulated year writes twelve thousand of these; copying every payload doubled its writing). Attempts and the next attempt's
/// date live in the row, so a restart resumes; a sender claims a row with a short lease under the
/// write lock, so two processes never make the same attempt.
extension Ledger {
    struct OutboxRow {
        var seq: Int64 = 0
        /// Given when first signed.
        var uuid: String?
        var type: String
        var subtype: String?
        var productID: String?
        var originalID: Int64?
        var transactionID: Int64?
        var created: Date
        var environment: String
        var transactionPayload: String?
        var renewalPayload: String?
        var status: Int?
        var testToken: String?
        var signed: String?
        var delivery: NotificationDelivery
        var attempts: [SendAttempt] = []
        var nextAttempt: Date?
        /// Fields of `data` beyond the transaction, renewal info and status (`consumptionRequestReason`), as a JSON object.
        var data: String?
    }

    /// Inserts a notification; its transaction's payload is read from the transaction (see above).
    func insertNotification(_ row: OutboxRow) throws {
        try db.queue("""
            INSERT INTO notifications(type, subtype, product_id, original_id, transaction_id, created, environment,
                renewal_payload, status, test_token, delivery, next_attempt)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [.text(row.type), text(row.subtype), text(row.productID), int(row.originalID),
                  int(row.transactionID), .int(Self.ms(row.created)), .text(row.environment),
                  text(row.renewalPayload), int(row.status.map(Int64.init)), text(row.testToken),
                  .text(row.delivery.rawValue), row.nextAttempt.map { .int(Self.ms($0)) } ?? .null])
        // Beside the row, in the same write transaction (which holds the write lock, so the newest row is this one).
        if let data = row.data {
            try db.queue("INSERT INTO notification_data(seq, fields) VALUES ((SELECT MAX(seq) FROM notifications), ?)", [.text(data)])
        }
        if row.delivery == .pending { outboxBell?.ring() }
    }

    /// Dates are kept as milliseconds since 1970, as signed data writes them.
    static func ms(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
    static func date(_ ms: Int64) -> Date { Date(timeIntervalSince1970: Double(ms) / 1000) }

    private func text(_ value: String?) -> SQLValue { value.map { .text($0) } ?? .null }
    private func int(_ value: Int64?) -> SQLValue { value.map { .int($0) } ?? .null }

    private static let outboxColumns = """
        seq, uuid, type, subtype, product_id, original_id, transaction_id, created, environment,
        COALESCE(transaction_payload, (SELECT payload FROM transactions WHERE id = transaction_id)),
        renewal_payload, status, test_token, signed, delivery, attempts, next_attempt,
        (SELECT fields FROM notification_data d WHERE d.seq = notifications.seq)
        """

    /// Notifications made between `since` and `until` (store time, inclusive), oldest first.
    func notifications(since: Date?, until: Date?, limit: Int?) throws -> [OutboxRow] {
        try outboxRows("""
            SELECT \(Self.outboxColumns) FROM notifications WHERE created >= ? AND created <= ? ORDER BY seq LIMIT ?
            """, [.int(since.map(Self.ms) ?? Int64.min),
                  .int(until.map(Self.ms) ?? Int64.max), .limit(limit)])
    }

    /// The newest `limit` notifications, newest first.
    func newestNotifications(limit: Int) throws -> [OutboxRow] {
        try outboxRows("SELECT \(Self.outboxColumns) FROM notifications ORDER BY seq DESC LIMIT ?", [.int(Int64(limit))])
    }

    /// Where a notification's delivery stands, without its payloads: a signed row whose state is as it
    /// was reads as it did (its token and what it tells never change once signed).
    struct OutboxState: Equatable {
        var seq: Int64
        var created: Date
        var delivery: NotificationDelivery?
        var attempts: Int
        var nextAttempt: Date?
        var isSigned: Bool
    }

    /// The states of the newest `limit` notifications, newest first.
    func newestNotificationStates(limit: Int) throws -> [OutboxState] {
        try db.query("""
            SELECT seq, created, delivery, attempts, next_attempt, CASE WHEN signed IS NULL THEN 0 ELSE 1 END
            FROM notifications ORDER BY seq DESC LIMIT ?
            """, [.int(Int64(limit))]).map { c in
            OutboxState(seq: c[0].int ?? 0, created: Self.date(c[1].int ?? 0), delivery: c[2].text.flatMap(NotificationDelivery.init(rawValue:)),
                        attempts: (c[3].text ?? "").split(separator: "\n").count, nextAttempt: c[4].int.map(Self.date), isSigned: c[5].int == 1)
        }
    }

    /// The notifications from `seq` on, newest first.
    func notifications(from seq: Int64) throws -> [OutboxRow] {
        try outboxRows("SELECT \(Self.outboxColumns) FROM notifications WHERE seq >= ? ORDER BY seq DESC", [.int(seq)])
    }

    func notification(seq: Int64) throws -> OutboxRow? {
        try outboxRows("SELECT \(Self.outboxColumns) FROM notifications WHERE seq = ?", [.int(seq)]).first
    }

    func notification(testToken: String) throws -> OutboxRow? {
        try outboxRows("SELECT \(Self.outboxColumns) FROM notifications WHERE test_token = ?", [.text(testToken)]).first
    }

    /// Keeps a notification's token and UUID; the first written win, so every reader gives the same.
    func setSignedPayload(_ jws: String, uuid: String, seq: Int64) throws -> (jws: String, uuid: String) {
        try db.query("UPDATE notifications SET signed = ?, uuid = ? WHERE seq = ? AND signed IS NULL", [.text(jws), .text(uuid), .int(seq)])
        let kept = try db.query("SELECT signed, uuid FROM notifications WHERE seq = ?", [.int(seq)]).first
        return (kept?[0].text ?? jws, kept?[1].text ?? uuid)
    }

    /// Takes up to `limit` notifications due by `storeNow`, oldest first, each on its own (one that
    /// keeps failing holds up no other, as with Apple), leasing them until `leaseUntil` (real time):
    /// another sender skips them meanwhile, and takes them over if this one dies.
    func claimDueNotifications(storeNow: Date, realNow: Date, leaseUntil: Date, limit: Int) throws -> [OutboxRow] {
        try db.transaction {
            let rows = try outboxRows("""
                SELECT \(Self.outboxColumns) FROM notifications WHERE delivery = 'pending' AND next_attempt <= ?
                AND (lease_until IS NULL OR lease_until < ?)
                ORDER BY seq LIMIT ?
                """, [.int(Self.ms(storeNow)), .int(Self.ms(realNow)), .int(Int64(limit))])
            for row in rows {
                try db.query("UPDATE notifications SET lease_until = ? WHERE seq = ?", [.int(Self.ms(leaseUntil)), .int(row.seq)])
            }
            return rows
        }
    }

    /// Records an attempt and what follows it: delivered, failed for good, or the next attempt's date.
    func recordAttempt(_ attempt: SendAttempt, seq: Int64, delivery: NotificationDelivery, nextAttempt: Date?) throws {
        try db.query("""
            UPDATE notifications SET attempts = attempts || ?, delivery = ?, next_attempt = ?, lease_until = NULL WHERE seq = ?
            """, [.text("\(Self.ms(attempt.date)) \(attempt.result)\n"), .text(delivery.rawValue),
                  nextAttempt.map { .int(Self.ms($0)) } ?? .null, .int(seq)])
    }

    /// Queues a notification to be sent at `date`, whatever became of it before (a resend, or "retry now").
    func requeueNotification(seq: Int64, at date: Date) throws {
        try db.query("UPDATE notifications SET delivery = 'pending', next_attempt = ?, lease_until = NULL WHERE seq = ?",
                     [.int(Self.ms(date)), .int(seq)])
        outboxBell?.ring()
    }

    private func outboxRows(_ sql: String, _ arguments: [SQLValue]) throws -> [OutboxRow] {
        try db.query(sql, arguments).map { c in
            guard let seq = c[0].int, let type = c[2].text, let created = c[7].int, let environment = c[8].text,
                  let delivery = c[14].text.flatMap(NotificationDelivery.init(rawValue:)) else {
                throw damagedRow("notifications", key: c[0].int, "a column is missing or unknown")
            }
            let attempts = (c[15].text ?? "").split(separator: "\n").compactMap { line -> SendAttempt? in
                let parts = line.split(separator: " ", maxSplits: 1)
                guard parts.count == 2, let ms = Int64(parts[0]) else { return nil }
                return SendAttempt(date: Self.date(ms), result: String(parts[1]))
            }
            return OutboxRow(seq: seq, uuid: c[1].text, type: type, subtype: c[3].text, productID: c[4].text, originalID: c[5].int,
                             transactionID: c[6].int, created: Self.date(created), environment: environment,
                             transactionPayload: c[9].text, renewalPayload: c[10].text, status: c[11].int.map(Int.init),
                             testToken: c[12].text, signed: c[13].text, delivery: delivery, attempts: attempts,
                             nextAttempt: c[16].int.map(Self.date), data: c[17].text)
        }
    }
}
