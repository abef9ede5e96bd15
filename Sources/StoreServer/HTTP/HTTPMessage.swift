import Foundation

/// A request as the App Store Server API and the notification tests see it: parsed by
/// libmicrohttpd (`HTTPServer`), never by hand.
public struct HTTPRequest: Sendable, Equatable {
    public var method: String
    /// The path without the query, percent-decoded per segment by the router, e.g. `/inApps/v1/transactions/42`.
    public var path: String
    /// Query arguments in order; a name may repeat (`productId=a&productId=b`).
    public var query: [(name: String, value: String)]
    /// Header names lower-cased.
    public var headers: [String: String]
    public var body: Data

    public init(method: String, path: String, query: [(name: String, value: String)] = [], headers: [String: String] = [:], body: Data = Data()) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    public func header(_ name: String) -> String? { headers[name.lowercased()] }
    public func queryValues(_ name: String) -> [String] { query.filter { $0.name == name }.map(\.value) }

    public static func == (a: HTTPRequest, b: HTTPRequest) -> Bool {
        a.method == b.method && a.path == b.path && a.headers == b.headers && a.body == b.body
            && a.query.map { [$0.name, $0.value] } == b.query.map { [$0.name, $0.value] }
    }
}

public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON body with `content-type: application/json` (Apple's client parses errors only with it).
    public static func json(_ status: Int, _ text: String) -> HTTPResponse {
        var text = text  // its bytes copied at once (through the generic UTF-8 view, a cast and a loop)
        return HTTPResponse(status: status, headers: ["content-type": "application/json"], body: text.withUTF8 { Data($0) })
    }
}

/// What answers requests: the App Store Server API router, or a test's handler.
public typealias HTTPHandler = @Sendable (HTTPRequest) async -> HTTPResponse
