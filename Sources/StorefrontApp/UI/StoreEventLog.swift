import Foundation
import StoreCore
import StoreEngine

/// What the store did on its own (renewals, failed renewals, grace and retry ending, expiries), told in
/// the event log from the notifications it made for them: the one record of every such event, so each is
/// told once, into the product it concerns, at its own store time. A jump's renewals are listed and
/// then summed up in one line. When idle, the last line also goes to the status line.
enum StoreEventLog {
    /// One event, as the log tells it.
    struct Line: Equatable {
        var time: Date
        var text: String
        /// The product a renewal renewed to.
        var renewed: String?
    }

    /// Logs the notifications newer than the last told; the first list read only sets where the session starts.
    static func tell(_ notifications: [StoreNotification], _ state: inout AppState) {
        let newest = notifications.map(\.sequence).max()
        guard let told = state.toldNotification else { state.toldNotification = newest ?? 0; return }
        let fresh = notifications.filter { $0.sequence > told }.sorted { $0.sequence < $1.sequence }
        guard !fresh.isEmpty else { return }
        state.toldNotification = newest
        var lines = fresh.compactMap { line($0, rate: state.settings.timeRate) }
        let renewals = lines.compactMap(\.renewed)
        if renewals.count > 1 { lines.append(Line(time: fresh.last!.createdDate, text: summary(renewals))) }
        for line in lines { state.note(line.text, at: line.time) }
        if let last = lines.last, state.inFlight == 0 { state.show(last.text) }
    }

    /// "12 renewals: Plus Monthly × 11, Pro Monthly × 1", in the order they first renewed.
    static func summary(_ renewals: [String]) -> String {
        var counts: [(String, Int)] = []
        for name in renewals {
            if let i = counts.firstIndex(where: { $0.0 == name }) { counts[i].1 += 1 } else { counts.append((name, 1)) }
        }
        return "\(renewals.count) renewals: " + counts.map { "\($0.0) × \($0.1)" }.joined(separator: ", ")
    }

    /// The line for one notification, at the time the event itself happened; nil for what an action
    /// of the customer's or the tester's made (its own status line says it).
    static func line(_ n: StoreNotification, rate: TimeRate) -> Line? {
        // Read only by a case that tells a line: a purchase's signed payloads (three JSON documents), read
        // after every purchase, were a tenth of the storefront's work in a purchase loop.
        lazy var decoded = payloads(n)
        lazy var transaction = decoded.0
        lazy var renewal = decoded.1
        lazy var product = transaction?.productID ?? n.productID ?? "a subscription"
        lazy var expires = transaction?.expirationDate
        lazy var retryEnd = expires.map { BillingRetry.end(after: $0, rate: rate) }
        func until(_ date: Date?) -> String { date.map { " until " + Format.dateTime($0, seconds: rate != .realTime) } ?? "" }
        func at(_ date: Date?) -> Date { min(date ?? n.createdDate, n.createdDate) }
        switch (n.type, n.subtype) {
        case ("DID_RENEW", "BILLING_RECOVERY"):
            return Line(time: at(transaction?.purchaseDate), text: "Billing recovered: renewed \(product)", renewed: product)
        case ("DID_RENEW", _):
            return Line(time: at(transaction?.purchaseDate), text: "Renewed \(product)", renewed: product)
        case ("DID_FAIL_TO_RENEW", "GRACE_PERIOD"):
            return Line(time: at(expires), text: "Billing failed for \(product): in grace period\(until(renewal?.gracePeriodExpirationDate))")
        case ("DID_FAIL_TO_RENEW", _):
            return Line(time: at(expires), text: "Billing failed for \(product): in billing retry\(until(retryEnd))")
        case ("GRACE_PERIOD_EXPIRED", _):
            return Line(time: at(renewal?.gracePeriodExpirationDate), text: "Grace period ended for \(product): in billing retry\(until(retryEnd))")
        case ("EXPIRED", let subtype):
            let time = subtype == "BILLING_RETRY" ? retryEnd : expires
            return Line(time: at(time), text: "\(product) expired (\(reason(subtype)))")
        default:
            return nil
        }
    }

    static func reason(_ subtype: String?) -> String {
        switch subtype {
        case "BILLING_RETRY": "billing retry ended without payment"
        case "PRICE_INCREASE": "price increase not accepted"
        case "PRODUCT_NOT_FOR_SALE": "no longer for sale"
        case "VOLUNTARY": "auto-renew turned off"
        default: "for another reason"
        }
    }

    /// The transaction and renewal info the notification carries, read from its signed payload.
    static func payloads(_ n: StoreNotification) -> (TransactionPayload?, RenewalInfoPayload?) {
        let data = NotificationDetailSheet.claims(n.signedPayload)?["data"]
        let transaction = data?["signedTransactionInfo"]?.stringValue.flatMap(NotificationDetailSheet.claims).flatMap(TransactionPayload.init(json:))
        let renewal = data?["signedRenewalInfo"]?.stringValue.flatMap(NotificationDetailSheet.claims).flatMap(RenewalInfoPayload.init(json:))
        return (transaction, renewal)
    }
}
