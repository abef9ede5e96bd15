import Foundation
import Testing
import StoreCore
import StoreSigning
import StoreClient
@testable import StoreEngine
import StorefrontTestSupport
import StoreVerification

@Suite("Ledger storage")
struct LedgerStorageTests {
    let identity = try! StoreIdentity.ephemeral()

    @Test("the store's token over a row's payload is stored as its signature and read back whole")
    func tokenStoredAsSignature() throws {
        let ledger = try Ledger(path: nil, tokenPrefix: identity.signer.tokenPrefix)
        let payload = #"{"transactionId":"2000000001"}"#
        let jws = try identity.signer.sign(payload: Data(payload.utf8))
        let stored = ledger.stored(jws, payload: payload)
        #expect(!stored.contains(".") && jws.hasSuffix("." + stored))
        #expect(ledger.token(stored, payload: payload) == jws)
    }

    @Test("a token by another signer, or over other bytes, is stored whole")
    func foreignTokenStoredWhole() throws {
        let ledger = try Ledger(path: nil, tokenPrefix: identity.signer.tokenPrefix)
        let payload = #"{"transactionId":"2000000001"}"#
        let foreign = try StoreIdentity.ephemeral().signer.sign(payload: Data(payload.utf8))
        let other = try identity.signer.sign(payload: Data(#"{"transactionId":"2000000002"}"#.utf8))
        #expect(ledger.stored(foreign, payload: payload) == foreign)
        #expect(ledger.stored(other, payload: payload) == other)
        #expect(ledger.token(foreign, payload: payload) == foreign)
    }

    @Test("tokens read in a batch are the rows' current ones, also after a row changes")
    func batchedTokensFollowChanges() throws {
        let ledger = try Ledger(path: nil, tokenPrefix: identity.signer.tokenPrefix)
        var payload = TransactionPayload(transactionID: 2_000_000_001, originalTransactionID: 2_000_000_001, bundleID: "b", productID: "p",
                                         productType: .nonConsumable, purchaseDate: Date(), originalPurchaseDate: Date(), quantity: 1,
                                         signedDate: Date(), storefront: "USA", storefrontID: "143441", currency: "USD", priceMilliunits: 990,
                                         appTransactionID: "1")
        let first = try identity.signer.sign(payload: Data(payload.json.compact.utf8))
        try ledger.insert(.init(payload: payload, status: .completed, finished: false, jws: first))
        #expect(try ledger.jws([payload.transactionID, 7]) == [payload.transactionID: first])
        payload.revocationDate = Date()
        let revoked = try identity.signer.sign(payload: Data(payload.json.compact.utf8))
        try ledger.update(.init(payload: payload, status: .completed, finished: false, jws: revoked))
        #expect(try ledger.jws([payload.transactionID]) == [payload.transactionID: revoked])
    }

    @Test("purchases read back from disk verify, from their signature-only rows")
    func purchasesVerifyAfterReopening() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var catalog = Repo.catalog
        catalog.settings.networkDelay = 0
        var bought: [String] = []
        do {
            let store = try LocalAppStore(catalog: catalog, stateDirectory: directory)
            for id in [ID.pro, ID.coins, ID.proMonthly] {
                guard case .success(let jws) = try await store.purchase(id, options: PurchaseOptions(), answer: .confirm) else {
                    Issue.record("\(id) was not bought"); return
                }
                bought.append(jws)
            }
            await store.shutdown()
        }
        let raw = try Ledger(path: directory + "/ledger.sqlite", tokenPrefix: "")
        let columns = try raw.db.query("SELECT jws FROM transactions").compactMap { $0[0].text }
        #expect(columns.count == 3 && columns.allSatisfy { !$0.contains(".") })

        let store = try LocalAppStore(catalog: catalog, stateDirectory: directory)
        let verifier = SignedDataVerifier(trustedRoots: [store.certificate])
        let read = await store.allTransactions()
        #expect(Set(read) == Set(bought))
        for jws in read { #expect(verifier.transaction(jws).isVerified) }
        await store.shutdown()
    }
}

@Suite("Ledger settings")
struct LedgerMetaTests {
    @Test("the first store to open a ledger sets its appTransactionID; later ones keep it")
    func appTransactionIDIsSetOnce() throws {
        let ledger = try Ledger(path: nil, tokenPrefix: "")
        #expect(try ledger.meta("appTransactionID") { "1" } == "1")
        #expect(try ledger.meta("appTransactionID") { "2" } == "1")
    }
}
