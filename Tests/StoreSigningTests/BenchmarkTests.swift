import Foundation
import Testing
import StoreSigning

/// JWS speed against raw ECDSA P-256 through the same libcrypto calls.
/// Timing is noisy on shared machines, so this runs only on request:
/// `STOREFRONT_BENCH=1 swift test -c release --filter StoreSigningTests.Benchmark`
@Suite("Benchmark", .serialized, .enabled(if: ProcessInfo.processInfo.environment["STOREFRONT_BENCH"] != nil))
struct Benchmark {
    /// Operations per second of `baseline` and `candidate`, best of several rounds; the rounds
    /// alternate so that load from other processes hits both alike.
    private func rates(count: Int, rounds: Int = 7, _ baseline: () throws -> Void, _ candidate: () throws -> Void) rethrows -> (Double, Double) {
        func seconds(_ body: () throws -> Void) rethrows -> Double {
            let start = ContinuousClock.now
            for _ in 0..<count { try body() }
            let elapsed = ContinuousClock.now - start
            return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        }
        var best = (Double.infinity, Double.infinity)
        for _ in 0..<rounds {
            best.0 = min(best.0, try seconds(baseline))
            best.1 = min(best.1, try seconds(candidate))
        }
        return (Double(count) / best.0, Double(count) / best.1)
    }

    @Test("JWS sign and verify run at 0.7× or more of raw ECDSA P-256", arguments: ["self-signed", "Apple test chain"])
    func jwsAgainstRawECDSA(chainKind: String) throws {
        let (key, chain, root): (SigningKey, [Certificate], Certificate)
        if chainKind == "self-signed" {
            key = try SigningKey.generate()
            let certificate = try Certificate.selfSigned(key: key, commonName: "Bench")
            (chain, root) = ([certificate], certificate)
        } else {
            (key, chain, root) = (try Fixtures.testLeafKey(), try Fixtures.testChain(), try Fixtures.testCA())
        }
        let baseline = RawECDSABaseline(key: key)
        let signer = try JWSSigner(key: key, chain: chain, keyID: "Bench_Key")
        let verifier = JWSVerifier(trustedRoots: [root])
        let payload = try Fixtures.data("signedTransaction.json")
        let digest = [UInt8](repeating: 7, count: 32)
        let derSignature = try baseline.sign(digest: digest)
        let token = try signer.sign(payload: payload)
        #expect(verifier.verify(token, at: .now).isVerified)

        let (rawSign, jwsSign) = try rates(count: 2000, { _ = try baseline.sign(digest: digest) }, { _ = try signer.sign(payload: payload) })
        let (rawVerify, jwsVerify) = rates(count: 1000, { _ = baseline.verify(derSignature: derSignature, digest: digest) },
                                           { _ = verifier.verify(token, at: .now) })
        // For information: a fresh verifier validates the chain on every token.
        let (_, uncached) = rates(count: 200, {}, { _ = JWSVerifier(trustedRoots: [root]).verify(token, at: .now) })
        print("""
            [bench] \(chainKind), payload \(payload.count) B, token \(token.utf8.count) B
            [bench] sign/s   raw \(Int(rawSign))  JWS \(Int(jwsSign))  ratio \(String(format: "%.2f", jwsSign / rawSign))
            [bench] verify/s raw \(Int(rawVerify))  JWS \(Int(jwsVerify))  ratio \(String(format: "%.2f", jwsVerify / rawVerify))
            [bench] verify/s without the chain cache \(Int(uncached))
            """)
        #expect(jwsSign >= 0.7 * rawSign)
        #expect(jwsVerify >= 0.7 * rawVerify)
    }
}
