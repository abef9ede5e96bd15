import Foundation
import StoreCore

/// What the App Store Server API records: consumption information a backend sent, renewal-date
/// extensions (by the backend's request ID, so a retried request extends once, answered as before;
/// `effective` is when it was asked for), and the backend's own records.
extension Ledger {
    /// Up to `limit` completed transactions after (`date`, `id`) in the history's order, through its
    /// index (`transactions_history`): `date` is `signedDate` in milliseconds.
    func historyRows(after date: Int64, _ id: Int64, ascending: Bool, limit: Int) throws -> [Row] {
        try rows(Self.historySQL(db.engine, ascending: ascending), [.int(date), .int(id), .int(Int64(limit))])
    }

    static func historySQL(_ engine: LedgerEngine, ascending: Bool) -> String {
        let signed = LedgerSchema.signedDate(SQLDialect(engine: engine))
        let (direction, comparison) = ascending ? ("ASC", ">") : ("DESC", "<")
        return """
            SELECT \(columns) FROM transactions
            WHERE status = 'completed' AND (\(signed), id) \(comparison) (?, ?)
            ORDER BY \(signed) \(direction), id \(direction) LIMIT ?
            """
    }

    func recordConsumption(transactionID: Int64, information: String, at date: Date) throws {
        try db.query("""
            INSERT INTO consumption(transaction_id, information, received) VALUES (?, ?, ?)
            ON CONFLICT(transaction_id) DO UPDATE SET information = excluded.information, received = excluded.received
            """, [.int(transactionID), .text(information), .int(date.milliseconds)])
    }

    func consumption(transactionID: Int64) throws -> String? {
        try db.query("SELECT information FROM consumption WHERE transaction_id = ?", [.int(transactionID)]).first?.first?.text
    }

    /// Every transaction's consumption information, by transaction ID (a few rows: one per refund request answered).
    func consumptions() throws -> [Int64: String] {
        var all: [Int64: String] = [:]
        for columns in try db.query("SELECT transaction_id, information FROM consumption") {
            if let id = columns[0].int, let text = columns[1].text { all[id] = text }
        }
        return all
    }

    func renewalExtension(requestID: String) throws -> LocalAppStore.RenewalExtension? {
        try db.query("""
            SELECT r.original_id, r.web_order_line_item_id, COALESCE(a.effective, r.effective)
            FROM renewal_extensions r LEFT JOIN renewal_extension_answers a ON a.request_id = r.request_id WHERE r.request_id = ?
            """, [.text(requestID)])
            .first.map { columns in
                LocalAppStore.RenewalExtension(originalTransactionID: columns[0].int ?? 0, webOrderLineItemID: columns[1].text,
                                               effectiveDate: Date(timeIntervalSince1970: Double(columns[2].int ?? 0) / 1000))
            }
    }

    func renewalExtensionCount(originalTransactionID: Int64, since date: Date) throws -> Int {
        Int(try db.query("SELECT COUNT(*) FROM renewal_extensions WHERE original_id = ? AND effective >= ?",
                         [.int(originalTransactionID), .int(date.milliseconds)]).first?.first?.int ?? 0)
    }

    func recordRenewalExtension(_ extension: LocalAppStore.RenewalExtension, requestID: String, days: Int, reasonCode: Int, at date: Date) throws {
        try db.query("""
            INSERT INTO renewal_extensions(request_id, original_id, days, reason, effective, web_order_line_item_id) VALUES (?, ?, ?, ?, ?, ?)
            """, [.text(requestID), .int(`extension`.originalTransactionID), .int(Int64(days)), .int(Int64(reasonCode)),
                  .int(date.milliseconds), `extension`.webOrderLineItemID.map { .text($0) } ?? .null])
        try db.query("INSERT INTO renewal_extension_answers(request_id, effective) VALUES (?, ?)",
                     [.text(requestID), .int(`extension`.effectiveDate.milliseconds)])
    }

    // MARK: The Server API's own records (see `ServerRecordKind`)

    func serverRecord(_ kind: ServerRecordKind, id: String) throws -> String? {
        try db.query("SELECT value FROM server_records WHERE kind = ? AND id = ?", [.text(kind.rawValue), .text(id)]).first?.first?.text
    }

    /// Every record of a kind, by ID.
    func serverRecords(_ kind: ServerRecordKind) throws -> [(id: String, value: String)] {
        try db.query("SELECT id, value FROM server_records WHERE kind = ? ORDER BY id", [.text(kind.rawValue)]).compactMap { columns in
            guard let id = columns[0].text, let value = columns[1].text else { return nil }
            return (id, value)
        }
    }

    func putServerRecord(_ kind: ServerRecordKind, id: String, value: String) throws {
        try db.query("""
            INSERT INTO server_records(kind, id, value) VALUES (?, ?, ?)
            ON CONFLICT(kind, id) DO UPDATE SET value = excluded.value
            """, [.text(kind.rawValue), .text(id), .text(value)])
    }

    /// Whether there was one to delete.
    func deleteServerRecord(_ kind: ServerRecordKind, id: String) throws -> Bool {
        !(try db.query("DELETE FROM server_records WHERE kind = ? AND id = ? RETURNING id", [.text(kind.rawValue), .text(id)]).isEmpty)
    }
}

extension Date {
    /// Milliseconds since 1970, as the App Store's JSON and the ledger's date columns hold them.
    var milliseconds: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }
}
