import Foundation
import Testing
@testable import StoreSigning

/// A root → intermediate → leaf chain made to order, to break one property at a time.
struct TestChain {
    let leafKey: SigningKey
    let chain: [Certificate]
    var root: Certificate { chain[2] }
    var x5c: [String] { chain.map { $0.der.base64EncodedString() } }

    init(from start: Date = Date(timeIntervalSince1970: 0), to end: Date = Date(timeIntervalSince1970: 253_402_300_799),
         leafMarker: String = CertificateMarkers.appleAppStore.leafOID, intermediateMarker: String = CertificateMarkers.appleAppStore.intermediateOID) throws {
        let rootKey = try SigningKey.generate(), intermediateKey = try SigningKey.generate()
        leafKey = try SigningKey.generate()
        let root = try Certificate.issue(subject: .init(commonName: "Test Root"), key: rootKey.publicKey, role: .root, issuer: nil,
                                         signedBy: rootKey, notBefore: start, notAfter: end)
        let intermediate = try Certificate.issue(subject: .init(commonName: "Test Intermediate"), key: intermediateKey.publicKey,
                                                 role: .intermediate(marker: intermediateMarker), issuer: root, signedBy: rootKey,
                                                 notBefore: start, notAfter: end)
        let leaf = try Certificate.issue(subject: .init(commonName: "Test Leaf"), key: leafKey.publicKey, role: .leaf(marker: leafMarker),
                                         issuer: intermediate, signedBy: intermediateKey, notBefore: start, notAfter: end)
        chain = [leaf, intermediate, root]
    }

    func token(_ payload: String = #"{"signedDate":1700000000000}"#) throws -> String {
        try JWSSigner(key: leafKey, chain: chain).sign(payload: Data(payload.utf8))
    }
}

@Suite("The App Store's chain policy: Apple's checks, and which one failed")
struct AppStoreChainTests {
    func reason(_ token: String, root: Certificate, at time: VerificationTime = .signedDate) -> String? {
        let result = JWSVerifier.appStore(trustedRoots: [root]).verify(token, at: time)
        #expect(result.error == nil || result.error?.kind == .invalidCertificateChain, "\(String(describing: result.error))")
        return result.error?.message
    }

    @Test("a well-formed chain verifies, even when the token's x5c[2] is not the configured root")
    func wellFormed() throws {
        let chain = try TestChain()
        #expect(reason(try chain.token(), root: chain.root) == nil)
        let other = try TestChain()
        let mixed = TokenParts(try chain.token())
        var header = mixed
        header.header["x5c"] = [chain.x5c[0], chain.x5c[1], other.x5c[2]]
        // The header changed, so the signature no longer matches: re-sign over the new header.
        let input = TokenParts.encode(header.header) + "." + Base64URL.encode(header.payload)
        let token = input + "." + Base64URL.encode(try chain.leafKey.sign(Data(input.utf8)))
        #expect(JWSVerifier.appStore(trustedRoots: [chain.root]).verify(token, at: .signedDate).isVerified)
    }

    @Test("an x5c of 20,003 certificates is refused by its size before any is parsed")
    func hugeChain() throws {
        let chain = try TestChain()
        let parts = try chain.token().split(separator: ".")
        let x5c = Array(repeating: "\"\(chain.x5c[0])\"", count: 20_003).joined(separator: ",")
        let header = Base64URL.encode(Data("{\"alg\":\"ES256\",\"x5c\":[\(x5c)]}".utf8))
        let message = reason("\(header).\(parts[1]).\(parts[2])", root: chain.root)
        #expect(message?.contains("more than the \(JWSVerifier.maximumHeaderLength)") == true, "\(message ?? "verified")")
    }

    @Test("the wrong number of certificates says so", arguments: [1, 2, 4])
    func wrongLength(count: Int) throws {
        let chain = try TestChain()
        var parts = TokenParts(try chain.token())
        parts.header["x5c"] = Array((chain.x5c + chain.x5c).prefix(count))
        #expect(reason(parts.token, root: chain.root)?.contains("x5c holds \(count) certificate") == true)
    }

    @Test("expired, not yet valid, untrusted root and missing markers each say which check failed")
    func reasons() throws {
        let signed = Date(timeIntervalSince1970: 1_700_000_000)
        let expired = try TestChain(from: signed.addingTimeInterval(-86_400 * 10), to: signed.addingTimeInterval(-86_400))
        #expect(reason(try expired.token(), root: expired.root)?.contains("expired") == true)
        let early = try TestChain(from: signed.addingTimeInterval(86_400), to: signed.addingTimeInterval(86_400 * 10))
        #expect(reason(try early.token(), root: early.root)?.contains("not yet valid") == true)
        let stranger = try TestChain()
        #expect(reason(try stranger.token(), root: try TestChain().root)?.contains("does not lead to a trusted root") == true)
        let noLeafMarker = try TestChain(leafMarker: "1.2.3.4")
        #expect(reason(try noLeafMarker.token(), root: noLeafMarker.root)?.contains("leaf certificate lacks the App Store leaf marker") == true)
        let noIntermediateMarker = try TestChain(intermediateMarker: "1.2.3.4")
        #expect(reason(try noIntermediateMarker.token(), root: noIntermediateMarker.root)?.contains("intermediate certificate lacks") == true)
    }

    @Test("markers are required whatever the root, not only under Apple's")
    func markersWhateverTheRoot() throws {
        let chain = try TestChain(leafMarker: "1.2.3.4")
        #expect(JWSVerifier(trustedRoots: [chain.root]).verify(try chain.token(), at: .signedDate).isVerified)
        #expect(!JWSVerifier.appStore(trustedRoots: [chain.root]).verify(try chain.token(), at: .signedDate).isVerified)
    }

    @Test("Apple's own test chain fails X509_STRICT, as in Apple's verifier by default, and the reason says so")
    func appleTestChainIsNotStrict() throws {
        let message = reason(try Fixtures.token("transactionInfo"), root: try Fixtures.testCA())
        #expect(message?.contains("X509_STRICT") == true, "\(message ?? "verified")")
    }

    @Test("validity is checked at signedDate, or now")
    func validityTime() throws {
        let signed = Date(timeIntervalSince1970: 1_700_000_000)
        let chain = try TestChain(from: signed.addingTimeInterval(-86_400), to: signed.addingTimeInterval(86_400))
        let verifier = JWSVerifier.appStore(trustedRoots: [chain.root])
        #expect(verifier.verify(try chain.token(), at: .signedDate).isVerified)
        #expect(verifier.verify(try chain.token(), at: .now).error?.kind == .invalidCertificateChain)
    }
}

extension TokenParts {
    static func encode(_ header: [String: Any]) -> String {
        Base64URL.encode(try! JSONSerialization.data(withJSONObject: header, options: [.withoutEscapingSlashes]))
    }
}
