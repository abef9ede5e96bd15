/// One route of the App Store Server API: a method and a path whose `{}` segments are the answer's
/// arguments, in order (`/inApps/v1/messaging/default/{}/{}` → product ID, locale).
struct Route: Sendable {
    typealias Answer = @Sendable (AppStoreServerAPI, [String], HTTPRequest) async throws -> HTTPResponse

    var method: String
    /// Each segment of the path: its bytes, or nil for an argument (`{}`), compared as bytes without
    /// asking again which it is (that was a third of matching a request against the table).
    var pattern: [[UInt8]?]
    var answer: Answer

    init(_ method: String, _ path: String, _ answer: @escaping Answer) {
        self.method = method
        self.pattern = path.split(separator: "/").map { $0 == "{}" ? nil : Array($0.utf8) }
        self.answer = answer
        literalSegments = pattern.count { $0 != nil }
    }

    /// How many segments are spelled out: where two routes match a path, the more literal one wins
    /// (`extend/mass` over `extend/{}`, `image/list` over `image/{}`).
    let literalSegments: Int

    /// The arguments of a path split at its slashes (`segments(of:)`) when it matches (none for a path
    /// without any); nil otherwise.
    func arguments(in segments: ArraySlice<Substring>) -> [String]? {
        // The literal segments first: every request is tried against the whole table, and decoding
        // the arguments of routes it does not match was the largest part of routing one.
        // Byte for byte, as a path is sent (String's == also equates canonically equivalent spellings, and costs more).
        guard segments.count == pattern.count,
              zip(segments, pattern).allSatisfy({ $1.map($0.utf8.elementsEqual) ?? !$0.isEmpty }) else { return nil }
        var arguments: [String] = []
        for (segment, expected) in zip(segments, pattern) where expected == nil {
            // The path arrives as sent: its arguments are percent-decoded here (the query already is).
            guard let decoded = segment.utf8.contains(UInt8(ascii: "%")) ? String(segment).removingPercentEncoding : String(segment) else { return nil }
            arguments.append(decoded)
        }
        return arguments
    }

    /// A path's segments after its leading slash, split once for the whole table.
    static func segments(of path: String) -> ArraySlice<Substring> {
        // By bytes: a slash is one, and splitting by Characters was a tenth of routing.
        ArraySlice(path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).dropFirst().map { Substring($0) })
    }
}

/// What a request's path and method find in a table of routes.
enum RouteMatch {
    case found(Route, arguments: [String])
    /// The path is a route's, but not for this method.
    case wrongMethod(allowed: [String])
    case none

    init(_ request: HTTPRequest, in routes: [Route]) {
        let segments = Route.segments(of: request.path)
        let paths = routes.compactMap { route in route.arguments(in: segments).map { (route, $0) } }
        if let (route, arguments) = paths.filter({ $0.0.method == request.method }).max(by: { $0.0.literalSegments < $1.0.literalSegments }) {
            self = .found(route, arguments: arguments)
        } else if paths.isEmpty {
            self = .none
        } else {
            self = .wrongMethod(allowed: Set(paths.map(\.0.method)).sorted())
        }
    }
}

/// A layer around a handler: it answers a request itself (a refusal) or hands it on.
typealias Middleware = @Sendable (@escaping HTTPHandler) -> HTTPHandler

extension AppStoreServerAPI {
    /// Lets a request through to `next` only when `check` finds nothing to refuse.
    static func guarded(by check: @escaping @Sendable (HTTPRequest) -> HTTPResponse?) -> Middleware {
        { next in { request in
            if let refusal = check(request) { return refusal }
            return await next(request)
        } }
    }
}
