import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StoreEngine
import Locking

/// One notification POST as the App Store makes it: redirects are not followed (a 3xx is the
/// backend's failure, retried like any other), and the answer ends with its status line and headers:
/// the body decides nothing, so a backend answering gigabytes costs no memory.
///
/// This is a task delegate, not a data delegate, on purpose: Foundation on Linux hands a data delegate
/// every chunk of the body as an operation of its own, and cannot stop a transfer at once (its
/// cancellation waits its turn behind the reading). On a busy machine the chunks queued faster than
/// they were handled: 1.4 GB in 2.6 s. Without one, the body is dropped where it is read, and the
/// headers are watched for instead.
final class NotificationPost: NSObject, URLSessionTaskDelegate, Sendable {
    private let inFlight = Locked<[Int: CheckedContinuation<String, Never>]>([:])

    /// How long an attempt may take, headers and all.
    private let timeout: TimeInterval

    init(timeout: TimeInterval) {
        self.timeout = timeout
    }

    /// A session whose answers this object reads.
    func session(connectionsPerHost: Int = 4) -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        configuration.httpMaximumConnectionsPerHost = connectionsPerHost
        configuration.urlCache = nil
        return URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
    }

    /// Sends `request` on a session of this object's; the result is Apple's `sendAttemptResult`.
    func send(_ request: URLRequest, on session: URLSession) async -> String {
        let task = session.dataTask(with: request)
        return await withCheckedContinuation { finish in
            inFlight.withLock { $0[task.taskIdentifier] = finish }
            task.resume()
            watch(task, pause: .milliseconds(1))
            // Foundation's own timeout does not end a redirect whose body never ends (it keeps the body,
            // to hand over with the 3xx at its end): that took 70–90 s, not `timeout`. Not on the shared
            // pool: under load its threads were all busy and the attempt ended seconds late.
            timer.asyncAfter(deadline: .now() + timeout) { self.end(task, SendAttempt.timedOut) }
        }
    }

    /// Ends the attempt as soon as the status line and headers are in. On a queue of its own: reading
    /// a task's response waits for Foundation's queue, which a redirect's endless body keeps busy.
    private func watch(_ task: URLSessionDataTask, pause: DispatchTimeInterval) {
        watcher.asyncAfter(deadline: .now() + pause) { [self] in
            guard inFlight.withLock({ $0[task.taskIdentifier] != nil }) else { return }
            if let response = task.response { return end(task, Self.result(of: response)) }
            watch(task, pause: pause == .milliseconds(1) ? .milliseconds(4) : .milliseconds(16))
        }
    }
    private let watcher = DispatchQueue(label: "storefront.notification-post")
    private let timer = DispatchQueue(label: "storefront.notification-timeout")

    /// Answers the attempt (if nothing did yet) and closes its connection.
    private func end(_ task: URLSessionDataTask, _ result: String) {
        if finish(task.taskIdentifier, result) { task.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(nil)  // the 3xx itself is the answer
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        // Only an attempt whose headers were not seen is still in flight here.
        finish(task.taskIdentifier, task.response.map(Self.result)
            ?? (error as? URLError).map { NotificationDispatcher.result(of: $0.code) }
            ?? (error == nil ? SendAttempt.invalidResponse : SendAttempt.other))
    }

    /// Whether the attempt was still unanswered.
    @discardableResult
    private func finish(_ id: Int, _ result: String) -> Bool {
        guard let waiting = inFlight.withLock({ $0.removeValue(forKey: id) }) else { return false }
        waiting.resume(returning: result)
        return true
    }

    static func result(of response: URLResponse) -> String {
        guard let http = response as? HTTPURLResponse else { return SendAttempt.invalidResponse }
        return (200...206).contains(http.statusCode) ? SendAttempt.success : SendAttempt.unsuccessfulHTTPResponseCode
    }
}
