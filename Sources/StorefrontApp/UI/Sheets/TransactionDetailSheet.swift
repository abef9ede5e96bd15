import StoreCore
import TerminalUI

/// Every decoded field of a transaction's signed payload, with its status and verification.
struct TransactionDetailSheet: SheetView, Equatable {
    var transactionID: Int64

    var stacked: SheetState { .transactionDetail(self) }

    func lines(_ state: AppState) -> [String] {
        guard let item = HistoryScreen.items(state).first(where: { $0.payload.transactionID == transactionID }) else {
            return ["Transaction \(transactionID) is gone."]
        }
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
        return rows.map { "\($0.0): \($0.1)" }
    }

    func draw(_ state: AppState, in area: Rect, on canvas: inout Canvas) {
        Sheet(title: "Transaction #\(transactionID)", body: lines(state), buttons: ["OK"], selectedButton: 0, maxTextWidth: 60)
            .draw(in: area, on: &canvas)
    }
}
