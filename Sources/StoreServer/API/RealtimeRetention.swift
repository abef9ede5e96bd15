import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StoreCore

/// The App Store's call to a backend's Get Retention Message endpoint (its realtime URL) when a
/// customer cancels: a POST of `{"signedPayload"}`; the JSON answer, or nil when it failed or took
/// longer than Apple's limit, and the default message shows instead.
public enum RealtimeRetention {
    /// "Your server must respond to requests within approximately 700 ms."
    public static let timeout: TimeInterval = 0.7

    public static func ask(url: String, signedPayload: String, timeout: TimeInterval = timeout) async -> JSONValue? {
        guard let target = URL(string: url) else { return nil }
        var request = URLRequest(url: target, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "content-type")
        request.httpBody = Data((["signedPayload": .string(signedPayload)] as JSONValue).compact.utf8)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        guard let (data, response) = try? await session.data(for: request),
              let status = (response as? HTTPURLResponse)?.statusCode, (200...299).contains(status) else { return nil }
        return try? JSONParser.parse(data)
    }
}
