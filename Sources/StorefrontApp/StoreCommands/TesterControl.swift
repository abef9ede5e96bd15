import Foundation
import StoreCore
import StoreEngine

/// What a tester does to one transaction or its subscription, as Xcode's Transaction Manager offers it.
public enum TesterControl: Sendable, Hashable {
    case approve, decline, resolve, approveRefund, declineRefund, refund(prorated: Bool, reason: TransactionPayload.RevocationReason)
    case reverseRefund, revokeFamily
    case expire, renew, autoRenew(Bool), priceIncrease(PriceIncreaseStep), fixBilling, delete

    /// The one table of tester controls: the QA panel's transaction menu lists the rows that apply, a
    /// scenario acts on the newest transaction a row applies to, the demo presses the row's label, and
    /// `perform` does it. Adding a control is a row here (and its method on `StoreTestControls`).
    static let table: [Spec] = [
        Spec(.approve, "approve", "Approve Ask to Buy", applies: { $0.status == .pendingApproval }) { c, e in
            try await c.approveAskToBuy(transactionID: e.id); return "Ask to Buy approved: \(e.named)"
        },
        Spec(.decline, "decline", "Decline Ask to Buy", applies: { $0.status == .pendingApproval }) { c, e in
            try await c.declineAskToBuy(transactionID: e.id); return "Ask to Buy declined: \(e.named)"
        },
        Spec(.resolve, "resolve", "Resolve interrupted purchase", applies: { $0.status == .interrupted }) { c, e in
            try await c.resolveInterruptedPurchase(transactionID: e.id); return "Interrupted purchase resolved: \(e.named)"
        },
        Spec(.approveRefund, "approve-refund", "Approve refund request", applies: { $0.refundRequest == .pending && isActive($0) }) { c, e in
            try await c.decideRefundRequest(transactionID: e.id, approve: true); return "Refund request approved: \(e.named), \(e.price) back"
        },
        Spec(.declineRefund, "decline-refund", "Decline refund request", applies: { $0.refundRequest == .pending && isActive($0) }) { c, e in
            try await c.decideRefundRequest(transactionID: e.id, approve: false); return "Refund request declined: \(e.named)"
        },
        refund(prorated: false, reason: .other), refund(prorated: true, reason: .other),
        refund(prorated: false, reason: .developerIssue), refund(prorated: true, reason: .developerIssue),
        Spec(.reverseRefund, "reverse-refund", "Reverse refund", applies: isRefunded) { c, e in
            try await c.reverseRefund(transactionID: e.id); return "Refund reversed: \(e.named)"
        },
        Spec(.revokeFamily, "revoke-family", "Revoke Family Sharing", applies: { isActive($0) && $0.payload.ownership == .familyShared }) { c, e in
            try await c.revokeFamilySharing(transactionID: e.id); return "Family Sharing revoked: \(e.named)"
        },
        Spec(.expire, "expire", "Expire subscription", applies: isSubscription) { c, e in
            try await c.expireSubscription(productID: e.product); return "Expired \(e.product)"
        },
        Spec(.renew, "renew", "Force renewal", applies: isSubscription) { c, e in
            try await c.forceRenewal(productID: e.product); return "Renewed \(e.product)"
        },
        Spec(.autoRenew(true), "auto-renew on", "Turn auto-renew on", applies: isSubscription, offered: { $0?.willAutoRenew == false }) { c, e in
            try await c.setAutoRenew(productID: e.product, enabled: true); return "Auto-renew on for \(e.product)"
        },
        Spec(.autoRenew(false), "auto-renew off", "Turn auto-renew off", applies: isSubscription, offered: { $0?.willAutoRenew != false }) { c, e in
            try await c.setAutoRenew(productID: e.product, enabled: false); return "Auto-renew off for \(e.product)"
        },
        Spec(.priceIncrease(.request), "price-increase request", "Request price increase consent", applies: isSubscription) { c, e in
            try await c.requestPriceIncrease(productID: e.product); return "Price increase requested for \(e.product)"
        },
        Spec(.priceIncrease(.agree), "price-increase agree", "Agree to price increase", applies: isSubscription) { c, e in
            try await c.respondToPriceIncrease(productID: e.product, agree: true); return "Price increase accepted"
        },
        Spec(.priceIncrease(.decline), "price-increase decline", "Decline price increase", applies: isSubscription) { c, e in
            try await c.respondToPriceIncrease(productID: e.product, agree: false); return "Price increase declined"
        },
        Spec(.fixBilling, "fix-billing", "Resolve billing issue", applies: isSubscription) { c, e in
            try await c.resolveBillingIssue(productID: e.product); return "Billing issue resolved for \(e.product)"
        },
        Spec(.delete, "delete", "Delete transaction", applies: { _ in true }) { c, e in
            try await c.deleteTransaction(e.id); return "Deleted \(e.named)"
        },
    ]

    /// A refund, in full or prorated, for an issue with the app (`revocationReason` 1) or another reason (0).
    private static func refund(prorated: Bool, reason: TransactionPayload.RevocationReason) -> Spec {
        let appIssue = reason == .developerIssue
        let step = ["refund"] + (prorated ? ["prorated"] : []) + (appIssue ? ["developerIssue"] : [])
        let notes = (prorated ? ["prorated"] : []) + (appIssue ? ["app issue"] : [])
        let note = notes.isEmpty ? "" : " (" + notes.joined(separator: ", ") + ")"
        return Spec(.refund(prorated: prorated, reason: reason), step.joined(separator: " "), "Refund" + note,
                    applies: { isActive($0) && $0.payload.ownership == .purchased && (!prorated || $0.payload.expirationDate != nil) }) { c, e in
            try await c.refund(transactionID: e.id, prorated: prorated, reason: reason); return "Refunded \(e.named)" + note + (prorated ? "" : ": \(e.price)")
        }
    }

    struct Spec: Sendable {
        var control: TesterControl
        /// Its scenario step: the keyword, then the words after PRODUCT (`refund prorated` is `refund PRODUCT prorated`).
        var step: String
        /// Its row in the QA panel's transaction menu.
        var label: String
        /// Which ledger entries it can act on.
        var applies: @Sendable (LedgerEntry) -> Bool
        /// Whether the menu offers it now, given the subscription's renewal info (auto-renew shows the switch that changes something).
        var offered: @Sendable (RenewalInfoPayload?) -> Bool
        var perform: @Sendable (any StoreTestControls, LedgerEntry) async throws -> String

        init(_ control: TesterControl, _ step: String, _ label: String, applies: @escaping @Sendable (LedgerEntry) -> Bool,
             offered: @escaping @Sendable (RenewalInfoPayload?) -> Bool = { _ in true },
             perform: @escaping @Sendable (any StoreTestControls, LedgerEntry) async throws -> String) {
            self.control = control
            self.step = step
            self.label = label
            self.applies = applies
            self.offered = offered
            self.perform = perform
        }
    }

    var spec: Spec { Self.table.first { $0.control == self }! }

    /// The transaction a scenario means: the product's newest entry this control applies to.
    func target(_ productID: String, in ledger: [LedgerEntry]) -> LedgerEntry? {
        ledger.filter { $0.payload.productID == productID && spec.applies($0) }.max { $0.id < $1.id }
    }

    /// The controls the QA panel's menu offers for one entry, in table order.
    static func offered(for entry: LedgerEntry, renewal: RenewalInfoPayload?) -> [Spec] {
        table.filter { $0.applies(entry) && $0.offered(renewal) }
    }

    private static func isActive(_ e: LedgerEntry) -> Bool { e.status == .completed && !e.payload.isRevoked }
    private static func isRefunded(_ e: LedgerEntry) -> Bool {
        e.status == .completed && e.payload.isRevoked && e.payload.revocationType != .familyRevoke
    }
    private static func isSubscription(_ e: LedgerEntry) -> Bool { isActive(e) && e.payload.productType == .autoRenewable }
}

extension LedgerEntry {
    fileprivate var product: String { payload.productID }
    /// The product (the storefront shows its display name) and the transaction, which QA looks up.
    fileprivate var named: String { "\(payload.productID) (#\(id))" }
    /// What it cost, in its own currency.
    fileprivate var price: String { PriceFormatter.displayPrice(payload.price * Decimal(payload.quantity), currency: payload.currency, locale: "en_US") }
}
