import Foundation
import Testing
import StoreCore
import StoreEngine
import StoreClient
import StoreSigning
import StorefrontTestSupport
import StoreVerification

/// The behaviour every `TransactionSource` must have, run against each one: the proof that
/// `StoreManager` depends only on the contract.
enum SourceKind: String, CaseIterable, CustomTestStringConvertible {
    case local, postgres, scripted
    var testDescription: String { rawValue }

    /// The kinds this run can make: the PostgreSQL ledger when a server is there (or CI, to fail saying why).
    static var available: [SourceKind] { PostgresTestServer.enabled ? allCases : [.local, .scripted] }

    func make() throws -> (source: any TransactionSource & StoreTestControls, certificate: Certificate) {
        var catalog = Repo.catalog
        catalog.settings.networkDelay = 0
        switch self {
        case .local:
            let store = try LocalAppStore(catalog: catalog, stateDirectory: nil, time: ManualTime())
            return (store, store.certificate)
        case .postgres:
            let store = try LocalAppStore(catalog: catalog, stateDirectory: nil, ledger: .postgresql(PostgresTestServer.freshLedger()), time: ManualTime())
            return (store, store.certificate)
        case .scripted:
            let store = try ScriptedSource(catalog: catalog)
            return (store, store.certificate)
        }
    }

    /// Makes the next purchase wait for a parent: a setting for the local store, a queued outcome for the scripted one.
    func arrangeAskToBuy(_ source: any TransactionSource & StoreTestControls) async {
        if let scripted = source as? ScriptedSource { await scripted.enqueue(.pending(.askToBuy)) }
        else { await source.update { $0.askToBuy = true } }
    }

    func arrangeFailure(_ source: any TransactionSource & StoreTestControls, _ failure: StoreFailure) async {
        if let scripted = source as? ScriptedSource { await scripted.enqueue(.failure(failure)) }
        else { await source.update { $0.failures[.purchase] = failure } }
    }
}

struct App {
    let source: any TransactionSource & StoreTestControls
    let manager: StoreManager
    let wallet: ConsumableWallet

    /// An app launching on a source (again, when given the same wallet).
    static func launch(_ source: any TransactionSource & StoreTestControls, certificate: Certificate,
                       wallet: ConsumableWallet? = nil) async throws -> App {
        let wallet = try wallet ?? ConsumableWallet(path: nil)
        let manager = StoreManager(source: source, verifier: SignedDataVerifier(trustedRoots: [certificate]), wallet: wallet)
        await manager.start()
        return App(source: source, manager: manager, wallet: wallet)
    }

    func entitled(_ id: String) async -> Bool { await manager.snapshot.entitlements.contains(id) }
    func balance(_ id: String) async -> Int { await manager.snapshot.balances[id] ?? 0 }
}

@Suite("TransactionSource contract (every source)")
struct SourceContractTests {
    @Test("confirm gives a verified success, delivered then finished", arguments: SourceKind.available)
    func confirm(kind: SourceKind) async throws {
        let (source, cert) = try kind.make()
        let app = try await App.launch(source, certificate: cert)
        #expect(await app.manager.purchase(ID.pro).transaction?.productID == ID.pro)
        #expect(await app.entitled(ID.pro))
        #expect(await source.unfinishedTransactions().isEmpty)
        await app.manager.stop()
    }

    @Test("cancel gives userCancelled and unlocks nothing", arguments: SourceKind.available)
    func cancel(kind: SourceKind) async throws {
        let (source, cert) = try kind.make()
        let app = try await App.launch(source, certificate: cert)
        #expect(await app.manager.purchase(ID.pro, answer: .cancel) == .userCancelled)
        #expect(await !app.entitled(ID.pro))
        await app.manager.stop()
    }

    @Test("pending unlocks nothing; approval arrives through updates", arguments: SourceKind.available)
    func approval(kind: SourceKind) async throws {
        let (source, cert) = try kind.make()
        let app = try await App.launch(source, certificate: cert)
        await kind.arrangeAskToBuy(source)
        #expect(await app.manager.purchase(ID.removeAds) == .pending(.askToBuy))
        #expect(await !app.entitled(ID.removeAds))
        let id = try #require(await source.ledgerEntries().first?.id)
        try await source.approveAskToBuy(transactionID: id)
        #expect(await eventually { await app.entitled(ID.removeAds) })
        await app.manager.stop()
    }

    @Test("declined Ask to Buy never unlocks", arguments: SourceKind.available)
    func declined(kind: SourceKind) async throws {
        let (source, cert) = try kind.make()
        let app = try await App.launch(source, certificate: cert)
        await kind.arrangeAskToBuy(source)
        _ = await app.manager.purchase(ID.removeAds)
        let id = try #require(await source.ledgerEntries().first?.id)
        try await source.declineAskToBuy(transactionID: id)
        await app.manager.refresh()
        #expect(await !app.entitled(ID.removeAds))
        #expect(await source.ledgerEntries().first?.status == .declined)
        await app.manager.stop()
    }

    @Test("unfinished transaction is redelivered at launch and credited once", arguments: SourceKind.available)
    func redelivery(kind: SourceKind) async throws {
        let (source, cert) = try kind.make()
        let wallet = try ConsumableWallet(path: nil)
        // The app crashed after the store charged but before it delivered.
        _ = try await source.purchase(ID.gems, options: PurchaseOptions(), answer: .confirm)
        let app = try await App.launch(source, certificate: cert, wallet: wallet)
        #expect(await eventually { await app.balance(ID.gems) == 1 })
        #expect(await eventually { await source.unfinishedTransactions().isEmpty })
        await app.manager.stop()
        // A second launch redelivers nothing, and a duplicate delivery is not credited twice.
        let again = try await App.launch(source, certificate: cert, wallet: wallet)
        #expect(await again.balance(ID.gems) == 1)
        await again.manager.stop()
    }

    @Test("finishing several transactions at once finishes each of them and no other", arguments: SourceKind.available)
    func finishingSeveralAtOnce(kind: SourceKind) async throws {
        let (source, _) = try kind.make()
        for _ in 0..<3 { _ = try await source.purchase(ID.gems, options: PurchaseOptions(), answer: .confirm) }
        let ids = await source.ledgerEntries().map(\.id).sorted()
        #expect(ids.count == 3)
        #expect(await source.unfinishedCount() == 3)
        await source.finish(transactionIDs: [ids[0], ids[2]])
        #expect(await source.unfinishedCount() == 1)
        #expect(await source.ledgerEntries().filter { !$0.isFinished }.map(\.id) == [ids[1]])
        await source.finish(transactionIDs: [])
        #expect(await source.unfinishedCount() == 1)
    }

    @Test("a refund removes the entitlement through updates", arguments: SourceKind.available)
    func refund(kind: SourceKind) async throws {
        let (source, cert) = try kind.make()
        let app = try await App.launch(source, certificate: cert)
        let t = try #require(await app.manager.purchase(ID.pro).transaction)
        try await source.refund(transactionID: t.transactionID, prorated: false)
        #expect(await eventually { await !app.entitled(ID.pro) })
        await app.manager.stop()
    }

    @Test("another device's purchase arrives through updates", arguments: SourceKind.available)
    func outsidePurchase(kind: SourceKind) async throws {
        let (source, cert) = try kind.make()
        let app = try await App.launch(source, certificate: cert)
        try await source.buyOutsideApp(productID: ID.season, familyShared: false)
        #expect(await eventually { await app.entitled(ID.season) })
        await app.manager.stop()
    }

    @Test("a purchase error reaches the app as that StoreKit error", arguments: SourceKind.available)
    func failure(kind: SourceKind) async throws {
        let (source, cert) = try kind.make()
        let app = try await App.launch(source, certificate: cert)
        await kind.arrangeFailure(source, .storeKit(.networkError))
        #expect(await app.manager.purchase(ID.pro) == .failed(.storeKit(.networkError)))
        #expect(await app.manager.snapshot.lastError == .storeKit(.networkError))
        await app.manager.stop()
    }

    @Test("restore counts restorable purchases", arguments: SourceKind.available)
    func restore(kind: SourceKind) async throws {
        let (source, cert) = try kind.make()
        let app = try await App.launch(source, certificate: cert)
        _ = await app.manager.purchase(ID.pro)
        _ = await app.manager.purchase(ID.coins)
        await app.manager.restore()
        #expect(await app.manager.snapshot.lastEvent == .restored(count: 1))
        await app.manager.stop()
    }

    @Test("data signed by another store is unverified and never delivered", arguments: SourceKind.available)
    func foreignSigner(kind: SourceKind) async throws {
        let (source, _) = try kind.make()
        let stranger = try StoreIdentity.ephemeral()
        let app = try await App.launch(source, certificate: stranger.certificate)
        guard case .success(.unverified(_, let error)) = await app.manager.purchase(ID.gems) else { Issue.record("expected unverified"); return }
        #expect(error == .invalidCertificateChain)
        #expect(await app.balance(ID.gems) == 0)
        await app.manager.stop()
    }

    @Test("every group's statuses and eligibility in one call are each group's own", arguments: SourceKind.available)
    func batchedStatusesMatchPerGroup(kind: SourceKind) async throws {
        let (source, certificate) = try kind.make()
        let app = try await App.launch(source, certificate: certificate)
        _ = await app.manager.purchase(ID.proMonthly)
        let groups = [ID.group, "no.such.group"]
        let batched = try await source.subscriptionStatuses(groupIDs: groups)
        #expect(batched[ID.group]?.count == 1)
        for group in groups {
            let one = try await source.subscriptionStatuses(groupID: group)
            #expect(batched[group]?.map(\.state) == one.map(\.state))
            #expect(batched[group]?.map(\.transaction) == one.map(\.transaction))
        }
        let eligibility = await source.introOfferEligibility(groupIDs: groups)
        #expect(eligibility[ID.group] == false)
        #expect(eligibility["no.such.group"] == true)
        await app.manager.stop()
    }
}
