import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StoreEngine

/// Sends the outbox's App Store Server Notifications V2 to the backend, as the App Store does: an
/// HTTP POST of `{"signedPayload": "<JWS>"}` (Foundation's URL loading), 200–206 is success, a failure
/// is retried on the App Store's schedule (store time), at least once and in order per original
/// transaction. What was sent and when lives in the ledger, so a restart resumes where it stopped;
/// a notification is claimed under the write lock with a lease, so two processes never send the
/// same attempt. It runs beside the store: neither the UI nor a purchase waits for a backend.
public actor NotificationDispatcher {
    public let store: LocalAppStore
    /// How long a backend has to answer before the attempt is TIMED_OUT.
    public let timeout: TimeInterval
    /// Made at the first send: Foundation's URL loading costs milliseconds to set up, which a store
    /// with no backend to notify, and every launch's first frame, need not pay.
    private lazy var session: URLSession = post.session()
    private lazy var post = NotificationPost(timeout: timeout)
    private var loop: Task<Void, Never>?

    public static let defaultTimeout: TimeInterval = 15

    public init(store: LocalAppStore, timeout: TimeInterval = NotificationDispatcher.defaultTimeout) {
        self.store = store
        self.timeout = timeout
    }

    /// Sends whatever falls due: at once when the store rings its outbox bell (a notification written,
    /// another process's commit seen), else every `interval`, for retries falling due and commits the
    /// store has not seen.
    public func start(interval: Duration = .seconds(1)) {
        guard loop == nil else { return }
        let (wakes, wake) = store.outboxBell.wakes()
        wake.yield()  // what was due before it started
        let fallback = Task {
            while (try? await Task.sleep(for: interval)) != nil { wake.yield() }
        }
        loop = Task { [weak self] in
            for await _ in wakes {
                while !Task.isCancelled, let self, await self.deliverDue() > 0 {}
            }
            fallback.cancel()
        }
    }

    /// Stops sending; an attempt in flight finishes and is recorded.
    public func stop() async {
        loop?.cancel()
        await loop?.value
        loop = nil
    }

    /// Sends every notification due now, until none is (a later one of an original transaction
    /// becomes due when the earlier is delivered); a failed one waits for its retry. `storefront run` ends with this.
    public func drain() async {
        while await deliverDue() > 0 {}
    }

    /// Makes one attempt at each notification due now (the first pending one of each original
    /// transaction), side by side; returns how many it tried.
    @discardableResult
    public func deliverDue() async -> Int {
        // The lease outlasts an attempt (its timeout), so no other sender takes the row meanwhile.
        guard let (url, due) = await store.claimDueNotifications(lease: timeout + 30), !due.isEmpty else { return 0 }
        await withTaskGroup(of: Void.self) { group in
            for notification in due {
                group.addTask {
                    // Its own task: stopping the loop must not cancel an attempt in flight, which would be
                    // recorded as the backend's failure and put off for an hour (seen as SOCKET_ISSUE under load).
                    let result = await Task { await self.send(notification.signedPayload, to: url) }.value
                    await self.store.recordSendAttempt(sequence: notification.sequence, result: result)
                }
            }
        }
        return due.count
    }

    /// POSTs one notification; the result is Apple's `sendAttemptResult`.
    func send(_ signedPayload: String, to address: String) async -> String {
        guard let url = Self.url(address) else { return SendAttempt.other }
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(#"{"signedPayload":"\#(signedPayload)"}"#.utf8)
        return await post.send(request, on: session)
    }

    /// The address with its scheme in lower case: URLs allow `HTTP://`, Foundation's loader only `http://`.
    static func url(_ address: String) -> URL? {
        guard var components = URLComponents(string: address) else { return nil }
        components.scheme = components.scheme?.lowercased()
        return components.url
    }

    static func result(of code: URLError.Code) -> String {
        switch code {
        case .timedOut: SendAttempt.timedOut
        case .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet: SendAttempt.noResponse
        case .networkConnectionLost: SendAttempt.prematureClose
        case .badServerResponse, .cannotParseResponse, .zeroByteResource: SendAttempt.invalidResponse
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid,
             .serverCertificateHasUnknownRoot, .clientCertificateRejected, .clientCertificateRequired: SendAttempt.tlsIssue
        case .httpTooManyRedirects, .redirectToNonExistentLocation: SendAttempt.circularRedirect
        default: SendAttempt.socketIssue
        }
    }
}
