import Foundation
import Testing
import StoreCore
import StoreSigning
@testable import StoreEngine

@Suite("Catch-up batch: renewals signed beside a catch-up, its notifications in order")
struct CatchUpBatchTests {
    static let identity = try! StoreIdentity.ephemeral()

    static func notification(_ type: String) -> Ledger.OutboxRow {
        Ledger.OutboxRow(type: type, created: .now, environment: "Sandbox", delivery: .notSent)
    }

    @Test("every transaction queued is signed, and the notifications come back in order, each with the renewal info made for it")
    func finishes() throws {
        let batch = CatchUpBatch(signer: Self.identity.signer)
        let payloads = (1...20).map { "{\"transactionId\":\"\($0)\"}" }
        for (id, payload) in payloads.enumerated() { batch.sign(payload, for: Int64(id + 1)) }
        batch.hold(Self.notification("DID_RENEW"), renewalInfo: { "{\"renewal\":1}" })
        batch.hold(Self.notification("TEST"), renewalInfo: nil)
        batch.hold(Self.notification("EXPIRED"), renewalInfo: { "{\"renewal\":3}" })
        let (signatures, notifications) = try batch.take()
        #expect(signatures.map(\.id) == Array(1...20))
        let verifier = JWSVerifier(trustedRoots: [Self.identity.certificate])
        let token = try Self.identity.signer.sign(payload: Data(payloads[4].utf8))
        let header = token.split(separator: ".")[0], body = token.split(separator: ".")[1]
        #expect(verifier.verify("\(header).\(body).\(signatures[4].signature)", at: .now).isVerified)
        #expect(notifications.map(\.type) == ["DID_RENEW", "TEST", "EXPIRED"])
        #expect(notifications.map(\.renewalPayload) == ["{\"renewal\":1}", nil, "{\"renewal\":3}"])

        // What came after, alone, its renewal info in its own slots.
        batch.sign("{\"transactionId\":\"21\"}", for: 21)
        batch.hold(Self.notification("DID_RENEW"), renewalInfo: { "{\"renewal\":4}" })
        #expect(batch.queued == 1)
        let (later, laterNotifications) = try batch.take()
        #expect(later.map(\.id) == [21])
        #expect(laterNotifications.map(\.renewalPayload) == ["{\"renewal\":4}"])
        #expect(batch.queued == 0)
    }
}
