import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StoreEngine
import Synchronization

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
    private let inFlight = Mutex<[Int: CheckedContinuation<String, Never>]>([:])

    /// A session whose answers this object reads; `timeout` bounds the request and the whole transfer.
    func session(timeout: TimeInterval, connectionsPerHost: Int = 4) -> URLSession {
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
        async let result = withCheckedContinuation { finish in
            inFlight.withLock { $0[task.taskIdentifier] = finish }
            task.resume()
        }
        await endAtTheHeaders(of: task)
        return await result
    }

    /// Answers as soon as the status line and headers are in, then closes the connection.
    private func endAtTheHeaders(of task: URLSessionDataTask) async {
        var pause = Duration.milliseconds(1)
        while task.state == .suspended || task.state == .running {
            if let response = task.response, inFlight.withLock({ $0[task.taskIdentifier] != nil }) {
                finish(task.taskIdentifier, Self.result(of: response))
                task.cancel()
                return
            }
            try? await Task.sleep(for: pause)
            pause = min(pause * 2, .milliseconds(16))
        }
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

    private func finish(_ id: Int, _ result: String) {
        inFlight.withLock { $0.removeValue(forKey: id) }?.resume(returning: result)
    }

    static func result(of response: URLResponse) -> String {
        guard let http = response as? HTTPURLResponse else { return SendAttempt.invalidResponse }
        return (200...206).contains(http.statusCode) ? SendAttempt.success : SendAttempt.unsuccessfulHTTPResponseCode
    }
}
