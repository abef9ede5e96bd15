import Foundation
import StoreClient
import StoreCore
import StoreEngine

/// What the status line says of an event the app heard: what happened, from what the storefront
/// knows besides the event (the QA panel's ledger still shows how things stood before it), with
/// amounts. Product IDs become display names when it is shown (`AppState.namingProducts`).
enum StatusLine {
    static func describe(_ event: AppEvent, _ state: AppState) -> String {
        switch event {
        case .transactionArrived(let id, _, _) where state.approvedUnheard.contains(id):
            return "Ask to Buy approved: \(id)"
        case .transactionArrived(let id, let offer, let family) where offer != .code:
            if family { return "Family member bought \(id): shared with you" }
            if state.ledger.contains(where: { $0.payload.productID == id && $0.status == .pendingApproval }) {
                return "Ask to Buy approved: \(id)"
            }
            if let from = replacedPlan(by: id, state) { return "Upgraded to \(id) from \(from), starting now" }
            return "Bought elsewhere: \(id)"
        case .revoked(let id, let refund?): return "Refunded \(id): \(refund)"
        case .revoked(let id, nil): return "Family Sharing revoked: \(id)"
        default: return event.message
        }
    }

    /// The ledger may show an approval before the app hears of it: remembered, so it is told as one.
    static func noteApprovals(from old: [LedgerEntry], to new: [LedgerEntry], _ state: inout AppState) {
        let waiting = old.filter { $0.status == .pendingApproval }
        guard !waiting.isEmpty else { return }
        let now = Dictionary(new.map { ($0.id, $0.status) }, uniquingKeysWith: { a, _ in a })
        // An approval may complete the entry or replace it with the approved transaction; a decline marks it.
        for entry in waiting where now[entry.id] != .pendingApproval && now[entry.id] != .declined {
            state.approvedUnheard.insert(entry.payload.productID)
        }
    }

    /// The plan of the same group the customer had until `id` arrived, if any.
    private static func replacedPlan(by id: String, _ state: AppState) -> String? {
        guard let group = state.product(id)?.subscription?.groupID,
              let status = state.snapshot.effectiveStatus(group: group), status.state.grantsAccess,
              let current = status.transaction.payload?.productID, current != id else { return nil }
        return current
    }
}
