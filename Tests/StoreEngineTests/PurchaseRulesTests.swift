import Foundation
import Testing
import StoreCore
import StoreEngine
import StoreClient
import StorefrontTestSupport

@Suite("Purchases (LocalAppStore)")
struct PurchaseRulesTests {
    @Test("confirm at the payment sheet succeeds with a verified transaction, delivered then finished")
    func confirmSucceeds() async throws {
        let h = try await Harness.make()
        let result = await h.manager.purchase(ID.pro)
        let t = try #require(result.transaction)
        #expect(t.productID == ID.pro && t.productType == .nonConsumable && t.environment == "Sandbox")
        #expect(t.storefront == "USA" && t.currency == "USD" && t.priceMilliunits == 9990)
        #expect(await h.entitled(ID.pro))
        #expect(await h.store.unfinishedTransactions().isEmpty)
        await h.close()
    }

    @Test("cancel at the payment sheet returns userCancelled and records nothing")
    func cancel() async throws {
        let h = try await Harness.make()
        #expect(await h.manager.purchase(ID.pro, answer: .cancel) == .userCancelled)
        #expect(await h.store.ledgerEntries().isEmpty)
        #expect(await !h.entitled(ID.pro))
        await h.close()
    }

    @Test("Ask to Buy returns pending and unlocks nothing until approved; approval arrives through updates")
    func askToBuyApproved() async throws {
        let h = try await Harness.make { $0.askToBuy = true }
        #expect(await h.manager.purchase(ID.removeAds) == .pending(.askToBuy))
        #expect(await !h.entitled(ID.removeAds))
        let pending = try #require(await h.entry(ID.removeAds))
        #expect(pending.status == .pendingApproval)
        try await h.store.approveAskToBuy(transactionID: pending.id)
        #expect(await eventually { await h.entitled(ID.removeAds) })
        await h.close()
    }

    @Test("an offer asked for on a product that is not a subscription is ignored: it sells at its price")
    func offersOffSubscriptionsAreIgnored() async throws {
        let h = try await Harness.make()
        let options = PurchaseOptions(promotionalOffer: ("promo_123", #"{"keyIdentifier":"key123","nonce":"x","timestamp":1,"signature":"c2ln"}"#),
                                      winBackOfferID: "nope")
        let bought = try #require(await h.manager.purchase(ID.coins, options: options).transaction)
        #expect(bought.offerType == nil && bought.priceMilliunits == 990)
        await h.close()
    }

    @Test("declined Ask to Buy never unlocks but is visible to the tester")
    func askToBuyDeclined() async throws {
        let h = try await Harness.make()
        #expect(await h.manager.purchase(ID.removeAds, options: PurchaseOptions(simulatesAskToBuy: true)) == .pending(.askToBuy))
        let pending = try #require(await h.entry(ID.removeAds))
        try await h.store.declineAskToBuy(transactionID: pending.id)
        await h.store.tick()
        try await Task.sleep(for: .milliseconds(50))
        await h.manager.refresh()
        #expect(await !h.entitled(ID.removeAds))
        #expect(await h.entry(ID.removeAds)?.status == .declined)
        #expect(await h.store.allTransactions().isEmpty)
        await h.close()
    }

    @Test("interrupted purchase completes through updates after resolve")
    func interrupted() async throws {
        let h = try await Harness.make { $0.interruptedPurchases = true }
        #expect(await h.manager.purchase(ID.pro) == .pending(.interrupted))
        let entry = try #require(await h.entry(ID.pro))
        #expect(entry.status == .interrupted)
        try await h.store.resolveInterruptedPurchase(transactionID: entry.id)
        #expect(await eventually { await h.entitled(ID.pro) })
        await h.close()
    }

    @Test("consumables are credited by quantity and never appear in current entitlements")
    func consumables() async throws {
        let h = try await Harness.make()
        _ = await h.manager.purchase(ID.coins, options: PurchaseOptions(quantity: 3))
        _ = await h.manager.purchase(ID.coins)
        #expect(await h.balance(ID.coins) == 4)
        #expect(await h.store.currentEntitlements().isEmpty)
        await h.close()
    }

    @Test("consumable credited once when delivered twice")
    func creditedOnce() async throws {
        let dir = temporaryDirectory()
        let h = try await Harness.make(directory: dir)
        try await h.store.buyOutsideApp(productID: ID.gems, familyShared: false)
        #expect(await eventually { await h.balance(ID.gems) == 1 })
        // The app died after delivering but before finish(): the transaction is still unfinished.
        let id = try #require(await h.entry(ID.gems)?.id)
        let wallet = try ConsumableWallet(path: dir + "/wallet.sqlite")
        #expect(try await wallet.credit(transactionID: id, productID: ID.gems, quantity: 1) == false)
        #expect(try await wallet.balances()[ID.gems] == 1)
        await h.close()
    }

    @Test("unfinished transaction is redelivered at launch")
    func redeliveredAtLaunch() async throws {
        let dir = temporaryDirectory()
        let time = ManualTime()
        do {
            // An app that never finishes: the store records the purchase, nobody listens.
            let store = try LocalAppStore(catalog: Repo.catalog, stateDirectory: dir, ledger: Harness.ledger(for: dir), time: time)
            _ = try await store.purchase(ID.gems, options: PurchaseOptions(), answer: .confirm)
            #expect(await store.unfinishedTransactions().count == 1)
            await store.shutdown()
        }
        let h = try await Harness.make(directory: dir, time: time)
        #expect(await eventually { await h.balance(ID.gems) == 1 })
        #expect(await eventually { await h.store.unfinishedTransactions().isEmpty })
        await h.close()
    }

    @Test("a purchase survives a restart")
    func survivesRestart() async throws {
        let dir = temporaryDirectory()
        let first = try await Harness.make(directory: dir)
        _ = await first.manager.purchase(ID.pro)
        await first.close()
        let second = try await Harness.make(directory: dir)
        #expect(await second.entitled(ID.pro))
        await second.close()
    }

    @Test("two processes see each other's purchases through updates")
    func twoProcesses() async throws {
        let dir = temporaryDirectory()
        let a = try await Harness.make(directory: dir)
        let b = try await Harness.make(directory: dir)
        _ = await a.manager.purchase(ID.removeAds)
        #expect(await eventually { await b.entitled(ID.removeAds) })
        #expect(await b.manager.snapshot.lastEvent == .transactionArrived(productID: ID.removeAds, offer: nil))
        await a.close()
        await b.close()
    }

    @Test("the state directory and signing key are owner-only",
          .disabled(if: PostgresTestServer.isDefaultEngine, "signing.pem belongs to a state directory's SQLite ledger"))
    func permissions() async throws {
        let dir = temporaryDirectory()
        let h = try await Harness.make(directory: dir)
        let dirMode = try FileManager.default.attributesOfItem(atPath: dir)[.posixPermissions] as? Int
        let keyMode = try FileManager.default.attributesOfItem(atPath: dir + "/signing.pem")[.posixPermissions] as? Int
        #expect(dirMode == 0o700)
        #expect(keyMode == 0o600)
        await h.close()
    }

    @Test("tampered JWS is unverified with invalidSignature and never delivered")
    func invalidSignature() async throws {
        let h = try await Harness.make { $0.invalidSignatures = true }
        let result = await h.manager.purchase(ID.gems)
        guard case .success(.unverified(_, let error)) = result else { Issue.record("expected unverified, got \(result)"); return }
        #expect(error == .invalidSignature)
        #expect(await h.balance(ID.gems) == 0)
        await h.close()
    }

    @Test("a simulated verification error reaches the app as exactly that VerificationError, with its transaction, which the app finishes",
          arguments: VerificationError.allCases)
    func injectedVerification(error: VerificationError) async throws {
        let h = try await Harness.make { $0.failures[.verification] = .verification(error) }
        let result = await h.manager.purchase(ID.pro)
        guard case .success(.unverified(let transaction, let got)) = result else { Issue.record("expected unverified, got \(result)"); return }
        #expect(got == error)
        #expect(transaction?.productID == ID.pro)
        #expect(await !h.entitled(ID.pro))
        #expect(await h.store.unfinishedTransactions().isEmpty)
        await h.close()
    }

    @Test("an injected purchase failure throws the chosen StoreKit error")
    func injectedPurchaseFailure() async throws {
        let h = try await Harness.make { $0.failures[.purchase] = .storeKit(.networkError) }
        #expect(await h.manager.purchase(ID.pro) == .failed(.storeKit(.networkError)))
        await h.close()
    }

    @Test("injected failures reach each API", arguments: [StoreAPI.loadProducts, .appStoreSync, .subscriptionStatus, .offerCodeRedeem, .refundRequest])
    func injectedAPIFailure(api: StoreAPI) async throws {
        let h = try await Harness.make()
        _ = await h.manager.purchase(ID.pro)
        let id = try #require(await h.entry(ID.pro)?.id)
        await h.store.update { $0.failures[api] = .storeKit(.systemError) }
        switch api {
        case .loadProducts: await #expect(throws: StoreFailure.storeKit(.systemError)) { try await h.store.products(for: nil) }
        case .appStoreSync: await #expect(throws: StoreFailure.storeKit(.systemError)) { try await h.store.sync() }
        case .subscriptionStatus: await #expect(throws: StoreFailure.storeKit(.systemError)) { try await h.store.subscriptionStatuses(groupID: ID.group) }
        case .offerCodeRedeem: #expect(await h.manager.redeem(offerCode: "COINS100") == .storeKit(.systemError))
        default: await #expect(throws: StoreFailure.storeKit(.systemError)) { try await h.store.requestRefund(transactionID: id, reason: "x") }
        }
        await h.close()
    }

    @Test("buying an unsold product or a bad quantity fails with StoreKit's error")
    func purchaseErrors() async throws {
        let h = try await Harness.make()
        #expect(await h.manager.purchase(ID.coins, options: PurchaseOptions(quantity: 0)) == .failed(.purchase(.invalidQuantity)))
        #expect(await h.manager.purchase(ID.coins, options: PurchaseOptions(quantity: 11)) == .failed(.purchase(.invalidQuantity)))
        #expect(await h.manager.purchase("com.example.nothing") == .failed(.purchase(.productUnavailable)))
        try await h.store.setStorefront("CHN", locale: nil)
        #expect(await h.manager.purchase(ID.removeAds) == .failed(.storeKit(.notAvailableInStorefront)))
        await h.close()
    }

    @Test("restore reports restored purchases, or nothing to restore")
    func restore() async throws {
        let h = try await Harness.make()
        await h.manager.restore()
        #expect(await h.manager.snapshot.lastEvent == .restored(count: 0))
        _ = await h.manager.purchase(ID.pro)
        _ = await h.manager.purchase(ID.coins)
        await h.manager.restore()
        #expect(await h.manager.snapshot.lastEvent == .restored(count: 1))
        await h.close()
    }

    @Test("a refund revokes, removes the entitlement and tells the app through updates")
    func refund() async throws {
        let h = try await Harness.make()
        let t = try #require(await h.manager.purchase(ID.pro).transaction)
        try await h.store.refund(transactionID: t.transactionID, prorated: false)
        #expect(await eventually { await !h.entitled(ID.pro) })
        #expect(await eventually { await h.manager.snapshot.lastEvent == .revoked(productID: ID.pro, refund: "$9.99") })
        let revoked = try #require(await h.entry(ID.pro))
        #expect(revoked.payload.revocationDate != nil && revoked.payload.revocationType == .refundFull)
        await h.close()
    }

    @Test("prices and currency follow the storefront switch")
    func storefrontSwitch() async throws {
        let h = try await Harness.make()
        try await h.store.setStorefront("JPN", locale: "ja_JP")
        await h.manager.loadProducts()
        #expect(await h.manager.snapshot.products.first { $0.id == ID.gems }?.displayPrice == "¥800")
        let t = try #require(await h.manager.purchase(ID.gems).transaction)
        #expect(t.currency == "JPY" && t.storefront == "JPN" && t.priceMilliunits == 800_000)
        await h.close()
    }
}

@Suite("Test settings (LocalAppStore)")
struct TestSettingsTests {
    @Test("the tester's settings and storefront survive a restart until a reset")
    func settingsPersist() async throws {
        let dir = temporaryDirectory()
        let first = try await Harness.make(directory: dir)
        await first.store.update { $0.askToBuy = true; $0.failures[.appStoreSync] = .storeKit(.networkError) }
        try await first.store.setStorefront("JPN", locale: "ja_JP")
        await first.close()
        let second = try await Harness.make(directory: dir)
        #expect(await second.store.settings().askToBuy)
        #expect(await second.store.settings().failures[.appStoreSync] == .storeKit(.networkError))
        #expect(await second.store.storefront().code == "JPN")
        #expect(await second.store.locale() == "ja_JP")
        try await second.store.reset()
        #expect(await !second.store.settings().askToBuy)
        await second.close()
    }
}
