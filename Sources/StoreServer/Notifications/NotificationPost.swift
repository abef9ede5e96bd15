import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StoreEngine
import Synchronization

/// One notification POST as the App Store makes it: redirects are not followed (a 3xx is the
/// backend's failure, retried like any other), and at most `bodyLimit` bytes of the answer are read,
/// so a backend answering gigabytes costs a few kilobytes. The session's delegate: Foundation calls
/// it on the session's serial queue, and the state of each request in flight sits behind a lock.
final class NotificationPost: NSObject, URLSessionDataDelegate, Sendable {
    /// What is read of a response's body before it is closed: the status is all that counts.
    static let bodyLimit = 4096

    private struct InFlight {
        var finish: CheckedContinuation<String, Never>
        var status: Int?
        var bodyBytes = 0
    }
    private let inFlight = Mutex<[Int: InFlight]>([:])

    /// Sends `request` on `session` (whose delegate this is); the result is Apple's `sendAttemptResult`.
    func send(_ request: URLRequest, on session: URLSession) async -> String {
        let task = session.dataTask(with: request)
        return await withCheckedContinuation { finish in
            inFlight.withLock { $0[task.taskIdentifier] = InFlight(finish: finish) }
            task.resume()
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(nil)  // the 3xx itself is the answer
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        inFlight.withLock { $0[dataTask.taskIdentifier]?.status = (response as? HTTPURLResponse)?.statusCode }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let enough = inFlight.withLock { requests -> Bool in
            requests[dataTask.taskIdentifier]?.bodyBytes += data.count
            return (requests[dataTask.taskIdentifier]?.bodyBytes ?? 0) >= Self.bodyLimit
        }
        // Finished here with the status already in: the cancellation that follows is not a failure.
        if enough { finish(dataTask.taskIdentifier, error: nil); dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let status = inFlight.withLock { $0[task.taskIdentifier]?.status }
        // A 3xx not followed ends with an error on some Foundations; its status is still the answer.
        finish(task.taskIdentifier, error: status.map { (300...399).contains($0) } == true ? nil : error)
    }

    private func finish(_ id: Int, error: (any Error)?) {
        guard let request = inFlight.withLock({ $0.removeValue(forKey: id) }) else { return }
        request.finish.resume(returning: Self.result(status: request.status, error: error))
    }

    static func result(status: Int?, error: (any Error)?) -> String {
        if let error = error as? URLError { return NotificationDispatcher.result(of: error.code) }
        if error != nil { return SendAttempt.other }
        guard let status else { return SendAttempt.invalidResponse }
        return (200...206).contains(status) ? SendAttempt.success : SendAttempt.unsuccessfulHTTPResponseCode
    }
}
