import Foundation
import Testing
import StoreSigning

/// Every broken token must come back unverified with the right error, and never crash.
@Suite("Broken tokens")
struct BrokenTokenTests {
    let key: SigningKey
    let certificate: Certificate
    let verifier: JWSVerifier
    let token: String
    let payload = Data(#"{"transactionId":"42","signedDate":1800000000000}"#.utf8)

    init() throws {
        key = try SigningKey.generate()
        certificate = try Certificate.selfSigned(key: key, commonName: "Broken Token Tests")
        verifier = JWSVerifier(trustedRoots: [certificate])
        token = try JWSSigner(key: key, chain: [certificate]).sign(payload: payload)
    }

    private var segments: [String] { token.split(separator: ".", omittingEmptySubsequences: false).map(String.init) }

    private func expectRefused(_ token: String, _ kind: JWSVerificationError.Kind, sourceLocation: SourceLocation = #_sourceLocation) {
        for time in [VerificationTime.now, .signedDate] {
            let result = verifier.verify(token, at: time)
            #expect(!result.isVerified, sourceLocation: sourceLocation)
            #expect(result.error?.kind == kind, "\(result.error?.description ?? "verified")", sourceLocation: sourceLocation)
        }
    }

    @Test("The untouched token verifies, so each refusal below is due to its one change")
    func baseline() {
        #expect(verifier.verify(token, at: .now).isVerified)
    }

    @Test("A tampered header is an invalid signature")
    func tamperedHeader() {
        var parts = TokenParts(token)
        parts.header["kid"] = "someone else"
        expectRefused(parts.token, .invalidSignature)
    }

    @Test("A tampered payload is an invalid signature, and the payload is still handed back")
    func tamperedPayload() {
        let forged = Data(#"{"transactionId":"43","signedDate":1800000000000}"#.utf8)
        let tampered = [segments[0], Base64URL.encode(forged), segments[2]].joined(separator: ".")
        #expect(verifier.verify(token, at: .now).isVerified)  // the chain is cached, and with it the header's part of the digest
        expectRefused(tampered, .invalidSignature)
        #expect(verifier.verify(tampered, at: .now).payload == forged)
    }

    @Test("A tampered signature is an invalid signature")
    func tamperedSignature() {
        var signature = Base64URL.decode(segments[2])!
        signature[10] ^= 0x01
        expectRefused([segments[0], segments[1], Base64URL.encode(signature)].joined(separator: "."), .invalidSignature)
        // Swapping r and s, or zeroing them, must also fail.
        let swapped = signature.suffix(32) + signature.prefix(32)
        expectRefused([segments[0], segments[1], Base64URL.encode(swapped)].joined(separator: "."), .invalidSignature)
        expectRefused([segments[0], segments[1], Base64URL.encode(Data(count: 64))].joined(separator: "."), .invalidSignature)
    }

    @Test("alg none is an invalid signature")
    func algNone() {
        var parts = TokenParts(token)
        parts.header["alg"] = "none"
        parts.signature = ""
        expectRefused(parts.token, .invalidSignature)
        parts.signature = segments[2]
        expectRefused(parts.token, .invalidSignature)
    }

    @Test("alg HS256 is an invalid signature")
    func algHS256() {
        var parts = TokenParts(token)
        parts.header["alg"] = "HS256"
        expectRefused(parts.token, .invalidSignature)
    }

    @Test("A header without alg is missing a required property")
    func missingAlg() {
        var parts = TokenParts(token)
        parts.header["alg"] = nil
        expectRefused(parts.token, .missingRequiredProperties)
    }

    @Test("A signature made by another key is an invalid signature")
    func wrongKey() throws {
        // JWSSigner refuses a leaf that does not match its key, so sign the same input by hand.
        let signature = try SigningKey.generate().sign(Data("\(segments[0]).\(segments[1])".utf8))
        expectRefused([segments[0], segments[1], Base64URL.encode(signature)].joined(separator: "."), .invalidSignature)
    }

    @Test("A signature of the wrong length is an invalid signature")
    func wrongLength() {
        let signature = Base64URL.decode(segments[2])!
        expectRefused([segments[0], segments[1], Base64URL.encode(signature.prefix(63))].joined(separator: "."), .invalidSignature)
        expectRefused([segments[0], segments[1], Base64URL.encode(signature + [0])].joined(separator: "."), .invalidSignature)
    }

    @Test("A missing or empty x5c is an invalid certificate chain")
    func missingX5C() {
        var parts = TokenParts(token)
        parts.header["x5c"] = nil
        expectRefused(parts.token, .invalidCertificateChain)
        parts.header["x5c"] = [String]()
        expectRefused(parts.token, .invalidCertificateChain)
        parts.header["x5c"] = "not an array"
        expectRefused(parts.token, .invalidCertificateChain)
    }

    @Test("Garbage in x5c is an invalid certificate chain")
    func garbageX5C() {
        var parts = TokenParts(token)
        parts.header["x5c"] = parts.x5c + ["bm90IGEgY2VydGlmaWNhdGU="]  // "not a certificate"
        expectRefused(parts.token, .invalidCertificateChain)
        parts.header["x5c"] = ["!!!"]
        expectRefused(parts.token, .invalidCertificateChain)
    }

    @Test("A chain to an untrusted root is an invalid certificate chain")
    func untrustedRoot() throws {
        let stranger = try SigningKey.generate()
        let strangerCertificate = try Certificate.selfSigned(key: stranger, commonName: "Broken Token Tests")
        let foreign = try JWSSigner(key: stranger, chain: [strangerCertificate]).sign(payload: payload)
        expectRefused(foreign, .invalidCertificateChain)
        // Swapping our trusted certificate into a stranger's token does not help: the key no longer matches.
        var parts = TokenParts(foreign)
        parts.header["x5c"] = [certificate.der.base64EncodedString()]
        expectRefused(parts.token, .invalidSignature)
    }

    @Test("A truncated token is refused")
    func truncated() {
        expectRefused("\(segments[0]).\(segments[1])", .invalidEncoding)
        expectRefused(segments[0], .invalidEncoding)
        expectRefused(String(token.prefix(token.count - 10)), .invalidSignature)  // signature now 56 or so bytes
        expectRefused(String(token.prefix(segments[0].count / 2)), .invalidEncoding)
        expectRefused(token + ".", .invalidEncoding)
    }

    @Test("Characters outside base64url are invalid encoding")
    func nonBase64() {
        expectRefused([segments[0] + "=", segments[1], segments[2]].joined(separator: "."), .invalidEncoding)
        expectRefused([segments[0], segments[1].replacingOccurrences(of: "e", with: "+"), segments[2]].joined(separator: "."), .invalidEncoding)
        expectRefused([segments[0], segments[1], segments[2] + " "].joined(separator: "."), .invalidEncoding)
        expectRefused([segments[0], "é" + segments[1], segments[2]].joined(separator: "."), .invalidEncoding)
    }

    @Test("A header that only looks equal to a cached one (Unicode canonical equivalence) is refused")
    func lookalikeHeader() throws {
        // A fixture, because a random certificate's base64 may lack a "K".
        let verifier = JWSVerifier(trustedRoots: [try Fixtures.testCA()])
        let token = try Fixtures.token("transactionInfo")
        #expect(verifier.verify(token, at: .signedDate).isVerified)  // now cached
        var parts = token.split(separator: ".").map(String.init)
        let original = parts[0]
        let k = try #require(parts[0].firstIndex(of: "K"))
        parts[0].replaceSubrange(k...k, with: "\u{212A}")  // KELVIN SIGN, canonically equivalent to "K"
        #expect(parts[0] == original, "Swift String equality says they match")
        let result = verifier.verify(parts.joined(separator: "."), at: .signedDate)
        #expect(result.error?.kind == .invalidEncoding)
    }

    @Test("A header or payload that is not a JSON object is invalid encoding")
    func notJSONObjects() {
        expectRefused([Base64URL.encode(Data("[1]".utf8)), segments[1], segments[2]].joined(separator: "."), .invalidEncoding)
        let header = String(decoding: Base64URL.decode(segments[0])!, as: UTF8.self)
        let trailingComma = header.dropLast() + ",}"
        expectRefused([Base64URL.encode(Data(trailingComma.utf8)), segments[1], segments[2]].joined(separator: "."), .invalidEncoding)
        expectRefused([segments[0], Base64URL.encode(Data("\"text\"".utf8)), segments[2]].joined(separator: "."), .invalidEncoding)
        expectRefused([segments[0], Base64URL.encode(Data("{".utf8)), segments[2]].joined(separator: "."), .invalidEncoding)
    }

    @Test("The empty string and lone dots are invalid encoding")
    func empty() {
        expectRefused("", .invalidEncoding)
        expectRefused("..", .invalidEncoding)
        expectRefused("...", .invalidEncoding)
    }

    @Test("Verifiers can be used from many tasks at once")
    func concurrentVerification() async throws {
        let verifier = self.verifier, token = self.token
        var parts = TokenParts(token)
        parts.header["kid"] = "forged"
        let bad = parts.token
        let results = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<64 {
                group.addTask { verifier.verify(index.isMultiple(of: 2) ? token : bad, at: .now).isVerified == index.isMultiple(of: 2) }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.allSatisfy { $0 })
    }

    @Test("Signers can be used from many tasks at once")
    func concurrentSigning() async throws {
        let signer = try JWSSigner(key: key, chain: [certificate]), verifier = self.verifier
        let results = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<64 {
                group.addTask {
                    let payload = Data(#"{"n":\#(index)}"#.utf8)
                    guard let token = try? signer.sign(payload: payload) else { return false }
                    let result = verifier.verify(token, at: .now)
                    return result.isVerified && result.payload == payload
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.count == 64 && results.allSatisfy { $0 })
    }
}

@Suite("Base64URL")
struct Base64URLTests {
    @Test("Encoding round-trips every length and uses the URL alphabet without padding")
    func roundTrip() {
        for length in 0..<70 {
            let data = Data((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 251) })
            let encoded = Base64URL.encode(data)
            #expect(!encoded.contains("=") && !encoded.contains("+") && !encoded.contains("/"))
            #expect(encoded == data.base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: ""))
            #expect(Base64URL.decode(encoded) == data)
        }
    }

    @Test("Decoding is strict", arguments: ["A", "AB=", "AB==", "A+B_", "A/B_", "AB C", "AB\n", "AÉ", "AB*D", "AB", "AAB"])
    func strictDecoding(input: String) {
        // "AB" and "AAB" carry non-zero leftover bits: a non-canonical encoding.
        #expect(Base64URL.decode(input) == nil)
    }

    @Test("Decoding accepts canonical input")
    func canonical() {
        #expect(Base64URL.decode("") == Data())
        #expect(Base64URL.decode("AA") == Data([0]))
        #expect(Base64URL.decode("_-8") == Data([0xFF, 0xEF]))
    }
}
