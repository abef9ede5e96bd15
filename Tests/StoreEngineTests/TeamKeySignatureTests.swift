import Foundation
import Testing
import StoreCore
import StoreSigning
@testable import StoreEngine
import StorefrontTestSupport

/// The team's In-App Purchase key: what a backend signs with Apple's own library (Python,
/// `PromotionalOfferV2SignatureCreator`, `PromotionalOfferSignatureCreator`,
/// `IntroductoryOfferEligibilitySignatureCreator`) is accepted once registered; forged, wrong-key,
/// replayed and stale signatures are refused with StoreKit's `invalidOfferSignature`.
@Suite(.tags(.appleLibrary), .notInFastLoop, .enabled(if: AppleLibraryPython.enabled, "Apple's library is not installed (.venv-apple)"))
struct TeamKeySignatureTests {
    static let keyID = "TEAMKEY001", issuerID = "57246542-96fe-1a63-e053-0824d011072a"

    /// A store with a lapsed Pro subscriber (eligible for the promotional offer pro.comeback50) and the team's key registered.
    final class Team: Sendable {
        let store: LocalAppStore
        let time: ManualTime
        /// The team's key file, and another key's beside it (`keyPath + ".other.p8"`); both go with the team.
        let keyPath: String
        let original: Int64

        init(store: LocalAppStore, time: ManualTime, keyPath: String, original: Int64) {
            (self.store, self.time, self.keyPath, self.original) = (store, time, keyPath, original)
        }

        deinit {
            for path in [keyPath, keyPath + ".other.p8"] { try? FileManager.default.removeItem(atPath: path) }
        }

        static func make(register: Bool = true) async throws -> Team {
            var catalog = Repo.catalog
            catalog.settings.networkDelay = 0
            // Real time now: Apple's library signs with the wall clock, and a signature is good for 24 hours.
            let time = ManualTime(start: Date())
            let store = try LocalAppStore(catalog: catalog, stateDirectory: nil, ledger: PostgresTestServer.defaultLedger(for: nil), time: time)
            _ = try await store.purchase(ID.proMonthly, options: PurchaseOptions(), answer: .confirm)
            let original = try #require(await store.ledgerEntries(limit: 1).first?.id)
            try await store.setAutoRenew(productID: ID.proMonthly, enabled: false)
            try await store.advanceTime(by: Period(4, .month))
            let key = try SigningKey.generate()
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("SubscriptionKey_\(UUID().uuidString).p8").path
            try key.pemRepresentation.write(toFile: path, atomically: true, encoding: .utf8)
            if register { try await store.registerInAppPurchaseKey(keyID: keyID, privateKeyPEM: key.pemRepresentation, issuerID: issuerID) }
            return Team(store: store, time: time, keyPath: path, original: original)
        }

        /// Signatures made by Apple's library with this team's key.
        func sign(_ requests: [[String: Any]], keyPath: String? = nil) async throws -> [String] {
            try await AppleLibraryPython.sign(requests, keyPath: keyPath ?? self.keyPath, keyID: TeamKeySignatureTests.keyID,
                                              issuerID: TeamKeySignatureTests.issuerID)
        }

        func buy(offer signature: String, appAccountToken: UUID? = nil) async -> Result<PurchaseOutcome, StoreFailure> {
            await result { try await store.purchase(ID.proMonthly, options: PurchaseOptions(appAccountToken: appAccountToken,
                                                                                           promotionalOffer: ("pro.comeback50", signature)), answer: .confirm) }
        }

        func offerID(of outcome: Result<PurchaseOutcome, StoreFailure>) -> String? {
            guard case .success(.success(let jws)) = outcome else { return nil }
            return TransactionPayload(json: (try? JSONParser.parse(JWSVerifier(trustedRoots: [store.certificate]).verify(jws, at: .signedDate).payload ?? Data())) ?? .null)?.offerID
        }
    }

    static func result(_ body: () async throws -> PurchaseOutcome) async -> Result<PurchaseOutcome, StoreFailure> {
        do { return .success(try await body()) } catch let failure as StoreFailure { return .failure(failure) } catch { return .failure(.storeKit(.unknown)) }
    }

    static let invalidSignature = Result<PurchaseOutcome, StoreFailure>.failure(.purchase(.invalidOfferSignature))

    @Test("a promotional offer V2 JWS signed with the team's registered key by Apple's library is accepted, once")
    func promotionalOfferV2IsAcceptedOnceThenReplayIsRefused() async throws {
        let team = try await Team.make()
        let jws = try await team.sign([["kind": "v2", "productId": ID.proMonthly, "offerId": "pro.comeback50", "transactionId": String(team.original)]])[0]
        #expect(team.offerID(of: await team.buy(offer: jws)) == "pro.comeback50")
        #expect(await team.buy(offer: jws) == Self.invalidSignature, "a nonce is good once: a replay is refused")
        await team.store.shutdown()
    }

    @Test("the legacy promotional offer signature (keyIdentifier, nonce, timestamp, signature) is accepted with the app account token it signed")
    func legacyPromotionalOfferSignatureIsAccepted() async throws {
        let team = try await Team.make()
        let token = UUID()
        let signed = try await team.sign([["kind": "legacy", "productId": ID.proMonthly, "offerId": "pro.comeback50",
                                           "applicationUsername": token.uuidString]])[0]
        #expect(await team.buy(offer: signed, appAccountToken: UUID()) == Self.invalidSignature, "signed for another account token")
        #expect(team.offerID(of: await team.buy(offer: signed, appAccountToken: token)) == "pro.comeback50")
        await team.store.shutdown()
    }

    @Test("forged, wrong-key, other-offer and stale signatures are refused with invalidOfferSignature")
    func forgedWrongKeyAndStaleSignaturesAreRefused() async throws {
        let team = try await Team.make()
        let signed = try await team.sign([["kind": "v2", "productId": ID.proMonthly, "offerId": "pro.comeback50"],
                                          ["kind": "v2", "productId": ID.proMonthly, "offerId": "plus.loyalty"],
                                          ["kind": "legacy", "productId": ID.proMonthly, "offerId": "pro.comeback50",
                                           "timestamp": Int64((Date().timeIntervalSince1970 - 25 * 3600) * 1000)]])
        var forged = Array(signed[0])
        forged[forged.count - 5] = forged[forged.count - 5] == "A" ? "B" : "A"
        #expect(await team.buy(offer: String(forged)) == Self.invalidSignature, "forged")
        #expect(await team.buy(offer: signed[1]) == Self.invalidSignature, "signed for another offer")
        #expect(await team.buy(offer: signed[2]) == Self.invalidSignature, "a legacy timestamp older than 24 hours")
        let other = try SigningKey.generate()
        let otherPath = team.keyPath + ".other.p8"
        try other.pemRepresentation.write(toFile: otherPath, atomically: true, encoding: .utf8)
        let wrongKey = try await team.sign([["kind": "v2", "productId": ID.proMonthly, "offerId": "pro.comeback50"]], keyPath: otherPath)[0]
        #expect(await team.buy(offer: wrongKey) == Self.invalidSignature, "the key ID is registered, but not with this key")
        team.time.advance(25 * 3600)
        #expect(await team.buy(offer: signed[0]) == Self.invalidSignature, "a JWS older than 24 hours")
        await team.store.shutdown()
    }

    @Test("an unregistered key's signature is refused; the same signature is accepted once the key is registered")
    func aKeyMustBeRegistered() async throws {
        let team = try await Team.make(register: false)
        let jws = try await team.sign([["kind": "v2", "productId": ID.proMonthly, "offerId": "pro.comeback50"]])[0]
        #expect(await team.buy(offer: jws) == Self.invalidSignature)
        try await team.store.registerInAppPurchaseKey(keyID: Self.keyID, privateKeyPEM: try String(contentsOfFile: team.keyPath, encoding: .utf8),
                                                      issuerID: Self.issuerID)
        #expect(team.offerID(of: await team.buy(offer: jws)) == "pro.comeback50")
        await team.store.shutdown()
    }

    @Test("an introductory-offer eligibility JWS decides the introductory offer: denied to a new customer, granted to a lapsed one")
    func introductoryOfferEligibilityDecides() async throws {
        let team = try await Team.make()
        let signed = try await team.sign([["kind": "intro", "productId": ID.proMonthly, "allow": true, "transactionId": String(team.original)],
                                          ["kind": "intro", "productId": ID.plusMonthly, "allow": false, "transactionId": String(team.original)],
                                          ["kind": "intro", "productId": ID.plusMonthly, "allow": false, "transactionId": "9999999"]])
        func buy(_ product: String, _ jws: String) async -> Result<PurchaseOutcome, StoreFailure> {
            var options = PurchaseOptions()
            options.introductoryOfferEligibility = jws
            return await Self.result { try await team.store.purchase(product, options: options, answer: .confirm) }
        }
        func offerType(_ outcome: Result<PurchaseOutcome, StoreFailure>) -> OfferType? {
            guard case .success(.success(let jws)) = outcome else { return nil }
            return TransactionPayload(json: (try? JSONParser.parse(JWSVerifier(trustedRoots: [team.store.certificate]).verify(jws, at: .signedDate).payload ?? Data())) ?? .null)?.offerType
        }
        #expect(await buy(ID.plusMonthly, signed[2]) == Self.invalidSignature, "for a transaction that is not this customer's")
        #expect(offerType(await buy(ID.proMonthly, signed[0])) == .introductory, "a lapsed subscriber, let have it by the server")
        #expect(await buy(ID.proMonthly, signed[0]) == Self.invalidSignature, "replayed")
        await team.store.shutdown()
        // A new group for this customer: eligible by history, denied by the server.
        let fresh = try await Team.make()
        let denied = try await fresh.sign([["kind": "intro", "productId": ID.plusMonthly, "allow": false, "transactionId": String(fresh.original)]])[0]
        var options = PurchaseOptions()
        options.introductoryOfferEligibility = denied
        let outcome = await Self.result { try await fresh.store.purchase(ID.plusMonthly, options: options, answer: .confirm) }
        guard case .success(.success(let jws)) = outcome else { Issue.record("\(outcome)"); return }
        let payload = TransactionPayload(json: try JSONParser.parse(JWSVerifier(trustedRoots: [fresh.store.certificate]).verify(jws, at: .signedDate).payload ?? Data()))
        #expect(payload?.offerType == nil, "no introductory offer")
        await fresh.store.shutdown()
    }
}
