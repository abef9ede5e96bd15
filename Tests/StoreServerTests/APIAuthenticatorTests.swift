import Foundation
import StoreSigning
import Testing
@testable import StoreServer

@Suite struct APIAuthenticatorTests {
    static let key = try! APIKey.generate()
    static let bundle = "com.lumenquest.app"
    static let now = Date(timeIntervalSince1970: 1_780_000_000)
    let authenticator = APIAuthenticator(key: key, bundleID: bundle)

    static func request(_ authorization: String?) -> HTTPRequest {
        HTTPRequest(method: "GET", path: "/inApps/v1/transactions/1", headers: authorization.map { ["authorization": $0] } ?? [:])
    }

    /// A token with Apple's header and claims, each overridable (nil removes it).
    static func token(header: [String: Any?] = [:], claims: [String: Any?] = [:], signedBy signer: SigningKey = key.privateKey) throws -> String {
        var fullHeader: [String: Any] = ["alg": "ES256", "kid": key.keyID, "typ": "JWT"]
        var fullClaims: [String: Any] = ["iss": key.issuerID, "aud": "appstoreconnect-v1", "bid": bundle,
                                         "iat": Int(now.timeIntervalSince1970), "exp": Int(now.timeIntervalSince1970) + 300]
        for (name, value) in header { fullHeader[name] = value }
        for (name, value) in claims { fullClaims[name] = value }
        return try APIKey.sign(header: fullHeader, claims: fullClaims, with: signer)
    }

    func reason(_ token: String, at now: Date = Self.now) -> AuthFailure.Reason? {
        authenticator.check(Self.request("Bearer " + token), now: now)?.reason
    }

    @Test func aTokenFromTheKeyForTheBundleIsLetIn() throws {
        #expect(authenticator.check(Self.request("Bearer " + (try Self.token())), now: Self.now) == nil)
        #expect(authenticator.check(Self.request("bearer  " + (try Self.token())), now: Self.now) == nil)
        #expect(authenticator.check(Self.request("Bearer " + (try Self.key.token(bundleID: Self.bundle))), now: Date()) == nil)
    }

    @Test func aRequestWithoutABearerTokenIsMissingOne() {
        #expect(authenticator.check(Self.request(nil), now: Self.now)?.reason == .missingToken)
        #expect(authenticator.check(Self.request("Basic dXNlcjpwYXNz"), now: Self.now)?.reason == .missingToken)
        #expect(authenticator.check(Self.request("Bearer"), now: Self.now)?.reason == .missingToken)
        #expect(authenticator.check(Self.request(" Bearer \t "), now: Self.now)?.reason == .missingToken)
    }

    @Test func theSchemeIsCaseInsensitiveAndBlanksAroundTheTokenAreNotPartOfIt() throws {
        let token = try Self.token()
        #expect(APIAuthenticator.bearerToken(" \tBEARER \t" + token + " \t") == token)
        #expect(APIAuthenticator.bearerToken("Bearer a b") == "a b")
        #expect(APIAuthenticator.bearerToken("Bearerx " + token) == nil)
        #expect(APIAuthenticator.bearerToken("Bearér " + token) == nil)
    }

    @Test(arguments: ["a.b", "a.b.c.d", "!!!.e30.AA", "e30.e30.AA", "eyJhbGciOiJFUzI1NiJ9.!!.AA", String(repeating: "A", count: 10_000)])
    func garbageIsAMalformedToken(token: String) {
        #expect(reason(token) == .malformedToken)
    }

    @Test func aTokenOfAnotherAlgorithmIsRefused() throws {
        #expect(reason(try Self.token(header: ["alg": "HS256"])) == .wrongAlgorithm)
        #expect(reason(try Self.token(header: ["alg": "none"])) == .wrongAlgorithm)
        #expect(reason(try Self.token(header: ["typ": "JOSE+JSON"])) == .malformedToken)
        #expect(reason(try Self.token(header: ["typ": nil])) == nil)  // typ is optional
    }

    @Test func aTokenOfAnotherKeyIsForeignEvenWithThisKeysID() throws {
        let other = try SigningKey.generate()
        #expect(reason(try Self.token(header: ["kid": "ABCDEFGHIJ"], signedBy: other)) == .foreignKey)
        #expect(reason(try Self.token(header: ["kid": nil])) == .foreignKey)
        #expect(reason(try Self.token(signedBy: other)) == .badSignature)
    }

    @Test func aTamperedTokenHasABadSignature() throws {
        let parts = try Self.token().split(separator: ".").map(String.init)
        let forged = Base64URL.encode(Data(#"{"iss":"x"}"#.utf8))
        #expect(reason([parts[0], forged, parts[2]].joined(separator: ".")) == .badSignature)
        #expect(reason([parts[0], parts[1], String(parts[2].dropLast(2))].joined(separator: ".")) == .badSignature)
    }

    @Test func claimsMustNameThisIssuerAudienceAndBundle() throws {
        #expect(reason(try Self.token(claims: ["iss": UUID().uuidString.lowercased()])) == .wrongIssuer)
        #expect(reason(try Self.token(claims: ["iss": nil])) == .wrongIssuer)
        #expect(reason(try Self.token(claims: ["aud": "appstoreconnect-v2"])) == .wrongAudience)
        #expect(reason(try Self.token(claims: ["aud": ["other", "appstoreconnect-v1"]])) == nil)
        #expect(reason(try Self.token(claims: ["bid": "com.other.app"])) == .wrongBundle)
        #expect(reason(try Self.token(claims: ["bid": nil])) == .wrongBundle)
        #expect(reason(try Self.token(claims: ["exp": "tomorrow"])) == .malformedToken)
        #expect(reason(try Self.token(claims: ["exp": nil])) == .malformedToken)
    }

    @Test func anExpiredTokenIsRefusedBeyondTheClockSkew() throws {
        let token = try Self.token()  // exp = now + 300
        #expect(reason(token, at: Self.now.addingTimeInterval(300 + 59)) == nil)
        #expect(reason(token, at: Self.now.addingTimeInterval(300 + 61)) == .expired)
    }

    @Test func aTokenIssuedInTheFutureIsNotYetValid() throws {
        let issued = Int(Self.now.timeIntervalSince1970)
        #expect(reason(try Self.token(claims: ["iat": issued + 120, "exp": issued + 400])) == .notYetValid)
        #expect(reason(try Self.token(claims: ["iat": issued + 30, "exp": issued + 400])) == nil)
    }

    @Test func aTokenLivingMoreThanAnHourIsRefusedAsApplesServerDoes() throws {
        let issued = Int(Self.now.timeIntervalSince1970)
        #expect(reason(try Self.token(claims: ["exp": issued + 3600])) == nil)
        #expect(reason(try Self.token(claims: ["exp": issued + 3601])) == .lifetimeTooLong)
        // Apple's own client sends no iat: the hour then counts from now.
        #expect(reason(try Self.token(claims: ["iat": nil, "exp": issued + 300])) == nil)
        #expect(reason(try Self.token(claims: ["iat": nil, "exp": issued + 7200])) == .lifetimeTooLong)
    }

    /// Signed claims are still the client's numbers: times far beyond any clock are refused, and the
    /// reason (logged) is written without trapping on a conversion to Int.
    @Test(arguments: [9.3e18, -9.3e18, 1e300, -1e300, Double(Int64.max), Double(Int64.min), 4e15])
    func extremeTimesAreRefusedWithoutTrapping(time: Double) throws {
        let issued = Self.now.timeIntervalSince1970
        for claims: [String: Any?] in [["iat": time], ["exp": time], ["iat": time, "exp": time], ["iat": nil, "exp": time]] {
            let failure = authenticator.check(Self.request("Bearer " + (try Self.token(claims: claims))), now: Self.now)
            #expect(failure != nil, "\(claims) let in")
            #expect(failure.map { !$0.description.isEmpty } ?? false)
        }
        #expect(reason(try Self.token(claims: ["iat": issued, "exp": time])) == (time > issued ? .lifetimeTooLong : .expired))
        #expect(reason(try Self.token(claims: ["iat": time, "exp": issued + 300])) == (time > issued ? .notYetValid : .lifetimeTooLong))
    }

    @Test func theResponseRevealsNothingOfTheReason() throws {
        let failure = try #require(authenticator.check(Self.request("Bearer " + (try Self.token(claims: ["bid": "com.other.app"]))), now: Self.now))
        #expect(failure.description.contains("com.other.app"))
        #expect(failure.response.status == 401)
        #expect(String(decoding: failure.response.body, as: UTF8.self) == "Unauthenticated\n")
    }
}
