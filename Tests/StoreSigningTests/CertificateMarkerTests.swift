import Foundation
import Testing
@testable import StoreSigning
import StorefrontTestSupport

@Suite("Apple certificate markers")
struct CertificateMarkerTests {
    static let fixtures = Repo.sharedFixtures.appendingPathComponent("jws")

    func text(_ name: String) throws -> String {
        try String(contentsOf: Self.fixtures.appendingPathComponent(name), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("Apple's leaf and intermediate carry the App Store markers; our own certificate doesn't")
    func markers() throws {
        #expect(try Certificate(pem: text("testLeaf.pem")).hasExtension(oid: CertificateMarkers.appleAppStore.leafOID))
        #expect(try Certificate(pem: text("testIntermediate.pem")).hasExtension(oid: CertificateMarkers.appleAppStore.intermediateOID))
        let own = try Certificate.selfSigned(key: .generate(), commonName: "Local")
        #expect(!own.hasExtension(oid: CertificateMarkers.appleAppStore.leafOID))
    }

    @Test("the real notification passes Apple's marker check; a chain without markers fails it")
    func markerPolicy() throws {
        let root = try Certificate(pem: text("AppleRootCA-G3.pem"))
        let apple = JWSVerifier(trustedRoots: [root], markers: .appleAppStore)
        #expect(apple.verify(try text("real-sandbox-TEST-notification.jws"), at: .signedDate).isVerified)
        let key = try SigningKey.generate()
        let own = try Certificate.selfSigned(key: key, commonName: "Local")
        let token = try JWSSigner(key: key, chain: [own]).sign(payload: Data("{}".utf8))
        let result = JWSVerifier(trustedRoots: [own], markers: .appleAppStore).verify(token, at: .now)
        #expect(result.error?.kind == .invalidCertificateChain)
        #expect(JWSVerifier(trustedRoots: [own]).verify(token, at: .now).isVerified)
    }
}

@Suite("Malformed signed dates")
struct MalformedSignedDateTests {
    @Test("a signedDate too large for any time is invalidEncoding, not a crash (found by the long fuzz run)")
    func hugeSignedDate() throws {
        let key = try SigningKey.generate()
        let certificate = try Certificate.selfSigned(key: key, commonName: "Local")
        let token = try JWSSigner(key: key, chain: [certificate]).sign(payload: Data(#"{"signedDate":1e300}"#.utf8))
        let result = JWSVerifier(trustedRoots: [certificate]).verify(token, at: .signedDate)
        #expect(result.error?.kind == .invalidEncoding)
        #expect(JWSVerifier(trustedRoots: [certificate]).verify(token, at: .now).isVerified)
    }
}
