import Foundation
import StoreCore
import StoreEngine

/// The notification endpoints: Request a Test Notification and its status, Get Notification History.
extension AppStoreServerAPI {
    func requestTestNotification() async throws -> HTTPResponse {
        guard await store.settings().notificationURL != nil else { throw APIError.serverNotificationURLNotFound() }
        return ok(["testNotificationToken": .string(try await store.requestTestNotification())] as JSONValue)
    }

    func testNotificationStatus(_ token: String) async throws -> HTTPResponse {
        // Tokens are "<uuid>_<ms>", as Apple's are.
        guard token.split(separator: "_").count == 2, UUID(uuidString: String(token.split(separator: "_")[0])) != nil else {
            throw APIError.invalidTestNotificationToken()
        }
        guard let notification = await store.notification(testToken: token) else { throw APIError.testNotificationNotFound() }
        return ok(Self.historyItem(notification))
    }

    /// How far back Get Notification History reaches, in days: Apple keeps "the past 180 days in the
    /// production environment, and the past 30 days in the sandbox environment".
    static func historyDays(_ environment: String) -> TimeInterval {
        environment == StoreEnvironment.production.rawValue ? 180 : 30
    }

    /// Notifications the store tried to send (none made while no URL was set), oldest first, 20 a page.
    func notificationHistory(_ request: HTTPRequest) async throws -> HTTPResponse {
        let body = try Self.jsonObject(request)
        guard let start = body["startDate"].flatMap(Self.milliseconds) else { throw APIError.invalidStartDate() }
        guard let end = body["endDate"].flatMap(Self.milliseconds) else { throw APIError.invalidEndDate() }
        guard start <= end else { throw APIError.startDateAfterEndDate() }
        let days = Self.historyDays(await store.environment)
        guard start >= (await store.now()).addingTimeInterval(-days * 86_400) else { throw APIError.startDateTooFarInPast() }
        let type = body["notificationType"]?.stringValue, subtype = body["notificationSubtype"]?.stringValue
        if let type, NotificationType(rawValue: type) == nil { throw APIError.invalidNotificationType() }
        if let subtype, NotificationSubtype(rawValue: subtype) == nil { throw APIError.body("unknown notificationSubtype \(subtype)") }
        let transactionID = try body["transactionId"]?.stringValue.map(Self.transactionID)
        if type != nil, transactionID != nil { throw APIError.multipleFiltersSupplied() }
        if let transactionID { try await requireCustomer(String(transactionID)) }
        let onlyFailures = body["onlyFailures"]?.boolValue ?? false
        let after = try request.queryValues("paginationToken").last.map { token throws(APIError) in
            guard let position = PagePosition(token: token) else { throw .invalidPaginationToken() }
            return position
        }
        // A transaction ID limits the history "to this one customer": the notifications about their purchases (not TEST's).
        let sent = await store.notifications(since: start, until: end).filter { n in
            n.delivery != .notSent && (type == nil || n.type == type) && (subtype == nil || n.subtype == subtype)
                && (transactionID == nil || n.originalTransactionID != nil)
                && (!onlyFailures || !n.attempts.contains { $0.result == SendAttempt.success })
        }
        let page = Page(sent, position: { PagePosition(date: Int64($0.createdDate.timeIntervalSince1970 * 1000), id: $0.sequence) }, after: after)
        var fields: [(String, JSONValue)] = [("notificationHistory", .array(page.items.map(Self.historyItem))), ("hasMore", .bool(page.hasMore))]
        if page.hasMore { fields.append(("paginationToken", .string(page.position.token))) }
        return ok(fields)
    }

    static func historyItem(_ notification: StoreNotification) -> JSONValue {
        ["signedPayload": .string(notification.signedPayload), "sendAttempts": .array(notification.attempts.map { attempt in
            ["attemptDate": .number(String(Int64(attempt.date.timeIntervalSince1970 * 1000))), "sendAttemptResult": .string(attempt.result)]
        })]
    }

    static func milliseconds(_ value: JSONValue) -> Date? {
        guard case .number(let text) = value else { return nil }
        return HistoryQuery.date(milliseconds: text)
    }
}
