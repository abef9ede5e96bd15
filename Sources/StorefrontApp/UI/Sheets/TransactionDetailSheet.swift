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
            ("order ID", OrderID.of(transactionID: p.transactionID)),
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
        if let token = token(state) {
            rows.append(("token", "\(token.prefix(24))… (w writes the whole JWS to \(tokenFile))"))
        }
        return rows.map { "\($0.0): \($0.1)" }
    }

    /// The transaction's signed token as the store made it (the JWS a backend receives).
    func token(_ state: AppState) -> String? { state.ledger.first { $0.id == transactionID }?.jws }

    var tokenFile: String { "transaction-\(transactionID).jws" }

    func bindings(_ state: AppState) -> [Binding] {
        // Write comes before Quit, so the footer keeps the sheet's own keys together.
        var keys = KeyMap.acknowledge
        keys.insert(Binding(keys: [.character("w")], name: "w", label: "Write token", action: .writeToken), at: keys.count - 1)
        return keys
    }

    mutating func perform(_ action: Action, _ state: inout AppState) -> SheetStep {
        switch action {
        case .back: return .close
        case .writeToken:
            guard let token = token(state) else { state.status = "Transaction #\(transactionID) has no signed token yet"; return .stay }
            return SheetStep(effects: [.writeFile(path: tokenFile, contents: token + "\n")])
        default: return .stay
        }
    }

    func sheet(_ state: AppState, in area: Rect) -> Sheet {
        Sheet(title: "Transaction #\(transactionID)", body: lines(state), buttons: ["OK"], selectedButton: 0, maxTextWidth: 60)
    }
}
