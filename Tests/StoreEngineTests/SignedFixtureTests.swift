import Foundation
import Testing
import StoreCore
import StoreClient
import StoreSigning
import StorefrontTestSupport
import StoreVerification

/// The app-side verifier against real data signed by Apple's libraries and by Xcode.
@Suite("Signed fixtures through SignedDataVerifier")
struct SignedFixtureTests {
    static let jws = Repo.sharedFixtures.appendingPathComponent("jws")

    func text(_ name: String) throws -> String {
        try String(contentsOf: Self.jws.appendingPathComponent(name), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("Xcode's signed transaction decodes field by field, and is refused as Apple's verifier refuses it: one certificate, not three")
    func xcodeTransaction() throws {
        let token = try text("xcode-signed-transaction")
        let header = try JSONParser.parse(Base64URL.decode(String(token.split(separator: ".")[0]))!)
        let certificate = try Certificate(der: Data(base64Encoded: header["x5c"]!.arrayValue![0].stringValue!)!)
        let verifier = SignedDataVerifier(trustedRoots: [certificate])
        let result = verifier.transaction(token)
        #expect(result.error == .invalidCertificateChain)
        #expect(verifier.failureReason(token)?.contains("x5c holds 1 certificate") == true)
        let t = try #require(result.payload)
        #expect(t.transactionID == 0 && t.productID == "pass.premium" && t.productType == .autoRenewable)
        #expect(t.subscriptionGroupID == "6F3A93AB" && t.offerType == .introductory && t.environment == "Xcode")
        #expect(abs(t.purchaseDate.timeIntervalSince1970 - 1_697_679_936.0497297) < 0.000_001)
        #expect(t.expirationDate != nil && t.storefront == "USA" && t.storefrontID == "143441")
    }

    @Test("Apple's test transaction fails X509_STRICT against the test CA, as in Apple's own verifier by default")
    func appleTestTransaction() throws {
        let root = try Certificate(der: Data(contentsOf: Self.jws.appendingPathComponent("testCA.der")))
        let verifier = SignedDataVerifier(trustedRoots: [root])
        #expect(verifier.json(try text("transactionInfo")).error == .invalidCertificateChain)
        #expect(verifier.failureReason(try text("transactionInfo"))?.contains("X509_STRICT") == true)
    }

    @Test("a real App Store notification verifies against Apple Root CA G3 at its signedDate, not today")
    func realNotification() throws {
        let root = try Certificate(pem: text("AppleRootCA-G3.pem"))
        let verifier = SignedDataVerifier(trustedRoots: [root])
        let token = try text("real-sandbox-TEST-notification.jws")
        #expect(verifier.json(token, at: .signedDate).payload?["notificationType"]?.stringValue == "TEST")
        #expect(verifier.json(token, at: .signedDate).isVerified)
        #expect(verifier.json(token, at: .now).error == .invalidCertificateChain)
    }

    @Test("a tampered copy of a real token is unverified with invalidSignature")
    func tampered() throws {
        let root = try Certificate(pem: text("AppleRootCA-G3.pem"))
        var parts = try text("real-sandbox-TEST-notification.jws").split(separator: ".").map(String.init)
        var payload = String(decoding: Base64URL.decode(parts[1])!, as: UTF8.self)
        payload = payload.replacingOccurrences(of: "TEST", with: "REFUND")
        parts[1] = Base64URL.encode(Data(payload.utf8))
        let result = SignedDataVerifier(trustedRoots: [root]).json(parts.joined(separator: "."), at: .signedDate)
        #expect(result.error == .invalidSignature)
    }
}
