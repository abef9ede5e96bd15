import Foundation
import StoreCore
import StoreEngine
import StoreSigning
import TerminalUI

/// A notification's decoded `signedPayload`: its fields, the nested transaction's and renewal
/// info's main fields, and every attempt to send it.
struct NotificationDetailSheet: SheetView, Equatable {
    var sequence: Int64

    var stacked: SheetState { .notificationDetail(self) }

    static let transactionFields = ["transactionId", "originalTransactionId", "productId", "type", "purchaseDate", "expiresDate",
                                    "offerType", "revocationDate", "revocationType", "isUpgraded"]
    static let renewalFields = ["autoRenewStatus", "autoRenewProductId", "expirationIntent", "isInBillingRetryPeriod",
                                "gracePeriodExpiresDate", "priceIncreaseStatus", "renewalDate"]

    func lines(_ state: AppState) -> [String] {
        guard let n = state.notifications.first(where: { $0.sequence == sequence }), let body = Self.claims(n.signedPayload) else {
            return ["Notification \(sequence) is gone."]
        }
        var lines = ["notificationType: \(n.type)" + (n.subtype.map { " · subtype: \($0)" } ?? ""),
                     "notificationUUID: \(n.uuid)", "version: \(body["version"]?.stringValue ?? "")",
                     "signedDate: \(Format.dateTime(n.createdDate))"]
        let data = body["data"]
        for key in ["environment", "bundleId", "bundleVersion", "appAppleId", "status"] {
            if let value = data?[key] { lines.append("data.\(key): \(Self.text(value))") }
        }
        // A mass extension's SUMMARY says its outcome in `summary`, where others have `data`.
        if case .object(let summary)? = body["summary"] {
            for (key, value) in summary { lines.append("summary.\(key): \(Self.text(value))") }
        }
        for (key, fields) in [("signedTransactionInfo", Self.transactionFields), ("signedRenewalInfo", Self.renewalFields)] {
            guard let nested = data?[key]?.stringValue.flatMap(Self.claims) else { continue }
            lines.append("data.\(key):")
            for field in fields { if let value = nested[field] { lines.append("· \(field): \(Self.text(value, field: field))") } }
        }
        lines.append("attempts: " + (n.attempts.isEmpty ? NotificationsScreen.response(n)
                                                       : n.attempts.map { "\(Format.dateTime($0.date)) \($0.result)" }.joined(separator: ", ")))
        return lines
    }

    /// A token's payload, read without verifying: the store made it (the verifier is the backend's).
    static func claims(_ jws: String) -> JSONValue? {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let data = Base64URL.decode(String(parts[1])) else { return nil }
        return try? JSONParser.parse(data)
    }

    /// A value as text; dates (milliseconds) as dates.
    static func text(_ value: JSONValue, field: String = "") -> String {
        if field.hasSuffix("Date"), let ms = value.doubleValue { return Format.dateTime(Date(timeIntervalSince1970: ms / 1000)) }
        switch value {
        case .string(let s): return s
        case .number(let n): return n
        case .bool(let b): return String(b)
        default: return value.serialized()
        }
    }

    func bindings(_ state: AppState) -> [Binding] { KeyMap.acknowledge }

    mutating func perform(_ action: Action, _ state: inout AppState) -> SheetStep {
        action == .back ? .close : .stay
    }

    func sheet(_ state: AppState, in area: Rect) -> Sheet {
        Sheet(title: "Notification #\(sequence)", body: lines(state), buttons: ["OK"], selectedButton: 0, maxTextWidth: 72)
    }
}
