import Foundation
import StoreCore
import StoreEngine
import TerminalUI

/// App Store Server Notifications V2 the store made, newest first: type, subtype, product, the
/// attempts to send them and the last response. Enter shows the decoded payload, S sends one again.
enum NotificationsScreen: ScreenView {
    /// The newest notifications the screen lists (a long outbox is never loaded whole).
    static let limit = 300

    static let bindings = KeyMap.move + [
        Binding(keys: [.enter], name: "Enter", label: "Details", action: .activate),
        Binding(keys: [.character("S")], name: "S", label: "Resend", action: .resend),
    ]

    static func summary(_ state: AppState) -> String {
        "Server notifications, newest first · " + (state.settings.notificationURL.map { "to \(TestSettings.redacted($0))" } ?? "no URL: recorded, not sent (QA 4)")
    }

    static func itemCount(_ state: AppState) -> Int { items(state).count }

    static func items(_ state: AppState) -> [StoreNotification] {
        let query = state.filterText(.notifications).lowercased()
        return state.notifications.filter {
            query.isEmpty || [$0.type, $0.subtype ?? "", $0.productID ?? "", response($0)].joined(separator: " ").lowercased().contains(query)
        }
    }

    static func detail(_ state: AppState) -> SheetState? {
        items(state)[safe: state.selected(.notifications)].map { .notificationDetail(NotificationDetailSheet(sequence: $0.sequence)) }
    }

    static func perform(_ action: Action, _ state: inout AppState) -> [Effect] {
        guard let item = items(state)[safe: state.selected(.notifications)] else { return [] }
        switch action {
        case .activate:
            state.sheets.append(.notificationDetail(NotificationDetailSheet(sequence: item.sequence)))
            return []
        case .resend:
            return [.command(.resendNotification(item.sequence))]
        default:
            return []
        }
    }

    /// What became of sending it, in a few words.
    static func response(_ n: StoreNotification) -> String {
        switch n.delivery {
        case .notSent: "not sent (no URL)"
        case .pending where n.attempts.isEmpty: "waiting"
        case .pending: (n.lastResult ?? "") + ", retrying"
        case .failed: (n.lastResult ?? "") + ", gave up"
        case .delivered: n.lastResult ?? "SUCCESS"
        }
    }

    static func lines(_ state: AppState, width: Int, rows: Int) -> [ListView.Line] {
        let items = items(state)
        guard !items.isEmpty else {
            if state.isLoadingLedger { return [ListView.Line("Loading notifications…", style: .dim)] }
            return [ListView.Line(state.filterText(.notifications).isEmpty
                ? "No notifications yet: purchases, renewals and refunds make them."
                : "No notifications match “\(state.filterText(.notifications))”.")]
        }
        func cell(_ text: String, _ width: Int) -> String { DisplayWidth.pad(DisplayWidth.truncate(text, toWidth: width), toWidth: width) }
        // The type gives way before the product: "DID_CHANGE_RENEWAL_STATUS AUTO_RENEW_DISABLED" is 45 columns.
        let kindWidth = max(16, min(45, min(width, readableWidth) - 2 - 16 - 2 - 2 - 18))
        var lines = [ListView.Line("  " + cell("Store time", 16) + "  " + cell("Type / subtype", kindWidth) + "  Product", style: .bold)]
        for (i, n) in items.enumerated() {
            let name = n.productID.map { state.product($0)?.displayName ?? $0 } ?? "—"
            let kind = n.type + (n.subtype.map { " " + $0 } ?? "")
            lines.append(ListView.Line("  " + Format.dateTime(n.createdDate) + "  " + cell(kind, kindWidth) + "  " + name, item: i))
            let tries = Format.count(n.attempts.count, "attempt")
            lines.append(ListView.Line("    #\(n.sequence) · \(tries) · \(response(n))", style: .dim, item: i))
        }
        return lines
    }
}
