import Foundation
import Testing
import StoreCore
import StoreSigning
@testable import StoreEngine
import StorefrontTestSupport

/// Retention Messaging at cancel time: the default message in the customer's locale, or what the
/// backend answers the signed realtime request with, falling back to the default when it does not.
@Suite("Retention messaging")
struct RetentionMessagingTests {
    static let group = "lumenquest.membership"
    static let (stay, alternate) = ("6f0e7c52-2a55-4c8e-9a43-0a1f5b0c9d11", "0c3b6d2e-7f51-4a0e-8d2a-5b9f1e2c3d44")

    func store(defaultLocale: String = "en-US") async throws -> LocalAppStore {
        var catalog = Repo.catalog
        catalog.settings.networkDelay = 0
        let store = try LocalAppStore(catalog: catalog, stateDirectory: nil, ledger: PostgresTestServer.defaultLedger(for: nil), time: ManualTime())
        try await store.putServerRecord(.message, id: Self.stay, value: #"{"header":"Before you go","body":"Stay for half price.","bulletPoints":[{"text":"Cloud saves","imageIdentifier":"x","altText":"a cloud"}]}"#)
        try await store.putServerRecord(.message, id: Self.alternate, value: #"{"header":"Try Plus","body":"Less, for less."}"#)
        try await store.putServerRecord(.defaultMessage, id: ID.proMonthly + "/" + defaultLocale, value: Self.stay)
        return store
    }

    @Test("with no realtime URL the default message for the product shows, in the customer's locale or else their language")
    func theDefaultMessageInTheCustomersLocale() async throws {
        for locale in ["en-US", "en-GB"] {
            let store = try await store(defaultLocale: locale)
            #expect(await store.retentionOffer(group: Self.group) { _, _ in nil } == nil, "no subscription: nothing to keep")
            _ = try await store.purchase(ID.proMonthly, options: PurchaseOptions(), answer: .confirm)
            let offer = await store.retentionOffer(group: Self.group) { _, _ in Issue.record("no realtime URL: nothing is asked"); return nil }
            #expect(offer == RetentionOffer(message: RetentionMessage(header: "Before you go", body: "Stay for half price.", bullets: ["Cloud saves"]),
                                            fromBackend: false), "\(locale)")
            await store.shutdown()
        }
    }

    @Test("with a realtime URL the backend's answer shows: its message with another product or a signed offer; no answer or a useless one falls back to the default")
    func theBackendsRealtimeAnswer() async throws {
        let store = try await store()
        _ = try await store.purchase(ID.proMonthly, options: PurchaseOptions(), answer: .confirm)
        try await store.putServerRecord(.realtimeURL, id: "", value: "http://127.0.0.1:9/retention")
        let certificate = store.certificate
        let alternate = await store.retentionOffer(group: Self.group) { url, signed in
            let claims = JWSVerifier(trustedRoots: [certificate]).verify(signed, at: .now).payload.flatMap { try? JSONParser.parse($0) }
            #expect(url == "http://127.0.0.1:9/retention" && claims?["productId"]?.stringValue == ID.proMonthly && claims?["userLocale"]?.stringValue == "en-US")
            return ["alternateProduct": ["messageIdentifier": .string(Self.alternate), "productId": .string(ID.plusMonthly)]]
        }
        #expect(alternate?.message.header == "Try Plus" && alternate?.alternateProductID == ID.plusMonthly && alternate?.fromBackend == true)
        let jws = "e30." + Base64URL.encode(Data(#"{"offerIdentifier":"pro.comeback50"}"#.utf8)) + ".c2ln"
        let promotional = await store.retentionOffer(group: Self.group) { _, _ in
            ["promotionalOffer": ["messageIdentifier": .string(Self.stay), "promotionalOfferSignatureV2": .string(jws)]]
        }
        #expect(promotional?.promotionalOffer == PromotionalOfferChoice(offerID: "pro.comeback50", signature: jws))
        for answer in [nil, ["message": ["messageIdentifier": .string(UUID().uuidString)]] as JSONValue] {
            let fallback = await store.retentionOffer(group: Self.group) { _, _ in answer }
            #expect(fallback?.message.header == "Before you go" && fallback?.fromBackend == false, "failed, slow or unknown message: the default")
        }
        await store.shutdown()
    }
}
