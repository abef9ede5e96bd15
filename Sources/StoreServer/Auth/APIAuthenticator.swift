import Foundation
import StoreSigning
import Locking

/// Why a request was not let in: for the log. The client only ever sees `AuthFailure.response`.
public struct AuthFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: String, Sendable, Equatable {
        /// No `Authorization: Bearer …` header.
        case missingToken
        /// Not a compact JWS with JSON header and claims, or a claim of the wrong type.
        case malformedToken
        /// `alg` is not ES256.
        case wrongAlgorithm
        /// `kid` names another key.
        case foreignKey
        /// The signature does not match this server's key.
        case badSignature
        case wrongIssuer
        case wrongAudience
        /// `bid` is not the catalog's bundle ID.
        case wrongBundle
        case expired
        /// `iat` lies in the future.
        case notYetValid
        /// `exp` is more than 60 minutes after `iat` (or after now, without `iat`).
        case lifetimeTooLong
    }

    public let reason: Reason
    public let detail: String
    public var description: String { "\(reason.rawValue): \(detail)" }

    /// 401 as the App Store Server API answers it, revealing nothing about the token.
    public var response: HTTPResponse {
        HTTPResponse(status: 401, headers: ["content-type": "text/plain; charset=utf-8", "www-authenticate": "Bearer"],
                     body: Data("Unauthenticated\n".utf8))
    }
}

/// Checks the App Store Server API's bearer tokens (ES256 JWTs signed with the API key), as Apple's
/// server does. Time is wall-clock time: the tokens are real JWTs, made by a real backend's clock.
public struct APIAuthenticator: Sendable {
    public let keyID: String
    public let issuerID: String
    public let bundleID: String
    private let publicKey: PublicKey
    /// Tokens whose signature and claims passed: a backend sends one token for many requests, and its
    /// signature check was most of a request's own work under load.
    private let verified = VerifiedTokens()
    /// Tolerated disagreement between the backend's clock and this one.
    public var clockSkew: TimeInterval = 60

    public static let audience = "appstoreconnect-v1"
    /// Apple refuses tokens that live longer than 60 minutes.
    public static let maximumLifetime: TimeInterval = 3600
    /// Anything longer is not a token this server made room for.
    static let maximumTokenLength = 8192

    public init(key: APIKey, bundleID: String) {
        keyID = key.keyID
        issuerID = key.issuerID
        self.bundleID = bundleID
        publicKey = key.privateKey.publicKey
    }

    /// nil when the request carries a valid token for this key and bundle.
    public func check(_ request: HTTPRequest, now: Date = Date()) -> AuthFailure? {
        guard let authorization = request.header("authorization") else {
            return AuthFailure(reason: .missingToken, detail: "no Authorization header")
        }
        guard let token = Self.bearerToken(authorization) else {
            return AuthFailure(reason: .missingToken, detail: "the Authorization header is not 'Bearer <token>'")
        }
        return check(token: token, now: now)
    }

    /// What follows `Bearer` (any case) and blanks, without blanks around it; nil when nothing does.
    /// By bytes: Foundation's trimming was a tenth of a request's time under load.
    static func bearerToken(_ authorization: String) -> String? {
        // Over the bytes by index: the reversed views it took before cost as much as verifying the token.
        let bytes = Array(authorization.utf8)
        let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        var (start, end) = (0, bytes.count)
        while start < end, isBlank(bytes[start]) { start += 1 }
        while end > start, isBlank(bytes[end - 1]) { end -= 1 }
        guard let blank = bytes[start..<end].firstIndex(where: isBlank),
              String(decoding: bytes[start..<blank], as: UTF8.self).lowercased() == "bearer" else { return nil }
        var token = blank
        while token < end, isBlank(bytes[token]) { token += 1 }
        return token < end ? String(decoding: bytes[token..<end], as: UTF8.self) : nil
    }

    private struct Header: Decodable {
        var alg: String
        var kid: String?
        var typ: String?
    }

    private struct Claims: Decodable {
        var iss: String?
        var aud: Audience?
        var bid: String?
        var iat: Double?
        var exp: Double?
    }

    /// RFC 7519 allows one audience or several.
    private struct Audience: Decodable {
        var values: [String]
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let several = try? container.decode([String].self) { values = several } else { values = [try container.decode(String.self)] }
        }
    }

    public func check(token: String, now: Date = Date()) -> AuthFailure? {
        func fail(_ reason: AuthFailure.Reason, _ detail: String) -> AuthFailure { AuthFailure(reason: reason, detail: detail) }
        guard token.utf8.count <= Self.maximumTokenLength else {
            return fail(.malformedToken, "the token is longer than \(Self.maximumTokenLength) bytes")
        }
        if let times = verified.times(of: token) { return checkTimes(issued: times.issued, expires: times.expires, now: now.timeIntervalSince1970) }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let headerData = Base64URL.decode(parts[0]), let claimsData = Base64URL.decode(parts[1]),
              let signature = Base64URL.decode(parts[2]) else {
            return fail(.malformedToken, "not a compact JWS (three base64url parts)")
        }
        guard let header = try? JSONDecoder().decode(Header.self, from: headerData) else {
            return fail(.malformedToken, "the header is not a JSON object with alg")
        }
        guard header.alg == "ES256" else { return fail(.wrongAlgorithm, "alg is \(header.alg), not ES256") }
        if let typ = header.typ, typ.uppercased() != "JWT" { return fail(.malformedToken, "typ is \(typ), not JWT") }
        guard header.kid == keyID else {
            return fail(.foreignKey, "signed with key \(header.kid ?? "(no kid)"), not this server's key \(keyID)")
        }
        guard publicKey.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8)) else {
            return fail(.badSignature, "the signature does not match key \(keyID)")
        }
        guard let claims = try? JSONDecoder().decode(Claims.self, from: claimsData) else {
            return fail(.malformedToken, "the claims are not a JSON object of the expected types")
        }
        guard claims.iss == issuerID else { return fail(.wrongIssuer, "iss is \(claims.iss ?? "missing"), not the issuer ID \(issuerID)") }
        guard claims.aud?.values.contains(Self.audience) == true else {
            return fail(.wrongAudience, "aud is \(claims.aud?.values.joined(separator: ", ") ?? "missing"), not \(Self.audience)")
        }
        guard claims.bid == bundleID else { return fail(.wrongBundle, "bid is \(claims.bid ?? "missing"), not the catalog's bundle ID \(bundleID)") }
        verified.remember(token, issued: claims.iat, expires: claims.exp)
        return checkTimes(issued: claims.iat, expires: claims.exp, now: now.timeIntervalSince1970)
    }

    /// Apple's library sends no `iat`; then the lifetime counts from now.
    private func checkTimes(issued: Double?, expires: Double?, now: Double) -> AuthFailure? {
        guard let expires else { return AuthFailure(reason: .malformedToken, detail: "no exp claim") }
        guard expires + clockSkew > now else {
            return AuthFailure(reason: .expired, detail: "expired \(Self.seconds(now - expires)) s ago")
        }
        if let issued, issued - clockSkew > now {
            return AuthFailure(reason: .notYetValid, detail: "iat is \(Self.seconds(issued - now)) s in the future")
        }
        guard expires - (issued ?? now) <= Self.maximumLifetime + (issued == nil ? clockSkew : 0) else {
            return AuthFailure(reason: .lifetimeTooLong, detail: "exp is more than 60 minutes after \(issued == nil ? "now" : "iat")")
        }
        return nil
    }

    /// Whole seconds for the log; the claims are the client's numbers, so any Double must print (never trap in `Int(_:)`).
    static func seconds(_ value: Double) -> String {
        abs(value) < 1e15 ? String(Int(value)) : String(format: "%.3g", value)
    }
}

/// The last few tokens whose signature and claims (all but their times) passed, with their times.
/// The same bytes always pass the same checks, so a token found here needs only its times checked.
/// Every request takes its lock (a `Locked`, whose waiters sleep).
final class VerifiedTokens: Sendable {
    static let capacity = 16
    private let tokens = Locked<[(token: String, issued: Double?, expires: Double?)]>([])

    func times(of token: String) -> (issued: Double?, expires: Double?)? {
        tokens.withLock { tokens in tokens.first { $0.token == token }.map { ($0.issued, $0.expires) } }
    }

    func remember(_ token: String, issued: Double?, expires: Double?) {
        tokens.withLock { tokens in
            if tokens.count == Self.capacity { tokens.removeFirst() }
            tokens.append((token, issued, expires))
        }
    }
}
