import Foundation
import StoreCore

/// One App Store Server Notification V2, as the outbox keeps it.
public struct StoreNotification: Sendable, Equatable {
    /// Its place in the outbox: notifications are made, and sent per original transaction, in this order.
    public var sequence: Int64
    /// `notificationUUID`
    public var uuid: String
    /// `notificationType`, e.g. `DID_RENEW`.
    public var type: String
    public var subtype: String?
    public var productID: String?
    public var originalTransactionID: Int64?
    public var transactionID: Int64?
    /// When the event happened, on the store clock (`signedDate`).
    public var createdDate: Date
    /// The `responseBodyV2` JWS, signed once: every read and resend gives the same token.
    public var signedPayload: String
    public var attempts: [SendAttempt]
    public var delivery: NotificationDelivery
    /// When the next attempt is due, on the store clock, while pending.
    public var nextAttemptDate: Date?

    public var lastResult: String? { attempts.last?.result }
}

/// One attempt to send a notification: `result` is Apple's `sendAttemptResult`.
public struct SendAttempt: Sendable, Equatable {
    public var date: Date
    public var result: String

    public init(date: Date, result: String) {
        self.date = date
        self.result = result
    }

    /// Apple's `sendAttemptResult` values.
    public static let success = "SUCCESS", timedOut = "TIMED_OUT", noResponse = "NO_RESPONSE", socketIssue = "SOCKET_ISSUE"
    public static let unsuccessfulHTTPResponseCode = "UNSUCCESSFUL_HTTP_RESPONSE_CODE", invalidResponse = "INVALID_RESPONSE"
    public static let prematureClose = "PREMATURE_CLOSE", tlsIssue = "TLS_ISSUE", circularRedirect = "CIRCULAR_REDIRECT"
    public static let other = "OTHER"
}

public enum NotificationDelivery: String, Sendable {
    /// Waiting for its first or next attempt.
    case pending
    case delivered
    /// Every retry failed.
    case failed
    /// Made while no notification URL was set: recorded, never sent (until resent).
    case notSent
}

/// The App Store's retry schedule: after a failed attempt, the next comes 1, 12, 24, 48 and 72
/// hours later (store time, compressed by the time rate); after the fifth retry fails, it gives up.
public struct RetrySchedule: Sendable, Equatable {
    public static let delays: [TimeInterval] = [1, 12, 24, 48, 72].map { $0 * 3600 }

    /// When to try again after `failures` failed attempts, the last at `date`; nil: give up.
    public static func nextAttempt(afterFailures failures: Int, lastAt date: Date, rate: TimeRate = .realTime) -> Date? {
        guard failures >= 1, failures <= delays.count else { return nil }
        return date.addingTimeInterval(rate.compressed(delays[failures - 1]))
    }
}
