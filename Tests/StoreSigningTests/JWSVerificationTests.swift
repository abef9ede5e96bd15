import Foundation
import Testing
import StoreSigning

/// Checks that `token` is refused with `kind`, and that refusing it did not crash.
private func expectRefused(
    _ verification: JWSVerification, _ kind: JWSVerificationError.Kind,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(!verification.isVerified, sourceLocation: sourceLocation)
    #expect(verification.error?.kind == kind, "\(verification.error?.description ?? "verified")", sourceLocation: sourceLocation)
    #expect(verification.error?.message.isEmpty == false, sourceLocation: sourceLocation)
}

private func parts(_ token: String) -> [String] { token.split(separator: ".", omittingEmptySubsequences: false).map(String.init) }

@Suite("Real tokens from Apple and Xcode")
struct RealTokenTests {
    @Test("Apple's test tokens verify against the test root at their signedDate",
          arguments: ["transactionInfo", "renewalInfo", "testNotification"])
    func appleTestTokensVerify(name: String) throws {
        let verifier = JWSVerifier(trustedRoots: [try Fixtures.testCA()])
        let result = verifier.verify(try Fixtures.token(name), at: .signedDate)
        #expect(result.isVerified, "\(result.error?.description ?? "")")
        #expect(result.payloadObject?["signedDate"] != nil)  // 2023: the test leaf is valid then
    }

    @Test("Apple's test tokens do not chain to the real Apple root",
          arguments: ["transactionInfo", "renewalInfo", "testNotification"])
    func appleTestTokensFailAgainstRealRoot(name: String) throws {
        let verifier = JWSVerifier(trustedRoots: [try Fixtures.appleRootG3()])
        let result = verifier.verify(try Fixtures.token(name), at: .signedDate)
        expectRefused(result, .invalidCertificateChain)
        #expect(result.payload != nil, "a decodable token still hands back its payload")
    }

    @Test("A real sandbox notification verifies against Apple Root CA G3 at its signedDate")
    func realNotificationVerifiesAtSignedDate() throws {
        let verifier = JWSVerifier(trustedRoots: [try Fixtures.appleRootG3()])
        let result = verifier.verify(try Fixtures.token("real-sandbox-TEST-notification.jws"), at: .signedDate)
        #expect(result.isVerified, "\(result.error?.description ?? "")")
        #expect(result.payloadObject?["notificationType"] as? String == "TEST")
    }

    @Test("A real sandbox notification fails at the current date because its leaf has expired")
    func realNotificationExpiredNow() throws {
        let verifier = JWSVerifier(trustedRoots: [try Fixtures.appleRootG3()])
        let token = try Fixtures.token("real-sandbox-TEST-notification.jws")
        let result = verifier.verify(token, at: .now)
        expectRefused(result, .invalidCertificateChain)
        #expect(result.error?.message.contains("expired") == true)
    }

    @Test("A cached chain never skips the time check")
    func cacheKeepsTimeCheck() throws {
        let verifier = JWSVerifier(trustedRoots: [try Fixtures.appleRootG3()])
        let token = try Fixtures.token("real-sandbox-TEST-notification.jws")
        #expect(verifier.verify(token, at: .signedDate).isVerified)
        #expect(verifier.verify(token, at: .signedDate).isVerified)
        expectRefused(verifier.verify(token, at: .now), .invalidCertificateChain)
        expectRefused(verifier.verify(token, at: .date(Date(timeIntervalSince1970: 0))), .invalidCertificateChain)
    }

    @Test("A cached chain serves only the exact header it was validated for, however the lookups alternate")
    func cacheServesOnlyItsOwnHeader() throws {
        let key = try SigningKey.generate()
        let root = try Certificate.selfSigned(key: key, commonName: "Storefront Local Store")
        let verifier = JWSVerifier(trustedRoots: [root])
        let payload = Base64URL.encode(Data(#"{"a":1}"#.utf8))
        let good = try JWSSigner(key: key, chain: [root]).sign(payload: Data(#"{"a":1}"#.utf8))
        // The trusted key signs a header of the same length whose certificate has one byte of its
        // signature changed: only comparing every byte of the header keeps the cached chain from it.
        var header = String(decoding: try #require(Base64URL.decode(parts(good)[0])), as: UTF8.self)
        let end = try #require(header.range(of: "\"]")).lowerBound
        let changed = header.index(end, offsetBy: -10)
        header.replaceSubrange(changed...changed, with: header[changed] == "A" ? "B" : "A")
        let input = Base64URL.encode(Data(header.utf8)) + "." + payload
        let forged = input + "." + Base64URL.encode(try key.sign(Data(input.utf8)))
        #expect(parts(forged)[0].count == parts(good)[0].count)
        for _ in 0..<3 {
            #expect(verifier.verify(good, at: .now).isVerified)
            expectRefused(verifier.verify(forged, at: .now), .invalidCertificateChain)
        }
    }

    @Test("Xcode's token verifies when its own certificate is the trusted root")
    func xcodeTokenVerifiesWithItsOwnRoot() throws {
        let token = try Fixtures.token("xcode-signed-transaction")
        let x5c = TokenParts(token).x5c
        #expect(x5c.count == 1)
        let certificate = try Certificate(der: Data(base64Encoded: x5c[0])!)
        #expect(certificate.subjectCommonName == "StoreKit Testing in Xcode")
        let result = JWSVerifier(trustedRoots: [certificate]).verify(token, at: .signedDate)
        #expect(result.isVerified, "\(result.error?.description ?? "")")
        #expect(result.payloadObject?["transactionId"] as? String == "0")
    }

    @Test("Xcode's token fails when its certificate is not trusted")
    func xcodeTokenFailsOtherwise() throws {
        let token = try Fixtures.token("xcode-signed-transaction")
        expectRefused(JWSVerifier(trustedRoots: [try Fixtures.testCA()]).verify(token, at: .signedDate), .invalidCertificateChain)
        expectRefused(JWSVerifier(trustedRoots: []).verify(token, at: .signedDate), .invalidCertificateChain)
    }

    @Test("Strict mode rejects Apple's test chain, non-strict accepts it")
    func strictMode() throws {
        let token = try Fixtures.token("transactionInfo")
        #expect(JWSVerifier(trustedRoots: [try Fixtures.testCA()]).verify(token, at: .signedDate).isVerified)
        expectRefused(JWSVerifier(trustedRoots: [try Fixtures.testCA()], strict: true).verify(token, at: .signedDate),
                      .invalidCertificateChain)
    }

    /// OpenSSL's own "now" is time(2), which lags the clock Date reads by about 4 ms after each second
    /// begins here: a certificate made in those milliseconds, valid from that second, was "not yet valid".
    @Test("A certificate made as a second begins verifies at once at the verification time now")
    func certificateMadeAsASecondBegins() throws {
        for _ in 0..<3 {
            let next = (Date().timeIntervalSince1970 + 1).rounded(.down)
            Thread.sleep(until: Date(timeIntervalSince1970: next - 0.002))
            while Date().timeIntervalSince1970 < next {}
            let key = try SigningKey.generate()
            let certificate = try Certificate.selfSigned(key: key, commonName: "Made Now")
            let token = try JWSSigner(key: key, chain: [certificate]).sign(payload: Data(#"{"a":1}"#.utf8))
            let result = JWSVerifier(trustedRoots: [certificate]).verify(token, at: .now)
            #expect(result.isVerified, "\(result.error?.description ?? "")")
        }
    }

    @Test("Strict mode accepts the real Apple chain and our own self-signed certificate")
    func strictModeAcceptsWellFormedChains() throws {
        let real = try Fixtures.token("real-sandbox-TEST-notification.jws")
        #expect(JWSVerifier(trustedRoots: [try Fixtures.appleRootG3()], strict: true).verify(real, at: .signedDate).isVerified)
        let key = try SigningKey.generate()
        let certificate = try Certificate.selfSigned(key: key, commonName: "Storefront Local Store")
        let token = try JWSSigner(key: key, chain: [certificate]).sign(payload: Data(#"{"a":1}"#.utf8))
        let result = JWSVerifier(trustedRoots: [certificate], strict: true).verify(token, at: .now)
        #expect(result.isVerified, "\(result.error?.description ?? "")")
    }
}

@Suite("Signing")
struct SigningTests {
    @Test("Signing with Apple's test leaf key and chain makes tokens that verify against the test root")
    func signWithAppleTestChain() throws {
        let signer = try JWSSigner(key: try Fixtures.testLeafKey(), chain: try Fixtures.testChain())
        let payload = Data(#"{"bundleId":"com.example","signedDate":1700000000000}"#.utf8)
        let token = try signer.sign(payload: payload)
        let result = JWSVerifier(trustedRoots: [try Fixtures.testCA()]).verify(token, at: .signedDate)
        #expect(result.isVerified, "\(result.error?.description ?? "")")
        #expect(result.payload == payload)
        expectRefused(JWSVerifier(trustedRoots: [try Fixtures.appleRootG3()]).verify(token, at: .signedDate), .invalidCertificateChain)
    }

    @Test("A generated key and its self-signed certificate round-trip sign and verify")
    func generatedKeyRoundTrip() throws {
        let key = try SigningKey.generate()
        let certificate = try Certificate.selfSigned(key: key, commonName: "StoreKit Testing in Storefront", organization: "Storefront")
        let signer = try JWSSigner(key: key, chain: [certificate], keyID: "Storefront_Key")
        let payload = Data(#"{"transactionId":"1","signedDate":1697679936049.7297}"#.utf8)
        let token = try signer.sign(payload: payload)
        #expect(parts(token).count == 3)
        let result = JWSVerifier(trustedRoots: [certificate]).verify(token, at: .now)
        #expect(result.isVerified, "\(result.error?.description ?? "")")
        let header = try #require(result.header.flatMap { try JSONSerialization.jsonObject(with: $0) as? [String: Any] })
        #expect(header["alg"] as? String == "ES256")
        #expect(header["kid"] as? String == "Storefront_Key")
        #expect(header["x5c"] as? [String] == [certificate.der.base64EncodedString()])
        // Its signedDate (2023) precedes the certificate, so verifying at signedDate must fail.
        expectRefused(JWSVerifier(trustedRoots: [certificate]).verify(token, at: .signedDate), .invalidCertificateChain)
    }

    @Test("A signer refuses an empty chain or a leaf that does not hold its key")
    func signerChecksChain() throws {
        let key = try SigningKey.generate()
        #expect(throws: SigningError.self) { try JWSSigner(key: key, chain: []) }
        #expect(throws: SigningError.self) { try JWSSigner(key: key, chain: Fixtures.testChain()) }
    }

    @Test("Tokens from one signer differ only after the shared header, and all verify")
    func manyTokensFromOneSigner() throws {
        let signer = try JWSSigner(key: try Fixtures.testLeafKey(), chain: try Fixtures.testChain(), keyID: "k")
        let verifier = JWSVerifier(trustedRoots: [try Fixtures.testCA()])
        var headers = Set<String>()
        for index in 0..<20 {
            let payload = Data(#"{"transactionId":"\#(index)","signedDate":1700000000000}"#.utf8)
            let token = try signer.sign(payload: payload)
            headers.insert(String(token.prefix { $0 != "." }))
            let result = verifier.verify(token, at: .signedDate)
            #expect(result.isVerified && result.payload == payload, "\(result.error?.description ?? "")")
        }
        #expect(headers.count == 1)
    }

    @Test("The header carries no kid unless one is given")
    func noKidByDefault() throws {
        let key = try SigningKey.generate()
        let certificate = try Certificate.selfSigned(key: key, commonName: "x")
        let token = try JWSSigner(key: key, chain: [certificate]).sign(payload: Data("{}".utf8))
        #expect(TokenParts(token).header["kid"] == nil)
    }

    @Test("A self-signed certificate has the requested name, window, and P-256 CA form")
    func selfSignedCertificateFields() throws {
        let key = try SigningKey.generate()
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let certificate = try Certificate.selfSigned(key: key, commonName: "StoreKit Testing in Storefront",
                                                     notBefore: start, validFor: 86_400)
        #expect(certificate.subjectCommonName == "StoreKit Testing in Storefront")
        #expect(certificate.notBefore == start)
        #expect(certificate.notAfter == start.addingTimeInterval(86_400))
        #expect(certificate.publicKey?.derRepresentation == key.publicKey.derRepresentation)
        let verifier = JWSVerifier(trustedRoots: [certificate])
        let token = try JWSSigner(key: key, chain: [certificate]).sign(payload: Data("{}".utf8))
        #expect(verifier.verify(token, at: .date(start.addingTimeInterval(3600))).isVerified)
        expectRefused(verifier.verify(token, at: .date(start.addingTimeInterval(-1))), .invalidCertificateChain)
        expectRefused(verifier.verify(token, at: .date(start.addingTimeInterval(86_401))), .invalidCertificateChain)
    }

    @Test("Keys and certificates survive a PEM round trip")
    func pemRoundTrip() throws {
        let key = try SigningKey.generate()
        let pem = key.pemRepresentation
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let reloaded = try SigningKey(pem: pem)
        #expect(reloaded.publicKey.derRepresentation == key.publicKey.derRepresentation)
        let message = Data("hello".utf8)
        #expect(key.publicKey.isValidSignature(try reloaded.sign(message), for: message))

        let certificate = try Certificate.selfSigned(key: key, commonName: "Round Trip")
        let again = try Certificate(pem: certificate.pemRepresentation)
        #expect(again == certificate)
        #expect(again.der == certificate.der)
        #expect(again.subjectCommonName == "Round Trip")
    }

    @Test("A SEC1 EC PRIVATE KEY PEM loads and matches its certificate")
    func sec1KeyLoads() throws {
        let key = try Fixtures.testLeafKey()
        let leaf = try Certificate(pem: Fixtures.text("testLeaf.pem"))
        #expect(leaf.publicKey?.derRepresentation == key.publicKey.derRepresentation)
        #expect(try SigningKey(pem: key.pemRepresentation).publicKey.derRepresentation == key.publicKey.derRepresentation)
    }

    @Test("A certificate PEM preceded by an openssl text dump reads the certificate")
    func pemAfterTextDump() throws {
        let text = try Fixtures.text("testIntermediate.pem")
        #expect(text.hasPrefix("Certificate:"))
        let certificate = try Certificate(pem: text)
        #expect(certificate.notBefore == Date(timeIntervalSince1970: 1_672_954_265))  // 2023-01-05 21:31:05 UTC
        #expect(try Certificate(pem: Fixtures.text("testCA.pem")) == Fixtures.testCA())
    }

    @Test("Raw signatures are 64 bytes and verify only for the signed data")
    func rawSignatures() throws {
        let key = try SigningKey.generate()
        let data = Data("payload".utf8)
        let signature = try key.sign(data)
        #expect(signature.count == 64)
        #expect(key.publicKey.isValidSignature(signature, for: data))
        #expect(!key.publicKey.isValidSignature(signature, for: Data("other".utf8)))
        #expect(!key.publicKey.isValidSignature(signature.prefix(63), for: data))
        #expect(!(try SigningKey.generate()).publicKey.isValidSignature(signature, for: data))
    }

    @Test("Malformed keys and certificates throw instead of crashing")
    func malformedInputsThrow() throws {
        #expect(throws: SigningError.self) { try SigningKey(pem: "") }
        #expect(throws: SigningError.self) { try SigningKey(pem: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n") }
        #expect(throws: SigningError.self) { try Certificate(der: Data()) }
        #expect(throws: SigningError.self) { try Certificate(der: Data([0x30, 0x03, 0x02, 0x01])) }
        #expect(throws: SigningError.self) { try Certificate(der: Fixtures.testCA().der + [0]) }
        #expect(throws: SigningError.self) { try Certificate(pem: "no certificate here") }
        #expect(throws: SigningError.self) { try PublicKey(der: Data([1, 2, 3])) }
    }
}
