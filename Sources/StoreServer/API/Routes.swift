import Foundation

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

    /// Whether a path whose segments lie at `segments` in `path` is this route's: every literal segment
    /// byte for byte, as a path is sent (String's == also equates canonically equivalent spellings, and
    /// costs more), and an argument where the pattern has one.
    func matches(_ segments: [Range<Int>], in path: UnsafeBufferPointer<UInt8>) -> Bool {
        guard segments.count == pattern.count else { return false }
        for (i, range) in segments.enumerated() {
            guard let literal = pattern[i] else {
                if range.isEmpty { return false }
                continue
            }
            guard range.count == literal.count, literal.elementsEqual(path[range]) else { return false }
        }
        return true
    }

    /// The arguments of a path this route matches, percent-decoded (the query already is); nil when one
    /// does not decode.
    func arguments(_ segments: [Range<Int>], in path: UnsafeBufferPointer<UInt8>) -> [String]? {
        var arguments: [String] = []
        for (i, range) in segments.enumerated() where pattern[i] == nil {
            let segment = String(decoding: UnsafeBufferPointer(rebasing: path[range]), as: UTF8.self)
            guard let decoded = segment.utf8.contains(UInt8(ascii: "%")) ? segment.removingPercentEncoding : segment else { return nil }
            arguments.append(decoded)
        }
        return arguments
    }

    /// Where a path's segments lie, after its leading slash: split once for the whole table. A path
    /// without one (not a path a client sends) has none, so no route's.
    static func segments(of path: UnsafeBufferPointer<UInt8>) -> [Range<Int>] {
        guard path.first == UInt8(ascii: "/") else { return [] }
        var segments: [Range<Int>] = []
        var start = 1
        for (i, byte) in path.enumerated().dropFirst() where byte == UInt8(ascii: "/") {
            segments.append(start..<i)
            start = i + 1
        }
        segments.append(start..<path.count)
        return segments
    }
}

/// What a request's path and method find in a table of routes.
enum RouteMatch {
    case found(Route, arguments: [String])
    /// The path is a route's, but not for this method.
    case wrongMethod(allowed: [String])
    case none

    /// The routes are compared on the path's bytes in place, and only the one chosen decodes its
    /// arguments: routing a request was more than reading its transaction from the ledger.
    init(_ request: HTTPRequest, in routes: [Route]) {
        var path = request.path
        self = path.withUTF8 { path in
            let segments = Route.segments(of: path)
            // A path whose argument does not decode is no route's (only a path with a `%` can have one).
            let encoded = path.contains(UInt8(ascii: "%"))
            let paths = routes.filter { $0.matches(segments, in: path) && (!encoded || $0.arguments(segments, in: path) != nil) }
            if let route = paths.filter({ $0.method == request.method }).max(by: { $0.literalSegments < $1.literalSegments }),
               let arguments = route.arguments(segments, in: path) {
                return .found(route, arguments: arguments)
            }
            return paths.isEmpty ? .none : .wrongMethod(allowed: Set(paths.map(\.method)).sorted())
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
