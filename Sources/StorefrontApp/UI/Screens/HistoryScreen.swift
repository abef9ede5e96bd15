import Foundation
import StoreClient
import StoreCore
import StoreEngine
import TerminalUI

/// Every transaction, newest first: what the app saw (`Transaction.all`, verified) joined with the
/// ledger's view (finished, pending approval, declined) so a tester sees both sides. Enter shows
/// every field of the transaction, f requests a refund.
enum HistoryScreen: ScreenView {
    static let bindings = KeyMap.move + [
        Binding(keys: [.enter], name: "Enter", label: "Details", action: .activate),
        Binding(keys: [.character("f")], name: "f", label: "Request refund", action: .refundRequest),
    ]

    static func summary(_ state: AppState) -> String {
        "Transactions, newest first · \(state.snapshot.unfinishedCount) unfinished"
    }

    /// Counted without building and sorting the items, unless a filter decides which count.
    static func itemCount(_ state: AppState) -> Int {
        guard !state.isLoadingHistory, state.filterText(.history).isEmpty else { return items(state).count }
        return Set(state.snapshot.history.compactMap { $0.payload?.transactionID } + state.ledger.map(\.id)).count
    }

    static func detail(_ state: AppState) -> SheetState? {
        items(state)[safe: state.selected(.history)].map { .transactionDetail($0.payload.transactionID) }
    }

    static func perform(_ action: Action, _ state: inout AppState) -> [Effect] {
        guard let item = items(state)[safe: state.selected(.history)] else { return [] }
        switch action {
        case .activate:
            state.sheets.append(.transactionDetail(item.payload.transactionID))
        case .refundRequest:
            // Only a purchase the app received (not a pending or declined request) can be refunded.
            let received = state.snapshot.history.contains { $0.payload?.transactionID == item.payload.transactionID }
            state.sheets.append(received ? RefundRequestSheet.sheet(for: item.payload, state)
                                         : .message(title: "Request a Refund", text: "Only completed purchases can be refunded."))
        default: break
        }
        return []
    }

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

    /// None while the launch's history is loading (after the first frame): the list would lack what the app saw.
    static func items(_ state: AppState) -> [Item] {
        guard !state.isLoadingHistory else { return [] }
        var items: [Int64: Item] = [:]
        for v in state.snapshot.history {
            guard let p = v.payload else { continue }
            items[p.transactionID] = Item(payload: p, verification: .some(v.error))
        }
        for e in state.ledger {
            items[e.id, default: Item(payload: e.payload, verification: nil)].entry = e
        }
        let query = state.filterText(.history).lowercased()
        return items.values
            .filter { query.isEmpty || $0.payload.productID.lowercased().contains(query) || $0.status.contains(query) }
            .sorted { ($0.payload.purchaseDate, $0.payload.transactionID) > ($1.payload.purchaseDate, $1.payload.transactionID) }
    }

    static func lines(_ state: AppState, width: Int, rows: Int) -> [ListView.Line] {
        if state.isLoadingHistory { return [ListView.Line("Loading transactions…", style: .dim)] }
        let items = items(state)
        guard !items.isEmpty else { return [ListView.Line("No transactions yet.")] }
        // The product column gives way on a narrow terminal, down to 10, so that "verified" still shows.
        let others = 2 + 16 + 2 + 2 + 16 + 2  // the margin, the date, the status and the gaps between
        let product = max(10, min(24, width - others - "verified".count))
        func row(_ date: String, _ name: String, _ status: String, _ verification: String) -> String {
            "  " + DisplayWidth.pad(date, toWidth: 16) + "  " + DisplayWidth.pad(DisplayWidth.truncate(name, toWidth: product), toWidth: product)
                + "  " + DisplayWidth.pad(status, toWidth: 16) + "  " + verification
        }
        let verification = width >= others + product + "Verification".count ? "Verification" : "Verified"  // the header that fits
        var lines = [ListView.Line(row("Date", "Product", "Status", verification), style: .bold)]
        for (i, item) in items.enumerated() {
            let p = item.payload
            let name = state.product(p.productID)?.displayName ?? p.productID
            let qty = p.quantity > 1 ? " ×\(p.quantity)" : ""
            let row = row(Format.dateTime(p.purchaseDate), name + qty, item.status, item.verificationText)
            let meaning = Meaning.of(status: item.status) ?? (item.verificationText.hasPrefix("unverified") ? .bad : nil)
            lines.append(ListView.Line(row, style: meaning?.style ?? .plain, item: i))
            var extra: [String] = ["#\(p.transactionID)", "order \(OrderID.of(transactionID: p.transactionID))"]
            if p.reason == .renewal { extra.append("renewal") }
            if let offer = p.offerType { extra.append("offer: \(offer.rawValue)" + (p.offerID.map { " \($0)" } ?? "")) }
            if p.ownership == .familyShared { extra.append("family shared") }
            if let r = item.entry?.refundRequest { extra.append("refund request \(r.rawValue)") }
            lines.append(ListView.Line("    " + extra.joined(separator: " · "), style: .dim, item: i))
        }
        return lines
    }
}
