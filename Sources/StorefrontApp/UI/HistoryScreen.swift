import Foundation
import StoreClient
import StoreCore
import StoreEngine
import TerminalUI

/// Every transaction, newest first: what the app saw (`Transaction.all`, verified) joined with the
/// ledger's view (finished, pending approval, declined) so a tester sees both sides.
enum HistoryScreen {
    struct Item: Sendable {
        var payload: TransactionPayload
        var verification: VerificationError??
        var entry: LedgerEntry?

        var status: String {
            if let entry, entry.status == .pendingApproval { return "pending approval" }
            if let entry, entry.status == .declined { return "declined" }
            if let entry, entry.status == .interrupted { return "interrupted" }
            if payload.isRevoked { return "revoked" }
            if payload.isUpgraded { return "upgraded" }
            if entry?.refundRequest == .pending { return "refund requested" }
            if entry?.refundRequest == .declined { return "refund declined" }
            if let entry { return entry.isFinished ? "finished" : "unfinished" }
            return "finished"
        }

        var verificationText: String {
            switch verification {
            case .none: "—"
            case .some(.none): "verified"
            case .some(.some(let e)): "unverified (\(e.rawValue))"
            }
        }
    }

    static func items(_ state: AppState) -> [Item] {
        var items: [Int64: Item] = [:]
        for v in state.snapshot.history {
            guard let p = v.payload else { continue }
            items[p.transactionID] = Item(payload: p, verification: .some(v.error))
        }
        for e in state.ledger {
            items[e.id, default: Item(payload: e.payload, verification: nil)].entry = e
        }
        let query = state.filter.text.lowercased()
        return items.values
            .filter { query.isEmpty || $0.payload.productID.lowercased().contains(query) || $0.status.contains(query) }
            .sorted { ($0.payload.purchaseDate, $0.payload.transactionID) > ($1.payload.purchaseDate, $1.payload.transactionID) }
    }

    static func lines(_ state: AppState) -> [ScreenLine] {
        let items = items(state)
        guard !items.isEmpty else { return [ScreenLine(text: "No transactions yet.")] }
        var lines = [ScreenLine(text: "  Date              Product                   Status            Verification", style: .bold)]
        for (i, item) in items.enumerated() {
            let p = item.payload
            let name = state.product(p.productID)?.displayName ?? p.productID
            let qty = p.quantity > 1 ? " ×\(p.quantity)" : ""
            let row = "  " + Format.dateTime(p.purchaseDate) + "  " + DisplayWidth.pad(DisplayWidth.truncate(name + qty, toWidth: 24), toWidth: 24)
                + "  " + DisplayWidth.pad(item.status, toWidth: 16) + "  " + item.verificationText
            lines.append(ScreenLine(text: row, item: i))
            var extra: [String] = ["#\(p.transactionID)"]
            if p.reason == .renewal { extra.append("renewal") }
            if let offer = p.offerType { extra.append("offer: \(offer.rawValue)" + (p.offerID.map { " \($0)" } ?? "")) }
            if p.ownership == .familyShared { extra.append("family shared") }
            if let r = item.entry?.refundRequest { extra.append("refund request \(r.rawValue)") }
            lines.append(ScreenLine(text: "    " + extra.joined(separator: " · "), style: .dim, item: i))
        }
        return lines
    }

    /// The transaction detail sheet: every decoded field of the signed payload.
    static func detail(_ id: Int64, _ state: AppState) -> [String] {
        guard let item = items(state).first(where: { $0.payload.transactionID == id }) else { return ["Transaction \(id) is gone."] }
        let p = item.payload
        var rows: [(String, String)] = [
            ("transactionId", "\(p.transactionID)"), ("originalTransactionId", "\(p.originalTransactionID)"),
            ("productId", p.productID), ("type", p.productType.signedName), ("purchaseDate", Format.dateTime(p.purchaseDate)),
            ("quantity", "\(p.quantity)"), ("price", "\(p.price) \(p.currency)"), ("storefront", "\(p.storefront) (\(p.storefrontID))"),
            ("ownershipType", p.ownership.rawValue), ("transactionReason", p.reason.rawValue), ("environment", p.environment),
        ]
        if let d = p.expirationDate { rows.append(("expiresDate", Format.dateTime(d))) }
        if let g = p.subscriptionGroupID { rows.append(("subscriptionGroupIdentifier", g)) }
        if let o = p.offerType { rows.append(("offerType", o.rawValue + (p.offerID.map { " (\($0))" } ?? ""))) }
        if let d = p.revocationDate { rows.append(("revocationDate", Format.dateTime(d))) }
        if let t = p.revocationType { rows.append(("revocationType", t.rawValue)) }
        if p.isUpgraded { rows.append(("isUpgraded", "true")) }
        rows.append(("status", item.status))
        rows.append(("verification", item.verificationText))
        if let token = item.entry?.jws {
            rows.append(("token", "\(token.prefix(24))… (w writes the whole JWS to \(tokenFile(id)))"))
        }
        return rows.map { "\($0.0): \($0.1)" }
    }

    /// The transaction's signed token as the store made it (the JWS a backend receives).
    static func token(_ id: Int64, _ state: AppState) -> String? {
        state.ledger.first { $0.id == id }?.jws
    }

    static func tokenFile(_ id: Int64) -> String { "transaction-\(id).jws" }
}
