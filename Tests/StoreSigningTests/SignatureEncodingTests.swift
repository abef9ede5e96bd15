import Foundation
import Testing
@testable import StoreSigning

@Suite("Signature encodings")
struct SignatureEncodingTests {
    /// JWS carries r‖s; OpenSSL verifies DER. The hand-written encoder must write what OpenSSL writes
    /// (its verify refuses any other encoding), above all where r or s starts with a zero byte or a high bit.
    @Test("A raw ES256 signature's DER is the one OpenSSL wrote for it")
    func derMatchesOpenSSL() throws {
        let key = try SigningKey.generate()
        var (leadingZero, highBit, count) = (false, false, 0)
        while !(leadingZero && highBit) || count < 200 {
            count += 1
            try #require(count <= 20_000, "no signature with a leading zero byte in 20,000")
            let digest = (0..<32).map { _ in UInt8.random(in: 0...255) }
            let der = try ECDSA.signDigest(digest, key: key.handle)
            let raw = try #require(ECDSA.rawSignature(fromDER: der))
            #expect(ECDSA.derSignature(fromRaw: raw) == der)
            leadingZero = leadingZero || raw[0] == 0 || raw[32] == 0
            highBit = highBit || raw[0] >= 0x80 || raw[32] >= 0x80
        }
    }

    @Test("Zero and all-ones halves take their shortest DER; a signature of another length has none")
    func derEdges() {
        #expect(ECDSA.derSignature(fromRaw: [UInt8](repeating: 0, count: 64)) == [0x30, 6, 2, 1, 0, 2, 1, 0])
        let ones = ECDSA.derSignature(fromRaw: [UInt8](repeating: 0xFF, count: 64))
        #expect(ones == [0x30, 70] + [2, 33, 0] + [UInt8](repeating: 0xFF, count: 32) + [2, 33, 0] + [UInt8](repeating: 0xFF, count: 32))
        #expect(ECDSA.derSignature(fromRaw: [UInt8](repeating: 1, count: 63)) == nil)
    }
}
