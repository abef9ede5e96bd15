import Foundation
import StoreCore
import StoreEngine

/// `storefront notifications`: the App Store Server Notifications V2 the store has made, oldest
/// first: when (store time), what, for which product, and what became of sending them.
enum NotificationsCommand {
    static func run(_ options: CommandLineOptions) async throws -> Int32 {
        let (context, store, _) = try await StoreContext.openSaved(options)
        let notifications = await store.notifications()
        await store.shutdown()
        let name = { (id: String?) in id.map { productName($0, context) } ?? "" }
        print(options.json ? json(notifications, name: name).serialized() : table(notifications, name: name))
        return 0
    }

    static func productName(_ id: String, _ context: StoreContext) -> String {
        context.catalog.product(id)?.localization(for: context.locale).displayName ?? id
    }

    /// What became of sending it: the last attempt's result, or why there was none.
    static func outcome(_ n: StoreNotification) -> String {
        switch n.delivery {
        case .notSent: "not sent (no notification URL)"
        case .pending where n.attempts.isEmpty: "waiting"
        default: (n.lastResult ?? "") + (n.delivery == .failed ? " (gave up)" : n.delivery == .pending ? " (retrying)" : "")
        }
    }

    static func table(_ notifications: [StoreNotification], name: (String?) -> String) -> String {
        guard !notifications.isEmpty else { return "No notifications yet: store events (purchases, renewals, refunds…) make them." }
        let rows = [["#", "store time", "type", "subtype", "product", "attempts", "last result"]] + notifications.map {
            [String($0.sequence), $0.createdDate.formatted(.iso8601), $0.type, $0.subtype ?? "", name($0.productID),
             String($0.attempts.count), outcome($0)]
        }
        let widths = (0..<rows[0].count).map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
                .trimmingCharacters(in: .whitespaces)
        }.joined(separator: "\n")
    }

    static func json(_ notifications: [StoreNotification], name: (String?) -> String) -> JSONValue {
        .array(notifications.map { n in
            var members: [(key: String, value: JSONValue)] = [
                (key: "sequence", value: .number(String(n.sequence))), (key: "notificationUUID", value: .string(n.uuid)),
                (key: "createdDate", value: .string(n.createdDate.formatted(.iso8601))),
                (key: "notificationType", value: .string(n.type)), (key: "subtype", value: n.subtype.map(JSONValue.string) ?? .null),
                (key: "productId", value: n.productID.map(JSONValue.string) ?? .null), (key: "productName", value: .string(name(n.productID))),
                (key: "originalTransactionId", value: n.originalTransactionID.map { .string(String($0)) } ?? .null),
                (key: "transactionId", value: n.transactionID.map { .string(String($0)) } ?? .null),
                (key: "delivery", value: .string(n.delivery.rawValue)),
            ]
            members.append((key: "attempts", value: .array(n.attempts.map {
                ["date": .string($0.date.formatted(.iso8601)), "sendAttemptResult": .string($0.result)]
            })))
            members.append((key: "signedPayload", value: .string(n.signedPayload)))
            return .object(members)
        })
    }
}
