import Foundation
import StoreCore
import StoreSigning

extension Ledger {
    // MARK: Transactions

    struct Row {
        var payload: TransactionPayload
        var status: LedgerEntry.Status
        var finished: Bool
        var jws: String?
        var refundRequest: RefundRequestStatus?
    }

    /// A new transaction ID, never one used before in this ledger (`numbering`: but for Xcode's, after a clear).
    /// The caller holds the write lock.
    func nextTransactionID() throws -> Int64 {
        // Inside a batch, after its first: the batch's own rows are the newest (it holds the write lock).
        if let highest = batchHighestID { return highest + 1 }
        let id: Int64
        // Inside a write on PostgreSQL the others' commits are known without a round trip.
        let others = db.commitsAtBegin != nil ? try db.dataVersion() : nil
        if let begun = db.commitsAtBegin, let known = highestIDAfterCommit, known.others == others, begun >= known.commits {
            id = known.id + 1
        } else {
            // One statement for both: on PostgreSQL every statement is a round trip.
            let highest = try db.query("""
                SELECT MAX(id) FROM transactions UNION ALL SELECT CAST(value AS BIGINT) FROM meta WHERE key = 'highestDeletedID'
                """).compactMap { $0.first?.int }
            id = max(highest.max() ?? numbering.beforeFirst, numbering.beforeFirst) + 1
        }
        if let begun = db.commitsAtBegin, let others { highestIDAfterCommit = (others, begun + 1, id) }
        if batchRows != nil { batchHighestID = id - 1 }
        return id
    }

    /// The high-water mark of IDs no longer in `transactions`, kept by whatever deletes rows (in
    /// the same write transaction), so purchases pay nothing for it.
    private func highestDeletedID() throws -> Int64 {
        try meta("highestDeletedID").flatMap { Int64($0) } ?? 0
    }

    private func rememberIDsBeforeDeleting() throws {
        let stored = try db.query("SELECT MAX(id) FROM transactions").first?.first?.int
        guard let highest = [stored, batchHighestID].compactMap({ $0 }).max(), highest > (try highestDeletedID()) else { return }
        try setMeta("highestDeletedID", String(highest))
    }

    /// Inserts a row; `payloadJSON` is the payload already serialized for signing, so it isn't built twice.
    /// `signature`: the stored form of the row's token, when the store signer just made it over exactly
    /// `payloadJSON` (see `stored`), so the payload is not encoded again to find it.
    /// `signedLater` (inside `batch`): the row waits in memory for its signature (`setSignature`) and is
    /// inserted with it when the batch ends, rather than inserted and then updated; until then it has no token.
    func insert(_ row: Row, payloadJSON: String? = nil, signature: String? = nil, signedLater: Bool = false) throws {
        let id = row.payload.transactionID
        batchRows?[id] = row
        if let highest = batchHighestID { batchHighestID = max(highest, id) }
        if db.commitsAtBegin != nil, let known = highestIDAfterCommit { highestIDAfterCommit?.id = max(known.id, id) }
        if signedLater, batchRows != nil {
            unsignedRows.append((id, payloadJSON ?? row.payload.json.compact))
            return
        }
        try db.queue(Self.insertSQL, values(row, payloadJSON: payloadJSON, signature: signature))
    }

    private static let insertSQL = """
        INSERT INTO transactions(id, original_id, product_id, product_type, status, finished, revoked, payload, jws, refund_request)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    func update(_ row: Row) throws {
        batchRows?[row.payload.transactionID] = row
        try db.query("""
            UPDATE transactions SET original_id = ?2, product_id = ?3, product_type = ?4, status = ?5, finished = ?6,
                revoked = ?7, payload = ?8, jws = ?9, refund_request = ?10 WHERE id = ?1
            """, values(row))
    }

    /// `signature`: the stored form of a token the store signed over exactly `payloadJSON` (else the row's own token's).
    private func values(_ row: Row, payloadJSON: String? = nil, signature: String? = nil) -> [SQLValue] {
        let payload = payloadJSON ?? row.payload.json.compact
        let jws = signature ?? row.jws.map { stored($0, payload: payload) }
        return [.int(row.payload.transactionID), .int(row.payload.originalTransactionID), .text(row.payload.productID),
                .text(row.payload.productType.rawValue), .text(row.status.rawValue), .int(row.finished ? 1 : 0),
                .int(row.payload.isRevoked ? 1 : 0), .text(payload), jws.map { .text($0) } ?? .null,
                row.refundRequest.map { .text($0.rawValue) } ?? .null]
    }

    /// The signature alone when `jws` is the store's token over exactly `payload`; else the whole token.
    func stored(_ jws: String, payload: String) -> String {
        let signed = tokenPrefix + Base64URL.encode(Array(payload.utf8)) + "."
        guard jws.hasPrefix(signed) else { return jws }
        return String(jws.utf8.dropFirst(signed.utf8.count))!
    }

    /// What follows a token's last dot: what `stored` keeps of a token the store signed over exactly
    /// its row's payload, found without encoding the payload again.
    static func signature(of jws: String) -> String {
        var jws = jws
        return jws.withUTF8 { token in
            let start = token.lastIndex(of: UInt8(ascii: ".")).map { $0 + 1 } ?? 0
            return String(decoding: UnsafeBufferPointer(rebasing: token[start...]), as: UTF8.self)
        }
    }

    /// The token from its stored form (see `stored`).
    func token(_ stored: String, payload: String) -> String {
        // Bytes, not `contains(".")`: Foundation's string search was a twentieth of a refresh.
        guard !stored.utf8.contains(UInt8(ascii: ".")) else { return stored }
        // Made at its size: appended piece by piece, a token's storage grew to twice its length, and an
        // app launching onto thousands of unfinished transactions holds every one at once.
        let encoded = Base64URL.encode(Array(payload.utf8))
        var token = String()
        token.reserveCapacity(tokenPrefix.utf8.count + encoded.utf8.count + 1 + stored.utf8.count)
        token += tokenPrefix
        token += encoded
        token += "."
        token += stored
        return token
    }

    static let columns = """
        payload, status, CASE WHEN EXISTS (SELECT 1 FROM unfinished u WHERE u.id = transactions.id) THEN 0 ELSE 1 END,
        jws, refund_request, id
        """

    func row(_ id: Int64) throws -> Row? {
        if let row = batchRows?[id] { return row }
        return try rows("SELECT \(Self.columns) FROM transactions WHERE id = ?", [.int(id)]).first
    }

    /// A transaction's payload, without rebuilding its token (a renewal reads the one before it).
    func payload(_ id: Int64) throws -> TransactionPayload? {
        if let row = batchRows?[id] { return row.payload }
        guard let text = try db.query("SELECT payload FROM transactions WHERE id = ?", [.int(id)]).first?.first?.text else { return nil }
        guard let json = try? JSONParser.parse(text), let payload = TransactionPayload(json: json) else {
            throw damagedRow("transactions", key: id, "its payload is not a transaction")
        }
        return payload
    }

    /// A transaction's token, without decoding its payload.
    func jws(_ id: Int64) throws -> String? {
        if let row = batchRows?[id] { return row.jws }
        guard let columns = try db.query("SELECT jws, payload FROM transactions WHERE id = ?", [.int(id)]).first,
              let stored = columns[0].text else { return nil }
        return token(stored, payload: columns[1].text ?? "")
    }

    /// Tokens by transaction ID, read a hundred at a time (a refresh wants every subscription's).
    func jws(_ ids: [Int64]) throws -> [Int64: String] {
        var tokens: [Int64: String] = [:]
        var unread: [Int64] = []
        for id in ids {
            if let row = batchRows?[id] { tokens[id] = row.jws } else { unread.append(id) }
        }
        let chunk = 100
        for start in stride(from: 0, to: unread.count, by: chunk) {
            // Padded to a whole chunk with its last ID, so one prepared statement serves every read.
            let ids = Array(unread[start..<min(start + chunk, unread.count)])
            let padded = ids + Array(repeating: ids.last!, count: chunk - ids.count)
            // The payload (a kilobyte each) is read only for the tokens not rebuilt already.
            let sql = "SELECT id, jws FROM transactions WHERE id IN (" + Array(repeating: "?", count: chunk).joined(separator: ", ") + ")"
            for columns in try db.query(sql, padded.map { .int($0) }) {
                guard let id = columns[0].int, let stored = columns[1].text else { continue }
                tokens[id] = try rebuiltToken(id, stored: stored)
            }
        }
        return tokens
    }

    /// The token of row `id` from its stored form, rebuilt once while the row is unchanged (see `rebuiltTokens`).
    /// The payload is read with the stored form the caller just read: a statement outside a read transaction
    /// sees the ledger as it is then, and a commit between the two reads (a refund, another process's)
    /// would pair the new payload with the old signature. Then the row is read whole again.
    func rebuiltToken(_ id: Int64, stored: String) throws -> String {
        try keptToken(id, stored: stored) {
            if let payload = try db.query("SELECT payload FROM transactions WHERE id = ? AND jws = ?", [.int(id), .text(stored)]).first?.first?.text {
                return try checkedToken(stored, payload: payload, id: id)
            }
            guard let row = try db.query("SELECT jws, payload FROM transactions WHERE id = ?", [.int(id)]).first, let now = row[0].text else {
                throw RowChanged()
            }
            return try checkedToken(now, payload: row[1].text, id: id)
        }
    }

    /// A row deleted, or left without a token, between two reads: the caller reads again.
    struct RowChanged: Error {}

    /// Row `id`'s token as `rebuild` makes it, made once while the row's stored form is unchanged (see `rebuiltTokens`).
    private func keptToken(_ id: Int64, stored: String, rebuild: () throws -> String) rethrows -> String {
        if let rebuilt = rebuiltTokens[id], rebuilt.stored == stored { return rebuilt.token }
        let token = try rebuild()
        if rebuiltTokens.count >= rebuiltTokenLimit { rebuiltTokens = [:] }
        rebuiltTokens[id] = (stored, token)
        return token
    }

    /// The token from its stored form, read without its row: a payload that is not a transaction (`{}`)
    /// would make a token no verifier accepts, so it is damage, as in `rows`.
    private func checkedToken(_ stored: String, payload: String?, id: Int64?) throws -> String {
        guard let payload, let json = try? JSONParser.parse(payload), TransactionPayload(json: json) != nil else {
            throw damagedRow("transactions", key: id, "its payload is not a transaction")
        }
        return token(stored, payload: payload)
    }

    /// Rows of `columns`; one that does not decode is an error naming it, never a row silently left out.
    func rows(_ sql: String, _ arguments: [SQLValue] = []) throws -> [Row] {
        try rows(sql, arguments, decode: { text, _ in Self.decode(text) }, token: { stored, text, _ in token(stored, payload: text) })
    }

    private static func decode(_ text: String) -> TransactionPayload? {
        (try? JSONParser.parse(text)).flatMap(TransactionPayload.init(json:))
    }

    /// `decode` reads a row's payload from its JSON and ID; `token` makes its token from the stored form, the JSON and the ID.
    private func rows(_ sql: String, _ arguments: [SQLValue], decode: (String, Int64?) -> TransactionPayload?,
                      token: (String, String, Int64?) -> String) throws -> [Row] {
        try db.query(sql, arguments).map { columns in
            guard let text = columns[0].text, let payload = decode(text, columns[5].int) else {
                throw damagedRow("transactions", key: columns[5].int, "its payload is not a transaction")
            }
            guard let status = columns[1].text.flatMap(LedgerEntry.Status.init(rawValue:)) else {
                throw damagedRow("transactions", key: columns[5].int, "unknown status \(columns[1].text ?? "NULL")")
            }
            return Row(payload: payload, status: status, finished: columns[2].int == 1, jws: columns[3].text.map { token($0, text, columns[5].int) },
                       refundRequest: try columns[4].text.map {
                           guard let status = RefundRequestStatus(rawValue: $0) else {
                               throw damagedRow("transactions", key: columns[5].int, "unknown refund request status \($0)")
                           }
                           return status
                       })
        }
    }

    func damagedRow(_ table: String, key: Int64?, _ detail: String) -> LedgerError {
        .damagedRow(path: path ?? ":memory:", table: table, key: key.map(String.init) ?? "?", detail: detail)
    }

    func allRows(limit: Int? = nil) throws -> [Row] {
        let sql = "SELECT \(Self.columns) FROM transactions ORDER BY id DESC LIMIT ?"
        guard let limit, limit <= 1000 else { return try rows(sql, [.limit(limit)]) }
        var decoded: [Int64: (json: String, payload: TransactionPayload)] = [:]
        decoded.reserveCapacity(limit)
        let rows = try rows(sql, [.limit(limit)], decode: { text, id in
            guard let id else { return Self.decode(text) }
            if let kept = decodedNewest[id], kept.json == text { decoded[id] = kept; return kept.payload }
            let payload = Self.decode(text)
            if let payload { decoded[id] = (text, payload) }
            return payload
        }, token: { stored, text, id in
            guard let id else { return token(stored, payload: text) }
            return keptToken(id, stored: stored) { token(stored, payload: text) }
        })
        decodedNewest = decoded
        return rows
    }

    /// Signed completed transactions, newest first, without decoding their payloads.
    func completedJWS(limit: Int?) throws -> [String] {
        // A refresh's history: its tokens are rebuilt once, not at every refresh.
        if let limit, limit <= 1000 {
            return try db.query("SELECT id, jws FROM transactions WHERE status = 'completed' ORDER BY id DESC LIMIT ?", [.limit(limit)])
                .compactMap { columns in try columns[1].text.map { try rebuiltToken(columns[0].int ?? 0, stored: $0) } }
        }
        return try db.query("SELECT jws, payload, id FROM transactions WHERE status = 'completed' ORDER BY id DESC LIMIT ?", [.limit(limit)])
            .compactMap { columns in try columns[0].text.map { try checkedToken($0, payload: columns[1].text, id: columns[2].int) } }
    }

    /// Where the ledger stands: another connection's commit or a write of this one moves it.
    func stamp() throws -> ChangeStamp {
        ChangeStamp(version: try db.dataVersion(), written: db.ownChanges)
    }

    func completedCount() throws -> Int {
        let pending = db.engine == .sqlite ? "" : " + \(Self.pendingCompletedChange)"
        return Int(try db.query("SELECT n\(pending) FROM completed_count").first?.first?.int ?? 0)
    }

    /// How many unfinished transactions `LocalAppStore.unfinishedTransactions` gives (those with a token), counted without decoding them.
    func unfinishedCount() throws -> Int {
        Int(try db.query("""
            SELECT COUNT(*) FROM transactions WHERE id IN (SELECT id FROM unfinished) AND status = 'completed' AND jws IS NOT NULL
            """).first?.first?.int ?? 0)
    }

    func unfinishedRows() throws -> [Row] {
        try rows("SELECT \(Self.columns) FROM transactions WHERE id IN (SELECT id FROM unfinished) AND status = 'completed' ORDER BY id")
    }

    /// The tokens of unfinished completed transactions by ID, at most `limit` after ID `after`, not
    /// decoded (a launch redelivers thousands; a damaged payload makes a token the app's verify refuses).
    func unfinishedTokens(after: Int64, limit: Int) throws -> [(id: Int64, jws: String)] {
        try db.query("""
            SELECT id, jws, payload FROM transactions WHERE id IN (SELECT id FROM unfinished) AND status = 'completed' AND id > ?
            ORDER BY id LIMIT ?
            """, [.int(after), .int(Int64(limit))]).compactMap { columns in
            guard let id = columns[0].int else { return nil }
            return (id, columns[1].text.map { token($0, payload: columns[2].text ?? "") } ?? "")
        }
    }

    /// The non-consumables the customer owns (bought and family-shared both) and the latest purchase of
    /// each non-renewing subscription, not revoked (subscriptions come from `subscriptions`): a
    /// non-renewing subscription bought again is entitled by its newest transaction only.
    func ownedOneTimeRows() throws -> [Row] {
        try rows("""
            SELECT \(Self.columns) FROM transactions WHERE product_type IN ('nonConsumable', 'nonRenewing')
            AND status = 'completed' AND revoked = 0
            AND (product_type = 'nonConsumable' OR id IN (SELECT MAX(id) FROM transactions WHERE product_type = 'nonRenewing'
                                                          AND status = 'completed' AND revoked = 0 GROUP BY product_id))
            ORDER BY id
            """)
    }

    /// The customer's purchase of a non-consumable or non-renewing subscription they own (bought, not revoked).
    func ownedOneTimeRow(_ productID: String) throws -> Row? {
        try rows("""
            SELECT \(Self.columns) FROM transactions WHERE product_id = ? AND product_type IN ('nonConsumable', 'nonRenewing')
            AND status = 'completed' AND revoked = 0 ORDER BY id LIMIT 1
            """, [.text(productID)]).first
    }

    /// Whether a non-consumable or non-renewing subscription is owned (bought, not revoked).
    func ownsOneTimeProduct(_ productID: String) throws -> Bool {
        try !db.query("""
            SELECT 1 FROM transactions WHERE product_id = ? AND product_type IN ('nonConsumable', 'nonRenewing')
            AND status = 'completed' AND revoked = 0 LIMIT 1
            """, [.text(productID)]).isEmpty
    }

    /// Gives a row inserted `signedLater` its token's signature: the token is the store signer's over
    /// exactly the row's payload JSON, so the signature is what the row stores of it (see `stored`).
    func setSignature(_ signature: String, for id: Int64) {
        signatures[id] = signature
    }

    /// Inserts the rows waiting for their signatures, in the order they were made, and lets them go:
    /// from then on the batch reads them from the ledger, as its own uncommitted writes.
    func insertSignedRows() throws {
        for (id, payload) in unsignedRows {
            guard let row = batchRows?[id] else { continue }  // deleted in the batch
            try db.queue(Self.insertSQL, values(row, payloadJSON: payload, signature: signatures[id]))
            batchRows?[id] = nil
        }
        (unsignedRows, signatures) = ([], [:])
    }

    /// Finishes transaction `id`; whether it was among those `unfinishedCount` counts. PostgreSQL says so in
    /// the same statement (one round trip); SQLite's RETURNING builds a temporary table for its row, which
    /// cost more than asking first (an app's purchase was about 4% slower with it).
    @discardableResult
    func setFinished(_ id: Int64) throws -> Bool {
        let counted = "(SELECT COUNT(*) FROM transactions t WHERE t.id = unfinished.id AND t.status = 'completed' AND t.jws IS NOT NULL)"
        guard db.engine == .sqlite else {
            return try db.query("DELETE FROM unfinished WHERE id = ? RETURNING \(counted)", [.int(id)]).first?.first?.int == 1
        }
        let wasCounted = try db.query("SELECT \(counted) FROM unfinished WHERE id = ?", [.int(id)]).first?.first?.int == 1
        try db.query("DELETE FROM unfinished WHERE id = ?", [.int(id)])
        return wasCounted
    }

    /// The transactions of one original transaction (a subscription's purchase and renewals), oldest first.
    func transactionIDs(originalID: Int64) throws -> [Int64] {
        try db.query("SELECT id FROM transactions WHERE original_id = ? ORDER BY id", [.int(originalID)]).compactMap { $0[0].int }
    }

    func delete(_ id: Int64) throws {
        try rememberIDsBeforeDeleting()
        batchRows?[id] = nil
        try db.query("DELETE FROM transactions WHERE id = ?", [.int(id)])
        try db.query("DELETE FROM upgrade_refunds WHERE transaction_id = ?", [.int(id)])
    }

    func clear() throws {
        decodedRecords = nil
        if numbering == .xcode {
            // IDs start again: what named the old ones by ID would name the new.
            try db.execute("""
                DELETE FROM meta WHERE key = 'highestDeletedID'; DELETE FROM consumption;
                DELETE FROM renewal_extensions; DELETE FROM renewal_extension_answers;
                """)
            highestIDAfterCommit = nil
        } else {
            try rememberIDsBeforeDeleting()
        }
        try db.execute("""
            DELETE FROM transactions; DELETE FROM subscriptions; DELETE FROM redemptions; DELETE FROM nonces;
            DELETE FROM upgrade_refunds;
            """)
    }

    /// What an upgrade refunded of a transaction's price: the unused part of its period.
    func recordUpgradeRefund(transactionID: Int64, milliunits: Int64) throws {
        try db.query("""
            INSERT INTO upgrade_refunds(transaction_id, milliunits) VALUES (?, ?)
            ON CONFLICT(transaction_id) DO UPDATE SET milliunits = excluded.milliunits
            """, [.int(transactionID), .int(milliunits)])
    }

    func upgradeRefunds() throws -> [Int64: Int64] {
        var refunds: [Int64: Int64] = [:]
        for row in try db.query("SELECT transaction_id, milliunits FROM upgrade_refunds") {
            if let id = row[0].int, let milliunits = row[1].int { refunds[id] = milliunits }
        }
        return refunds
    }
}

/// How a store numbers its transactions.
public enum TransactionNumbering: Sendable {
    /// As the App Store: from 2000000001, and never an ID twice, a delete, clear or reset between (the
    /// app's wallet credits each ID once, so a reused one would be a purchase never delivered).
    case appStore
    /// As Xcode's test environment: from 0, and from 0 again once the transactions are cleared (apps'
    /// tests count on it: the first purchase after `clearTransactions()` is transaction 0).
    case xcode

    /// The ID before the first.
    var beforeFirst: Int64 { self == .xcode ? -1 : 2_000_000_000 }
}
