import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StoreCore
import StoreEngine

/// Initiate Performance Test and its results: the store sends `totalRequests` signed realtime
/// requests to the backend's realtime URL, `maxConcurrentRequests` at a time, and reports how fast
/// and how often it answered 2xx within `responseTimeThreshold` (Apple's "approximately 700 ms").
/// The numbers are Storefront's: Apple documents the fields, not its values.
struct PerformanceTest {
    static let config: JSONValue = ["maxConcurrentRequests": 5, "totalRequests": 20, "totalDuration": 10_000,
                                    "responseTimeThreshold": 700, "successRateThreshold": 95]
    static let totalRequests = 20, concurrency = 5, threshold = 0.7, successRateThreshold = 95

    /// Runs the test and keeps its results under `requestID` (PENDING while it runs).
    static func run(store: LocalAppStore, url: URL, originalTransactionID: Int64, requestID: String) async {
        let post = NotificationPost(timeout: 5)
        let session = post.session(connectionsPerHost: concurrency)
        defer { session.invalidateAndCancel() }
        var outcomes: [(seconds: Double, result: String)] = []
        for start in stride(from: 0, to: totalRequests, by: concurrency) {
            outcomes += await withTaskGroup(of: (Double, String).self) { group in
                for _ in start..<min(start + concurrency, totalRequests) {
                    group.addTask { await attempt(store: store, url: url, originalTransactionID: originalTransactionID, post: post, session: session) }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
        }
        try? await store.putServerRecord(.performanceTest, id: requestID, value: results(outcomes, target: url).compact)
    }

    static func attempt(store: LocalAppStore, url: URL, originalTransactionID: Int64, post: NotificationPost, session: URLSession) async -> (Double, String) {
        guard let signed = try? await store.signedRealtimeRequest(originalTransactionID: originalTransactionID, locale: "en-US") else {
            return (0, SendAttempt.other)
        }
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "content-type")
        request.httpBody = Data((["signedPayload": .string(signed)] as JSONValue).compact.utf8)
        let started = Date()
        var result = await post.send(request, on: session)
        let seconds = Date().timeIntervalSince(started)
        if result == SendAttempt.success, seconds > threshold { result = SendAttempt.timedOut }
        return (seconds, result)
    }

    /// Apple's `PerformanceTestResultResponse`: response times in milliseconds, failures by `SendAttemptResult`.
    static func results(_ outcomes: [(seconds: Double, result: String)], target: URL) -> JSONValue {
        let times = outcomes.map { Int(($0.seconds * 1000).rounded()) }.sorted()
        func percentile(_ p: Double) -> JSONValue { .number(String(times.isEmpty ? 0 : times[min(times.count - 1, Int(Double(times.count) * p))])) }
        let succeeded = outcomes.filter { $0.result == SendAttempt.success }.count
        let rate = outcomes.isEmpty ? 0 : succeeded * 100 / outcomes.count
        let failures = Dictionary(grouping: outcomes.filter { $0.result != SendAttempt.success }, by: \.result)
        return [
            "config": config, "target": .string(target.absoluteString), "result": .string(rate >= successRateThreshold ? "PASS" : "FAIL"),
            "successRate": .number(String(rate)), "numPending": 0,
            "responseTimes": ["average": .number(String(times.isEmpty ? 0 : times.reduce(0, +) / times.count)),
                              "p50": percentile(0.5), "p90": percentile(0.9), "p95": percentile(0.95), "p99": percentile(0.99)],
            "failures": .object(failures.sorted { $0.key < $1.key }.map { (key: $0.key, value: .number(String($0.value.count))) }),
        ]
    }
}

extension AppStoreServerAPI {
    func initiatePerformanceTest(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let text = try Self.jsonObject(request)["originalTransactionId"]?.stringValue, let originalID = Int64(text), originalID > 0 else {
            throw APIError.invalidPerformanceTestRequest()
        }
        guard let target = await store.serverRecord(.realtimeURL, id: "").flatMap(URL.init(string:)) else { throw APIError.realtimeURLNotFound() }
        guard try await store.signedRealtimeRequest(originalTransactionID: originalID, locale: "en-US") != nil else {
            throw APIError.originalTransactionIDNotFound()
        }
        let running = await store.serverRecords(.performanceTest).contains { (try? JSONParser.parse($0.value))?["result"]?.stringValue == "PENDING" }
        guard !running else { throw APIError.existingPerformanceTestRun() }
        let requestID = UUID().uuidString.lowercased()
        let pending: JSONValue = ["config": PerformanceTest.config, "target": .string(target.absoluteString), "result": "PENDING",
                                  "numPending": .number(String(PerformanceTest.totalRequests))]
        try await store.putServerRecord(.performanceTest, id: requestID, value: pending.compact)
        let store = store
        Task { await PerformanceTest.run(store: store, url: target, originalTransactionID: originalID, requestID: requestID) }
        return ok(["config": PerformanceTest.config, "requestId": .string(requestID)] as JSONValue)
    }

    func performanceTestResult(_ requestID: String) async throws -> HTTPResponse {
        guard UUID(uuidString: requestID) != nil else { throw APIError.invalidRequestID() }
        guard let text = await store.serverRecord(.performanceTest, id: requestID.lowercased()) else { throw APIError.performanceTestRunNotFound() }
        return .json(200, text)
    }
}
