import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StoreEngine
import Synchronization

/// One notification POST as the App Store makes it: redirects are not followed (a 3xx is the
/// backend's failure, retried like any other), and the answer ends with its status line and headers:
/// the body decides nothing and is dropped as it arrives until the connection closes, so a backend
/// answering gigabytes costs no memory and no time. The session's delegate: Foundation calls it on the session's queue, and
/// each request in flight waits behind a lock.
final class NotificationPost: NSObject, URLSessionDataDelegate, Sendable {
    private let inFlight = Mutex<[Int: CheckedContinuation<String, Never>]>([:])

    /// Sends `request` on `session` (whose delegate this is); the result is Apple's `sendAttemptResult`.
    func send(_ request: URLRequest, on session: URLSession) async -> String {
        let task = session.dataTask(with: request)
        return await withCheckedContinuation { finish in
            inFlight.withLock { $0[task.taskIdentifier] = finish }
            task.resume()
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(nil)  // the 3xx itself is the answer
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        finish(dataTask.taskIdentifier, Self.result(of: response))
        // Cancelled before the body is let in: refusing it alone (`.cancel`) left the connection reading it
        // for ever, and letting it in first read (and queued) hundreds of MB before the cancellation took.
        dataTask.cancel()
        completionHandler(.cancel)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        // Only an attempt that got no answer is still in flight here.
        finish(task.taskIdentifier, (error as? URLError).map { NotificationDispatcher.result(of: $0.code) }
            ?? task.response.map(Self.result) ?? (error == nil ? SendAttempt.invalidResponse : SendAttempt.other))
    }

    private func finish(_ id: Int, _ result: String) {
        inFlight.withLock { $0.removeValue(forKey: id) }?.resume(returning: result)
    }

    static func result(of response: URLResponse) -> String {
        guard let http = response as? HTTPURLResponse else { return SendAttempt.invalidResponse }
        return (200...206).contains(http.statusCode) ? SendAttempt.success : SendAttempt.unsuccessfulHTTPResponseCode
    }
}
