import Foundation
import StoreCore

/// What the App Store Server API records: consumption information a backend sent, and renewal-date
/// extensions (by the backend's request ID, so a retried request extends once).
extension Ledger {
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
        try db.query("SELECT original_id, web_order_line_item_id, effective FROM renewal_extensions WHERE request_id = ?", [.text(requestID)])
            .first.map { columns in
                LocalAppStore.RenewalExtension(originalTransactionID: columns[0].int ?? 0, webOrderLineItemID: columns[1].text,
                                               effectiveDate: Date(timeIntervalSince1970: Double(columns[2].int ?? 0) / 1000))
            }
    }

    func renewalExtensionCount(originalTransactionID: Int64, since date: Date) throws -> Int {
        Int(try db.query("SELECT COUNT(*) FROM renewal_extensions WHERE original_id = ? AND effective >= ?",
                         [.int(originalTransactionID), .int(date.milliseconds)]).first?.first?.int ?? 0)
    }

    func recordRenewalExtension(_ extension: LocalAppStore.RenewalExtension, requestID: String, days: Int, reasonCode: Int) throws {
        try db.query("""
            INSERT INTO renewal_extensions(request_id, original_id, days, reason, effective, web_order_line_item_id) VALUES (?, ?, ?, ?, ?, ?)
            """, [.text(requestID), .int(`extension`.originalTransactionID), .int(Int64(days)), .int(Int64(reasonCode)),
                  .int(`extension`.effectiveDate.milliseconds), `extension`.webOrderLineItemID.map { .text($0) } ?? .null])
    }
}

extension Date {
    /// Milliseconds since 1970, as the App Store's JSON and the ledger's date columns hold them.
    var milliseconds: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }
}
