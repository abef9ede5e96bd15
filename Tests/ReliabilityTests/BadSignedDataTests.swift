import Foundation
import Testing
import StoreClient
import StoreCore
import StoreEngine
import StoreVerification
@testable import StoreSigning  // SHA-256, for the HMAC of the key-confusion attack
import StorefrontTestSupport

/// Hand-made compact JWS tokens, for headers JWSSigner would never write.
struct Tokens {
    let identity: StoreIdentity
    let payload: Data
    var x5c: [String] { identity.chain.map { $0.der.base64EncodedString() } }

    init() throws {
        identity = try StoreIdentity.ephemeral()
        let now = Date()
        var transaction = TransactionPayload(
            transactionID: 2_000_000_042, originalTransactionID: 2_000_000_042, bundleID: "com.example.lumenquest",
            productID: "com.lumenquest.coins.100", productType: .consumable, purchaseDate: now, originalPurchaseDate: now,
            quantity: 3, signedDate: now, storefront: "USA", storefrontID: "143441", currency: "USD", priceMilliunits: 2970,
            appTransactionID: "704289572911147206")
        transaction.appAccountToken = UUID()
        payload = Data(transaction.json.compact.utf8)
    }

    static func header(_ fields: [String: Any]) -> String {
        Base64URL.encode(try! JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys]))
    }

    /// `header.payload.signature`, the signature made by `key` over the first two parts (nil: `signature` as given).
    func make(header: [String: Any], payload: Data? = nil, key: SigningKey?, signature: Data = Data()) throws -> String {
        let input = Self.header(header) + "." + Base64URL.encode(payload ?? self.payload)
        return input + "." + Base64URL.encode(try key.map { try $0.sign(Data(input.utf8)) } ?? signature)
    }
}

@Suite("Bad signed data", .tags(.slow), .notInFastLoop)
struct BadSignedDataTests {
    let tokens: Tokens
    let verifier: SignedDataVerifier
    init() throws {
        tokens = try Tokens()
        verifier = SignedDataVerifier(trustedRoots: [tokens.identity.certificate])
    }

    func expectUnverified(_ jws: String, _ expected: VerificationError, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let result = verifier.transaction(jws)
        #expect(result.error == expected, "\(what): \(result)", sourceLocation: sourceLocation)
        #expect(!result.isVerified, "\(what) verified", sourceLocation: sourceLocation)
    }

    @Test("A well-formed token verifies (the control case)")
    func control() throws {
        #expect(verifier.transaction(try tokens.identity.signer.sign(payload: tokens.payload)).isVerified)
        #expect(verifier.transaction(try tokens.make(header: ["alg": "ES256", "x5c": tokens.x5c], key: tokens.identity.key)).isVerified)
    }

    @Test("Tampered header, payload and signature fail as invalidSignature")
    func tampered() throws {
        let good = try tokens.identity.signer.sign(payload: tokens.payload).split(separator: ".").map(String.init)
        let header = Tokens.header(["alg": "ES256", "x5c": tokens.x5c, "kid": "Someone_Else"])
        expectUnverified([header, good[1], good[2]].joined(separator: "."), .invalidSignature, "tampered header")
        let richer = Data(String(decoding: tokens.payload, as: UTF8.self).replacingOccurrences(of: "\"quantity\":3", with: "\"quantity\":9").utf8)
        #expect(richer != tokens.payload)
        expectUnverified([good[0], Base64URL.encode(richer), good[2]].joined(separator: "."), .invalidSignature, "tampered payload")
        var signature = Base64URL.decode(good[2])!
        signature[17] ^= 0x01
        expectUnverified([good[0], good[1], Base64URL.encode(signature)].joined(separator: "."), .invalidSignature, "tampered signature")
    }

    @Test("alg none, HS256, a missing alg and a wrong key are refused")
    func algorithms() throws {
        expectUnverified(try tokens.make(header: ["alg": "none", "x5c": tokens.x5c], key: nil), .invalidSignature, "alg none")
        expectUnverified(try tokens.make(header: ["alg": "none"], key: nil), .invalidSignature, "alg none without x5c")
        expectUnverified(try tokens.make(header: ["x5c": tokens.x5c], key: tokens.identity.key), .missingRequiredProperties, "no alg")
        expectUnverified(try tokens.make(header: ["alg": "ES256", "x5c": tokens.x5c], key: SigningKey.generate()), .invalidSignature,
                         "signed by a key that is not the leaf's")
    }

    @Test("HS256 key confusion: a token HMAC-signed with the store's public key as the secret is refused")
    func hs256KeyConfusion() throws {
        // The attack: a verifier that takes the algorithm from the header checks HS256 with the only key
        // it has, the certificate's public key, which anyone can read (x5c, `storefront cert`).
        #expect(HMAC.sha256(key: Data("Jefe".utf8), Data("what do ya want for nothing?".utf8)).map { String(format: "%02x", $0) }.joined()
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843", "RFC 4231 test case 2: the forgery is real HS256")
        let input = Tokens.header(["alg": "HS256", "x5c": tokens.x5c]) + "." + Base64URL.encode(tokens.payload)
        for certificate in tokens.identity.chain {
            let der = try #require(certificate.publicKey).derRepresentation
            let pem = "-----BEGIN PUBLIC KEY-----\n" + der.base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
                + "\n-----END PUBLIC KEY-----\n"
            for secret in [der, Data(pem.utf8)] {
                let forged = input + "." + Base64URL.encode(HMAC.sha256(key: secret, Data(input.utf8)))
                expectUnverified(forged, .invalidSignature, "HS256 keyed with \(certificate.subjectCommonName ?? "?")'s public key")
            }
        }
    }

    @Test("Missing, empty, extra and untrusted x5c fail as invalidCertificateChain")
    func chains() throws {
        let key = tokens.identity.key
        expectUnverified(try tokens.make(header: ["alg": "ES256"], key: key), .invalidCertificateChain, "no x5c")
        expectUnverified(try tokens.make(header: ["alg": "ES256", "x5c": [String]()], key: key), .invalidCertificateChain, "empty x5c")
        expectUnverified(try tokens.make(header: ["alg": "ES256", "x5c": tokens.x5c + ["bm90IGEgY2VydGlmaWNhdGU="]], key: key),
                         .invalidCertificateChain, "extra x5c entry that is not a certificate")
        expectUnverified(try tokens.make(header: ["alg": "ES256", "x5c": ["%%%"]], key: key), .invalidCertificateChain, "x5c not base64")
        expectUnverified(try tokens.make(header: ["alg": "ES256", "x5c": "MII"], key: key), .invalidCertificateChain, "x5c not an array")
        let stranger = try StoreIdentity.ephemeral()
        expectUnverified(try stranger.signer.sign(payload: tokens.payload), .invalidCertificateChain, "untrusted certificate")
        expectUnverified(try tokens.make(header: ["alg": "ES256", "x5c": tokens.x5c + stranger.signer.chain.map { $0.der.base64EncodedString() }],
                                         key: stranger.key),
                         .invalidCertificateChain, "an untrusted chain appended after the trusted one, signed by its key")
        // x5c[2] is never trusted, nor needed: the chain builds from the intermediate to the configured root.
        let strangeRoot = [tokens.x5c[0], tokens.x5c[1], stranger.signer.chain[2].der.base64EncodedString()]
        #expect(verifier.transaction(try tokens.make(header: ["alg": "ES256", "x5c": strangeRoot], key: tokens.identity.key)).isVerified)
    }

    @Test("Expired and not-yet-valid certificates fail as invalidCertificateChain")
    func validity() throws {
        let key = try SigningKey.generate()
        for (name, start) in [("expired", Date(timeIntervalSince1970: 946_684_800)), ("not yet valid", Date().addingTimeInterval(86_400 * 365))] {
            let certificate = try Certificate.selfSigned(key: key, commonName: "Short-lived", notBefore: start, validFor: 86_400)
            let verifier = SignedDataVerifier(trustedRoots: [certificate])
            let jws = try JWSSigner(key: key, chain: [certificate]).sign(payload: tokens.payload)
            #expect(verifier.transaction(jws).error == .invalidCertificateChain, "\(name)")
        }
    }

    @Test("Truncated and non-base64 tokens fail as invalidEncoding (or invalidSignature once the signature is cut)")
    func truncatedAndNotBase64() throws {
        let good = try tokens.identity.signer.sign(payload: tokens.payload)
        let signatureStart = good.utf8.count - 86
        for length in 0..<good.utf8.count {
            let cut = String(decoding: Array(good.utf8.prefix(length)), as: UTF8.self)
            let result = verifier.transaction(cut)
            #expect(!result.isVerified)
            if length < signatureStart {
                #expect(result.error == .invalidEncoding, "cut at \(length): \(String(describing: result.error))")
            } else {
                #expect(result.error == .invalidEncoding || result.error == .invalidSignature, "cut at \(length)")
            }
        }
        let parts = good.split(separator: ".").map(String.init)
        for part in 0..<3 {
            for junk in ["*", "=", "+", "/", " ", "é"] {
                var broken = parts
                broken[part].insert(contentsOf: junk, at: broken[part].index(broken[part].startIndex, offsetBy: 5))
                expectUnverified(broken.joined(separator: "."), .invalidEncoding, "'\(junk)' in part \(part)")
            }
        }
        expectUnverified("", .invalidEncoding, "empty")
        expectUnverified("...", .invalidEncoding, "dots only")
        expectUnverified(good + ".", .invalidEncoding, "four parts")
    }

    @Test("Thousands of seeded random mutations never verify and never crash")
    func randomMutations() throws {
        let seed = testSeed("bad signed data")
        var random = SeededRandom(seed: seed)
        let good = Array(try tokens.identity.signer.sign(payload: tokens.payload).utf8)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ ".utf8)
        let count = longTests ? 50_000 : 5_000
        var kinds: [VerificationError: Int] = [:]
        for i in 0..<count {
            var bytes = good
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let at = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<4, using: &random) {
                case 0: bytes[at] = alphabet.randomElement(using: &random)!
                case 1: bytes.remove(at: at)
                case 2: bytes.insert(alphabet.randomElement(using: &random)!, at: at)
                default: bytes.replaceSubrange(at..., with: bytes[at...].shuffled(using: &random))
                }
            }
            guard bytes != good else { continue }
            let result = verifier.transaction(String(decoding: bytes, as: UTF8.self))
            #expect(!result.isVerified, "mutation \(i) verified: \(String(decoding: bytes, as: UTF8.self))")
            if let error = result.error { kinds[error, default: 0] += 1 }
        }
        print("[bad signed data] \(count) mutations: \(kinds.map { "\($0.key): \($0.value)" }.sorted())")
    }
}

/// HMAC-SHA256 (RFC 2104), to forge HS256 tokens.
enum HMAC {
    static func sha256(key: Data, _ message: Data) -> Data {
        func hash(_ bytes: [UInt8]) -> [UInt8] { bytes.withUnsafeBytes { ECDSA.sha256($0) } }
        var block = key.count > 64 ? hash(Array(key)) : Array(key)
        block += [UInt8](repeating: 0, count: 64 - block.count)
        let inner = hash(block.map { $0 ^ 0x36 } + Array(message))
        return Data(hash(block.map { $0 ^ 0x5c } + inner))
    }
}
