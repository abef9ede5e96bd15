import Foundation
import Testing
import StoreCore
import StoreSigning
@testable import StoreClient
@testable import StoreEngine
import StorefrontTestSupport
import StoreVerification

/// A refresh after the app's own purchase reads only what changed (`TransactionSource.changes(since:)`);
/// each rule it relies on must leave the snapshot exactly what reading everything gives.
@Suite("Snapshot brought up to date")
struct SnapshotChangesTests {
    /// A harness on a state directory, so that a second app launched on its store shares the wallet.
    func harness(_ time: ManualTime = ManualTime()) async throws -> (Harness, String) {
        let directory = temporaryDirectory()
        return (try await Harness.make(directory: directory, time: time), directory)
    }

    /// What the store says in a snapshot, without what the app did last (its events, its purchase, its AppTransaction).
    func records(_ snapshot: StoreSnapshot) -> StoreSnapshot {
        var records = snapshot
        records.lastPurchase = nil
        records.lastEvent = nil
        records.lastError = nil
        records.appTransaction = nil
        return records
    }

    /// The snapshot of the same app launched afresh on the store: everything read whole.
    func readWhole(_ h: Harness, _ directory: String) async throws -> StoreSnapshot {
        let fresh = try await StoreStack.launchApp(on: h.store, stateDirectory: directory)
        let snapshot = await fresh.snapshot
        await fresh.stop()
        return records(snapshot)
    }

    @Test("a purchase's snapshot equals a full refresh's, for every kind of product")
    func purchaseSnapshotEqualsFullRefresh() async throws {
        let (h, directory) = try await harness()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for product in [ID.coins, ID.coins, ID.removeAds, ID.season, ID.gems, ID.proMonthly, ID.coins] {
            let result = await h.manager.purchase(product)
            #expect(result.transaction?.productID == product)
            #expect(records(await h.snapshot()) == (try await readWhole(h, directory)), "after buying \(product)")
        }
        #expect(await h.balance(ID.coins) == 3)
        #expect(await h.snapshot().history.count == 7)
        await h.close()
    }

    @Test("the app's own purchase and finish are described on either engine: the refresh after them reads only what changed")
    func ownPurchaseAndFinishAreDescribed() async throws {
        let (h, directory) = try await harness()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = await h.manager.purchase(ID.coins)
        let source: any TransactionSource = h.store
        let stamp = try #require(await source.changeStamp())
        let bought = try #require(await h.manager.purchase(ID.coins).transaction)  // committed, credited, finished
        let changes = try #require(await source.changes(since: stamp), "the chain of described writes broke")
        #expect(changes.transactions.count == 1 && changes.transactionCount == 2 && changes.unfinishedCount == 0)
        #expect(await h.snapshot().history.first?.payload?.transactionID == bought.transactionID)
        #expect(records(await h.snapshot()) == (try await readWhole(h, directory)))
        await h.close()
    }

    @Test("signing a notification as it is read is described: the next refresh still reads only what changed")
    func signingANotificationKeepsTheChain() async throws {
        let (h, directory) = try await harness()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = await h.manager.purchase(ID.coins)
        // As the app asks (called on the store itself, `await` would pick TransactionSource's async defaults).
        let source: any TransactionSource = h.store
        let stamp = try #require(await source.changeStamp())
        let notification = try #require(await h.store.recentNotifications(limit: 1).first)  // signs it, a write of the store's own
        #expect(!notification.signedPayload.isEmpty)
        let changes = try #require(await source.changes(since: stamp), "the chain of described writes broke at the signing")
        #expect(changes.transactions.isEmpty)
        _ = await h.manager.purchase(ID.coins)
        #expect(records(await h.snapshot()) == (try await readWhole(h, directory)))
        await h.close()
    }

    @Test("a non-renewing subscription's end is checked against the clock even when nothing was written")
    func nonRenewingEndsWithoutAWrite() async throws {
        let time = ManualTime()
        let (h, directory) = try await harness(time)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = await h.manager.purchase(ID.season)
        #expect(await h.entitled(ID.season))
        time.advance(400 * 86_400)
        await h.manager.refresh()
        #expect(!(await h.entitled(ID.season)))
        #expect(records(await h.snapshot()) == (try await readWhole(h, directory)))
        await h.close()
    }

    @Test("a consumable's refresh keeps the entitlements while none ends, and drops a non-renewing one once it has ended")
    func consumableRefreshKeepsEntitlementsUntilOneEnds() async throws {
        let time = ManualTime()
        let (h, directory) = try await harness(time)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = await h.manager.purchase(ID.season)
        let ends = await h.snapshot().nonRenewingEnds
        _ = await h.manager.purchase(ID.coins)
        #expect(await h.entitled(ID.season))
        #expect(await h.snapshot().nonRenewingEnds == ends && !ends.isEmpty)
        time.advance(400 * 86_400)
        _ = await h.manager.purchase(ID.coins)
        #expect(!(await h.entitled(ID.season)))
        #expect(await h.snapshot().nonRenewingEnds.isEmpty)
        #expect(records(await h.snapshot()) == (try await readWhole(h, directory)))
        await h.close()
    }

    @Test("a write the store did not describe (a tester's refund) makes the next refresh read everything")
    func undescribedWriteReadsEverything() async throws {
        let (h, directory) = try await harness()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let bought = try #require(await h.manager.purchase(ID.removeAds).transaction)
        try await h.store.refund(transactionID: bought.transactionID, prorated: false)
        #expect(await eventually { !(await h.entitled(ID.removeAds)) })
        await h.manager.refresh()
        #expect(records(await h.snapshot()) == (try await readWhole(h, directory)))
        await h.close()
    }

    @Test("another process's commit makes the next refresh read everything")
    func otherConnectionReadsEverything() async throws {
        let (h, directory) = try await harness()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = await h.manager.purchase(ID.coins)
        let other = try LocalAppStore(catalog: await h.store.catalog, stateDirectory: directory, ledger: try Harness.ledger(for: directory), time: h.time)
        try await other.buyOutsideApp(productID: ID.removeAds, familyShared: false)
        await other.shutdown()
        await h.manager.refresh()
        let snapshot = await h.snapshot()
        #expect(snapshot.history.first?.payload?.productID == ID.removeAds)
        #expect(snapshot.entitlements.contains(ID.removeAds))
        #expect(snapshot.transactionCount == 2)
        await h.close()
    }

    @Test("purchases and refreshes at once leave the snapshot a full refresh's")
    func concurrentRefreshesStayExact() async throws {
        let (h, directory) = try await harness()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        await withTaskGroup(of: Void.self) { group in
            for i in 0..<12 {
                group.addTask { if i % 3 == 0 { await h.manager.refresh() } else { _ = await h.manager.purchase(ID.coins) } }
            }
        }
        let snapshot = records(await h.snapshot())
        #expect(snapshot.history.count == 8 && snapshot.balances[ID.coins] == 8)
        #expect(snapshot == (try await readWhole(h, directory)))
        await h.close()
    }

    @Test("the ledger's stamp moves with every row written and every other connection's commit")
    func stampMovesWithEveryWrite() throws {
        let directory = try createdTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let ledger = try Ledger(path: directory + "/ledger.sqlite", tokenPrefix: "")
        let other = try Ledger(path: directory + "/ledger.sqlite", tokenPrefix: "")
        let start = try #require(try ledger.stamp())
        #expect(try ledger.stamp() == start)
        try ledger.setMeta("k", "1")
        let written = try #require(try ledger.stamp())
        #expect(written != start)
        try other.setMeta("k", "2")
        #expect(try ledger.stamp() != written)
    }

    @Test("the wallet's balances follow another connection's credits")
    func walletFollowsOtherConnections() async throws {
        let directory = try createdTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (a, b) = (try ConsumableWallet(path: directory + "/wallet.sqlite"), try ConsumableWallet(path: directory + "/wallet.sqlite"))
        try await a.credit(transactionID: 1, productID: ID.coins, quantity: 100)
        #expect(try await b.balances() == [ID.coins: 100])
        try await a.credit(transactionID: 2, productID: ID.coins, quantity: 100)
        #expect(try await b.credit(transactionID: 2, productID: ID.coins, quantity: 100) == false)
        #expect(try await b.balances() == [ID.coins: 200])
        #expect(try await a.balances() == [ID.coins: 200])
        try await b.credit(transactionID: 3, productID: ID.gems, quantity: 5)
        #expect(try await a.balances() == [ID.coins: 200, ID.gems: 5])
    }

    @Test("a token that shares a verified token's signature is verified on its own")
    func cacheNeverHandsAForgedTokenAVerifiedResult() throws {
        let identity = try StoreIdentity.ephemeral()
        let verifier = SignedDataVerifier(trustedRoots: [identity.certificate])
        let date = Date(timeIntervalSince1970: 1_780_000_000)
        var payload = TransactionPayload(
            transactionID: 2_000_000_001, originalTransactionID: 2_000_000_001, bundleID: "com.example.app", productID: ID.removeAds,
            productType: .nonConsumable, purchaseDate: date, originalPurchaseDate: date, quantity: 1, signedDate: date,
            storefront: "USA", storefrontID: "143441", currency: "USD", priceMilliunits: 990, appTransactionID: "1")
        let genuine = try identity.signer.sign(payload: Data(payload.json.compact.utf8))
        payload.productID = ID.pro
        let parts = genuine.split(separator: ".").map(String.init)
        let forged = parts[0] + "." + Base64URL.encode(Array(payload.json.compact.utf8)) + "." + parts[2]
        var cache = VerificationCache<TransactionPayload>()
        #expect(cache.result(genuine, verifier.transaction).isVerified)
        #expect(!cache.result(forged, verifier.transaction).isVerified)
        cache.startRefresh()
        #expect(!cache.result(forged, verifier.transaction).isVerified)
        #expect(cache.result(genuine, verifier.transaction).isVerified)
    }

    @Test("a token whose header is not the first token's is keyed by its own payload, and never meets another token's result")
    func cacheTellsTokensWithAnotherHeaderApart() throws {
        let identity = try StoreIdentity.ephemeral()
        let verifier = SignedDataVerifier(trustedRoots: [identity.certificate])
        let date = Date(timeIntervalSince1970: 1_780_000_000)
        func payload(_ productID: String) -> String {
            TransactionPayload(transactionID: 2_000_000_001, originalTransactionID: 2_000_000_001, bundleID: "com.example.app", productID: productID,
                               productType: .nonConsumable, purchaseDate: date, originalPurchaseDate: date, quantity: 1, signedDate: date,
                               storefront: "USA", storefrontID: "143441", currency: "USD", priceMilliunits: 990, appTransactionID: "1").json.compact
        }
        let genuine = try identity.signer.sign(payload: Data(payload(ID.removeAds).utf8))
        let signature = genuine.split(separator: ".").map(String.init)[2]
        // A shorter header, so the dot is not where the first token's was; one signature shared by all.
        let header = Base64URL.encode(Array(#"{"alg":"ES256"}"#.utf8))
        let others = [ID.pro, ID.season, ID.gems].map { header + "." + Base64URL.encode(Array(payload($0).utf8)) + "." + signature }
        var verified = 0
        var cache = VerificationCache<TransactionPayload>()
        func read(_ jws: String) -> Verification<TransactionPayload> {
            cache.result(jws) { verified += 1; return verifier.transaction($0) }
        }
        #expect(read(genuine).isVerified)
        for _ in 0..<2 {
            for (token, productID) in zip(others, [ID.pro, ID.season, ID.gems]) {
                let result = read(token)
                #expect(!result.isVerified)
                #expect(result.payload?.productID == productID)
            }
        }
        #expect(verified == 4, "each token verified once")
        #expect(read(genuine).payload?.productID == ID.removeAds)
    }

    /// The bundled catalog with a second subscription group, whose one product is a copy of Pro Monthly.
    static let extraGroup = "lumenquest.extra", extraMonthly = "com.lumenquest.extra.monthly"
    static var twoGroups: Catalog {
        var catalog = Repo.catalog
        var extra = catalog.product(ID.proMonthly)!
        extra.id = extraMonthly
        extra.subscription?.groupID = extraGroup
        catalog.products.append(extra)
        catalog.subscriptionGroups.append(SubscriptionGroup(id: extraGroup, referenceName: "Extra"))
        return catalog
    }

    @Test("a change in one group, a failed status read and the read after it leave the statuses a full read gives")
    func statusesVerifiedAgainByGroup() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let h = try await Harness.make(directory: directory, catalog: Self.twoGroups)
        _ = await h.manager.purchase(ID.proMonthly)
        _ = await h.manager.purchase(Self.extraMonthly)
        let before = await h.snapshot().subscriptionStatuses
        #expect(before.count == 2)
        try await h.store.setAutoRenew(productID: Self.extraMonthly, enabled: false)
        await h.manager.refresh()
        let after = await h.snapshot()
        #expect(records(after) == (try await readWhole(h, directory)))
        #expect(after.subscriptionStatuses[ID.group] == before[ID.group])
        #expect(after.subscriptionStatuses[Self.extraGroup]?.first?.renewalInfo.payload?.willAutoRenew == false)
        #expect(after.subscriptionStatuses[Self.extraGroup]?.first?.renewalInfo.isVerified == true)
        await h.store.update { $0.failures[.subscriptionStatus] = .storeKit(.networkError) }
        await h.manager.refresh()
        #expect(await h.snapshot().subscriptionStatuses.isEmpty)
        await h.store.update { $0.failures[.subscriptionStatus] = nil }
        await h.manager.refresh()
        #expect(await h.snapshot().subscriptionStatuses == (try await readWhole(h, directory)).subscriptionStatuses)
        await h.close()
    }

    @Test("the verification cache keeps what recent refreshes read, and forgets the rest once it outnumbers them")
    func cacheForgetsWhatRefreshesNoLongerRead() {
        var cache = CountedCache()
        let (a, b) = ((0..<10).map { "a\($0)" }, (0..<10).map { "b\($0)" })
        #expect(cache.read(a) == 10)
        cache.startRefresh()
        #expect(cache.read(a) == 0, "the refresh before read them")
        cache.startRefresh()
        #expect(cache.read(b) == 10)
        cache.startRefresh()
        #expect(cache.read(a + b) == 0, "kept while they are no more than what the last refresh read")
        cache.startRefresh()
        #expect(cache.read(["a0"]) == 0)
        cache.startRefresh()
        #expect(cache.read(["a0"]) == 0, "the refresh before read it")
        #expect(cache.read(["b0"]) == 1, "the 19 no refresh since read outnumbered the one read, and went")
    }

    /// A verification cache of tokens named `h.NAME.s`, counting what it had to verify.
    struct CountedCache {
        private var cache = VerificationCache<TransactionPayload>()

        /// How many of these tokens the cache did not hold.
        mutating func read(_ names: [String]) -> Int {
            var verified = 0
            for name in names {
                _ = cache.result("h." + name + ".s") { _ in
                    verified += 1
                    return .unverified(nil, .invalidEncoding)
                }
            }
            return verified
        }

        mutating func startRefresh() { cache.startRefresh() }
    }
}
