import Foundation
import StoreCore

/// The tester's controls over one transaction (Xcode's Transaction Manager: Ask to Buy, interrupted
/// purchases, refunds, revocation): what each makes of the ledger row and of the subscription it
/// belongs to, and when it refuses. The store signs what they change and writes it.
struct TransactionControls {
    /// The store's time now.
    var now: Date

    /// A purchase waiting for approval (or to be resolved), to complete or decline.
    func pending(_ row: Ledger.Row?, id: Int64, _ status: LedgerEntry.Status) throws -> Ledger.Row {
        guard let row else { throw TestControlError("no transaction \(id)") }
        guard row.status == status else { throw TestControlError("transaction \(id) is \(row.status.rawValue), not \(status.rawValue)") }
        return row
    }

    /// How a refund revokes a transaction: in full, or prorated to the unused part of its period.
    func refund(of row: Ledger.Row?, prorated: Bool) -> (type: TransactionPayload.RevocationType, percentage: Int?) {
        guard prorated, let row, row.payload.expirationDate != nil else { return (.refundFull, Proration.fullRefund) }
        return (.refundProrated, Proration(start: row.payload.purchaseDate, end: row.payload.expirationDate).revocationPercentage(at: now))
    }

    /// The customer asks for a refund of a completed transaction not revoked.
    func refundRequested(_ row: Ledger.Row?) throws -> Ledger.Row {
        // Asked again while a request waits, or once one was approved and refunded (Xcode's test environment
        // approves at once), is a duplicate; after a refund reversed, the customer may ask again.
        if row?.refundRequest == .pending || (row?.refundRequest == .approved && row?.payload.isRevoked == true) {
            throw StoreFailure.refund(.duplicateRequest)
        }
        guard var row, row.status == .completed, !row.payload.isRevoked else { throw StoreFailure.refund(.failed) }
        row.refundRequest = .pending
        return row
    }

    /// The App Store decides a refund request.
    func refundDecided(_ row: Ledger.Row?, id: Int64, approve: Bool) throws -> Ledger.Row {
        guard var row, row.refundRequest == .pending else { throw TestControlError("transaction \(id) has no pending refund request") }
        row.refundRequest = approve ? .approved : .declined
        return row
    }

    /// The transaction revoked now, to be signed again and delivered (unfinished) once more.
    func revoked(_ row: Ledger.Row?, id: Int64, reason: TransactionPayload.RevocationReason,
                 type: TransactionPayload.RevocationType, percentage: Int?) throws -> Ledger.Row {
        guard var row, row.status == .completed else { throw TestControlError("no completed transaction \(id)") }
        guard !row.payload.isRevoked else { throw TestControlError("transaction \(id) is already revoked") }
        resign(&row, revoked: (reason, type, percentage))
        return row
    }

    /// The transaction with its refund reversed (a dispute went the developer's way); a family
    /// member's revoked access is not a refund.
    func reversed(_ row: Ledger.Row?, id: Int64) throws -> Ledger.Row {
        guard var row, row.status == .completed else { throw TestControlError("no completed transaction \(id)") }
        guard row.payload.isRevoked, row.payload.revocationType != .familyRevoke else {
            throw TestControlError("transaction \(id) has no refund to reverse")
        }
        resign(&row, revoked: nil)
        return row
    }

    /// The subscription transaction `id` revoked ends, when it is the subscription's latest.
    func ended(_ subscription: SubscriptionRecord?, by id: Int64) -> SubscriptionRecord? {
        guard var subscription, subscription.latestTransactionID == id else { return nil }
        subscription.state = .revoked
        subscription.willAutoRenew = false
        return subscription
    }

    /// A subscription a revocation of `id` ended, reinstated until it expires.
    func reinstated(_ subscription: SubscriptionRecord?, by id: Int64) -> SubscriptionRecord? {
        guard var subscription, subscription.latestTransactionID == id, subscription.state == .revoked else { return nil }
        subscription.state = subscription.expirationDate > now ? .subscribed : .expired
        return subscription
    }

    /// Sets or clears a transaction's revocation, as signed now (the store signs it) and unfinished.
    private func resign(_ row: inout Ledger.Row, revoked: (reason: TransactionPayload.RevocationReason,
                                                          type: TransactionPayload.RevocationType, percentage: Int?)?) {
        row.payload.revocationDate = revoked == nil ? nil : now
        row.payload.revocationReason = revoked?.reason
        row.payload.revocationType = revoked?.type
        row.payload.revocationPercentage = revoked?.percentage
        row.payload.signedDate = now
        row.finished = false
    }
}
