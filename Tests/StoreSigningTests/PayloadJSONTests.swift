import Foundation
import Testing
import StoreSigning

/// The verifier checks payloads with its own JSON scanner; these pin it to Foundation's verdicts.
@Suite("Payload JSON")
struct PayloadJSONTests {
    let key: SigningKey
    let certificate: Certificate
    let signer: JWSSigner
    let verifier: JWSVerifier

    init() throws {
        key = try SigningKey.generate()
        certificate = try Certificate.selfSigned(key: key, commonName: "Payload JSON Tests",
                                                 notBefore: Date(timeIntervalSince1970: 1_600_000_000), validFor: 86_400 * 365 * 20)
        signer = try JWSSigner(key: key, chain: [certificate])
        verifier = JWSVerifier(trustedRoots: [certificate])
    }

    static let cases: [(String, Bool)] = [
        ("{}", true), (" {\"a\" : [1, -2.5e+3, 0, -0, 1E2, true, false, null, {}, []]}\n", true),
        (#"{"s":"\" \\ \/ \b \f \n \r \t \u00e9 \uD83D\uDE00 é 😀"}"#, true), (#"{"a":{"b":{"c":[[[]]]}}}"#, true),
        (#"{"a":1,"a":2}"#, true),
        ("", false), ("[]", false), ("\"text\"", false), ("1", false), ("null", false), ("{", false), ("}", false),
        (#"{"a":1,}"#, false), (#"{"a" 1}"#, false), (#"{a:1}"#, false), (#"{"a":01}"#, false), (#"{"a":1.}"#, false),
        (#"{"a":.5}"#, false), (#"{"a":1e}"#, false), (#"{"a":+1}"#, false), (#"{"a":-}"#, false), (#"{"a":NaN}"#, false),
        (#"{"a":tru}"#, false), (#"{"a":nul}"#, false), (#"{"a":"\x"}"#, false), (#"{"a":"\u12G4"}"#, false),
        ("{\"a\":\"tab\there\"}", false), (#"{"a":"unterminated}"#, false), (#"{} {}"#, false), (#"{}x"#, false),
        (#"{"a":[1,]}"#, false), (#"{"a":[1 2]}"#, false), (#"{'a':1}"#, false),
        (String(repeating: "[", count: 100) + String(repeating: "]", count: 100), false),
    ]

    @Test("A payload verifies exactly when it is one JSON object", arguments: cases)
    func payloadMustBeJSONObject(text: String, valid: Bool) throws {
        let data = Data(text.utf8)
        // Foundation on Linux tolerates trailing commas, which RFC 8259 (and the scanner) refuse.
        let trailingComma = text.contains(",}") || text.contains(",]")
        #expect(((try? JSONSerialization.jsonObject(with: data)) is [String: Any]) == (valid || trailingComma), "Foundation disagrees about \(text)")
        let result = verifier.verify(try signer.sign(payload: data), at: .now)
        #expect(result.isVerified == valid, "\(text): \(result.error?.description ?? "verified")")
        if !valid { #expect(result.error?.kind == .invalidEncoding) }
        #expect(result.payload == data)
    }

    @Test("A payload that is not UTF-8 is invalid encoding")
    func notUTF8() throws {
        for bytes: [UInt8] in [[0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xFF, 0x22, 0x7D], [0x7B, 0x22, 0xC3, 0x22, 0x3A, 0x31, 0x7D]] {
            let result = verifier.verify(try signer.sign(payload: Data(bytes)), at: .now)
            #expect(result.error?.kind == .invalidEncoding)
        }
    }

    @Test("signedDate is read only from the top level, as a possibly fractional number")
    func signedDateSource() throws {
        // The certificate covers 2020-09-13 ... 2040: a 2019 signedDate fails, a 2023 one passes.
        let cases: [(String, Bool)] = [
            (#"{"signedDate":1697679936049.7297}"#, true),
            (#"{"signedDate":1500000000000}"#, false),
            (#"{"signedDate":1.5e12}"#, false),
            (#"{"data":{"signedDate":1500000000000}}"#, true),  // nested: ignored, so now is used
            (#"{"signedDate":"1500000000000"}"#, true),  // not a number: ignored, so now is used
        ]
        for (text, verifies) in cases {
            let result = verifier.verify(try signer.sign(payload: Data(text.utf8)), at: .signedDate)
            #expect(result.isVerified == verifies, "\(text): \(result.error?.description ?? "verified")")
            if !verifies { #expect(result.error?.kind == .invalidCertificateChain) }
        }
    }
}
