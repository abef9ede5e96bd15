import Foundation
import Testing
import StoreCore
import StoreEngine
import StoreClient
import StoreSigning
import StorefrontTestSupport
import StoreVerification

@Suite("Signed data out: environment, app identity and the export")
struct ExportTests {
    @Test("transactions, renewal info and the AppTransaction carry the store's environment and the app's Apple ID", arguments: StoreEnvironment.allCases)
    func environment(_ environment: StoreEnvironment) async throws {
        let h = try await Harness.make()
        await h.store.update { $0.environment = environment }
        _ = await h.manager.purchase(ID.plusMonthly)
        let export = try await h.store.exportSignedData()
        let verifier = SignedDataVerifier(trustedRoots: [h.store.certificate])
        #expect(export.transactions.compactMap { verifier.transaction($0).payload?.environment } == [environment.rawValue])
        #expect(export.renewalInfo.compactMap { verifier.renewalInfo($0).payload?.environment } == [environment.rawValue])
        let app = try #require(verifier.appTransaction(export.appTransaction).payload)
        #expect(app.environment == environment.rawValue)
        let json = try JSONParser.parse(try #require(Base64URL.decode(String(export.appTransaction.split(separator: ".")[1]))))
        #expect(json["receiptType"]?.stringValue == environment.rawValue && json["appAppleId"] == nil)
        await h.close()
    }

    @Test("the export's JSON names each transaction's order ID, which Look Up Order ID takes")
    func orders() async throws {
        let h = try await Harness.make()
        _ = await h.manager.purchase(ID.coins)
        _ = await h.manager.purchase(ID.pro)
        let export = try await h.store.exportSignedData()
        let verifier = SignedDataVerifier(trustedRoots: [h.store.certificate])
        let ids = export.transactions.compactMap { verifier.transaction($0).payload?.transactionID }
        #expect(ids.count == 2)
        let orders = try #require(export.json["orders"])
        for id in ids { #expect(orders[String(id)]?.stringValue.flatMap(OrderID.transactionID(of:)) == id) }
        await h.close()
    }

    @Test("the AppTransaction carries the catalog's app.appAppleId")
    func appAppleID() async throws {
        let store = try LocalAppStore(catalog: TokenTour.catalog(), stateDirectory: nil, time: ManualTime())
        let token = try await store.appTransaction()
        #expect(SignedDataVerifier(trustedRoots: [store.certificate]).appTransaction(token).payload?.appAppleID == TokenTour.appAppleID)
        await store.shutdown()
    }

    @Test("the export holds every completed transaction oldest first, each subscription's renewal info and the AppTransaction, all verified; injected failures do not apply")
    func export() async throws {
        let h = try await Harness.make()
        _ = await h.manager.purchase(ID.coins)
        _ = await h.manager.purchase(ID.pro)
        _ = await h.manager.purchase(ID.plusMonthly)
        await h.store.update { $0.invalidSignatures = true; $0.askToBuy = true }
        _ = await h.manager.purchase(ID.removeAds)  // pending: not a transaction yet
        let export = try await h.store.exportSignedData()
        let verifier = SignedDataVerifier(trustedRoots: [h.store.certificate])
        #expect(export.transactions.map { verifier.transaction($0).payload?.productID } == [ID.coins, ID.pro, ID.plusMonthly])
        #expect(export.transactions.allSatisfy { verifier.transaction($0).isVerified })
        #expect(export.renewalInfo.map { verifier.renewalInfo($0).payload?.productID } == [ID.plusMonthly])
        #expect(verifier.renewalInfo(export.renewalInfo[0]).isVerified && verifier.appTransaction(export.appTransaction).isVerified)

        let path = temporaryDirectory() + ".json"
        try await h.store.exportSignedData(to: path)
        // Renewal info and the AppTransaction are signed anew for each export; transactions are the stored tokens.
        let written = try JSONParser.parse(Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(written["transactions"]?.arrayValue?.compactMap(\.stringValue) == export.transactions)
        #expect(written["renewalInfo"]?.arrayValue?.count == 1)
        #expect(written["appTransaction"]?.stringValue.map { verifier.appTransaction($0).isVerified } == true)
        await h.close()
    }
}
