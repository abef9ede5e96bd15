import Foundation
import Testing
import StoreCore
@testable import StoreEngine
import StoreClient
import StorefrontTestSupport

/// The rules of issue 33: where Apple's own framework, driven by a peer's test suite, did otherwise (see `storekit.md`).
@Suite("StoreKit, exactly: forced renewals, price increases, intro eligibility, codes, refunds, history, sandbox rates (LocalAppStore)")
struct StoreKitExactlyTests {
    // MARK: Forced renewal (SKTestSession.forceRenewalOfSubscription)

    @Test("a forced renewal reaches the running app through updates at once, and the app finishes it")
    func forcedRenewalReachesTheApp() async throws {
        let h = try await Harness.make()
        _ = await h.manager.purchase(ID.proYearly)
        let updates = await h.store.updates()
        try await h.store.forceRenewal(productID: ID.proYearly)
        // Handed out as the control returns (2 s: a loaded CI machine on PostgreSQL missed 50 ms).
        let reader = Task { var it = updates.makeAsyncIterator(); return await it.next() }
        let timeout = Task { try await Task.sleep(for: .seconds(2)); reader.cancel() }
        #expect(await reader.value != nil)
        timeout.cancel()
        #expect(await eventually { await h.manager.snapshot.lastEvent == .renewed(productID: ID.proYearly) })
        #expect(await eventually { await h.store.unfinishedTransactions().isEmpty })
        await h.close()
    }

    /// The scenario library failed once in twelve runs of the release build: the buy and the forced
    /// renewal fell in the same millisecond, and the renewal's purchaseDate equalled the original's.
    @Test("a renewal is purchased after the transaction it renews, even when the store's clock has not moved")
    func aRenewalIsPurchasedAfterWhatItRenews() async throws {
        let h = try await Harness.make()  // a manual clock: nothing moves it between the two
        _ = await h.manager.purchase(ID.proYearly)
        try await h.store.forceRenewal(productID: ID.proYearly)
        try await h.store.forceRenewal(productID: ID.proYearly)
        let chain = await h.store.ledgerEntries().filter { $0.payload.productID == ID.proYearly }.sorted { $0.id < $1.id }.map(\.payload)
        #expect(chain.count == 3)
        for (earlier, later) in zip(chain, chain.dropFirst()) {
            #expect(later.purchaseDate > earlier.purchaseDate, "\(later.purchaseDate) after \(earlier.purchaseDate)")
            #expect(later.originalPurchaseDate == chain[0].purchaseDate)
        }
        await h.close()
    }

    @Test("a forced renewal turns auto-renew back on")
    func forcedRenewalTurnsAutoRenewOn() async throws {
        let h = try await Harness.make()
        _ = await h.manager.purchase(ID.proYearly)
        try await h.store.setAutoRenew(productID: ID.proYearly, enabled: false)
        try await h.store.forceRenewal(productID: ID.proYearly)
        #expect(try await h.renewal().willAutoRenew)
        await h.close()
    }

    @Test("a forced renewal leaves no price increase pending")
    func forcedRenewalClearsPendingPriceIncrease() async throws {
        let h = try await Harness.make()
        _ = await h.manager.purchase(ID.proYearly)
        try await h.store.requestPriceIncrease(productID: ID.proYearly)
        #expect(try await h.renewal().priceIncreaseStatus == .notYetResponded)
        try await h.store.forceRenewal(productID: ID.proYearly)
        #expect(try await h.renewal().priceIncreaseStatus == nil)
        #expect(await h.store.ledgerEntries().filter { $0.payload.productID == ID.proYearly }.max { $0.id < $1.id }?.payload.priceMilliunits == 99_990)
        await h.close()
    }

    // MARK: Price increases

    @Test("declining a price increase turns auto-renew off at once; access runs to the period's end, then it expires")
    func decliningPriceIncreaseTurnsAutoRenewOff() async throws {
        let h = try await Harness.make()
        _ = await h.manager.purchase(ID.proYearly)
        try await h.store.requestPriceIncrease(productID: ID.proYearly)
        try await h.store.respondToPriceIncrease(productID: ID.proYearly, agree: false)
        #expect(try await !h.renewal().willAutoRenew)
        #expect(await h.entitled(ID.proYearly))
        try await h.store.advanceTime(by: Period(1, .year))
        #expect(try await h.renewal().expirationReason == .didNotConsentToPriceIncrease)
        #expect(await !h.entitled(ID.proYearly))
        await h.close()
    }

    // MARK: Introductory offers

    @Test("intro eligibility: none while subscribed to the group; a lapsed subscriber who never received an introductory offer gets the free trial on resubscribing")
    func introEligibleAfterLapseWithoutIntro() async throws {
        let h = try await Harness.make()
        let yearly = try #require(await h.manager.purchase(ID.proYearly).transaction)
        #expect(yearly.offerType == nil)
        #expect(await !h.store.isEligibleForIntroOffer(groupID: ID.group), "introductory offers are for new subscribers")
        try await h.store.expireSubscription(productID: ID.proYearly)
        #expect(await h.store.isEligibleForIntroOffer(groupID: ID.group))
        let back = try #require(await h.manager.purchase(ID.plusMonthly).transaction)
        #expect(back.offerType == .introductory && back.offerPaymentMode == .freeTrial)
        #expect(await !h.store.isEligibleForIntroOffer(groupID: ID.group))
        await h.close()
    }

    // MARK: Offer codes

    @Test("redeeming a code for a higher level of the group upgrades at once: OFFER_REDEEMED UPGRADE, the old transaction upgraded")
    func codeForHigherLevelUpgradesNow() async throws {
        let h = try await Harness.make()
        let plus = try #require(await h.manager.purchase(ID.plusMonthly).transaction)
        try await h.store.redeem(offerCode: "PROHALF")
        let pro = try #require(await h.entry(ID.proMonthly)?.payload)
        #expect(pro.offerType == .code && pro.priceMilliunits == 4_990 && pro.originalTransactionID == plus.originalTransactionID)
        #expect(await h.store.ledgerEntries().first { $0.id == plus.transactionID }?.payload.isUpgraded == true)
        let notice = try #require(await h.store.recentNotifications(limit: 1).first)
        #expect(notice.type == "OFFER_REDEEMED" && notice.subtype == "UPGRADE")
        #expect(await eventually { await h.entitled(ID.proMonthly) })
        await h.close()
    }

    // MARK: Refunds

    @Test("a refund names its reason: revocationReason 1 (developerIssue) for an issue with the app, 0 otherwise")
    func refundNamesItsReason() async throws {
        let h = try await Harness.make()
        let pro = try #require(await h.manager.purchase(ID.pro).transaction)
        let ads = try #require(await h.manager.purchase(ID.removeAds).transaction)
        try await h.store.refund(transactionID: pro.transactionID, prorated: false, reason: .developerIssue)
        try await h.store.refund(transactionID: ads.transactionID, prorated: false)
        #expect(await h.entry(ID.pro)?.payload.json["revocationReason"] == .number("1"))
        #expect(await h.entry(ID.removeAds)?.payload.json["revocationReason"] == .number("0"))
        await h.close()
    }

    // MARK: Transaction.all

    func catalog(includingConsumables: Bool) -> Catalog {
        var catalog = Repo.catalog
        catalog.app.includesConsumableHistory = includingConsumables
        return catalog
    }

    func history(_ h: Harness, full: Bool = false) async -> [String] {
        if full { await h.store.update { $0.askToBuy = $0.askToBuy } }  // a write the store does not describe: the next refresh reads all
        await h.manager.refresh()
        return await h.manager.snapshot.history.compactMap(\.payload?.productID)
    }

    @Test("Transaction.all leaves out finished consumables unless refunded or revoked, unless the app opts in (SKIncludeConsumableInAppPurchaseHistory)")
    func transactionAllLeavesOutFinishedConsumables() async throws {
        let h = try await Harness.make(catalog: catalog(includingConsumables: false))
        let coins = try #require(await h.manager.purchase(ID.coins).transaction)
        _ = await h.manager.purchase(ID.pro)
        #expect(await history(h) == [ID.pro])
        #expect(await history(h, full: true) == [ID.pro])
        try await h.store.refund(transactionID: coins.transactionID, prorated: false)
        #expect(await eventually { await history(h) == [ID.pro, ID.coins] })
        // Unfinished (the app died before finish()), it is there; finished (as the relaunched app does), it goes.
        await h.manager.crashBeforeNextFinish()
        let unfinished = try #require(await h.manager.purchase(ID.coins).transaction)
        #expect(await history(h) == [ID.coins, ID.pro, ID.coins])
        await h.store.finish(transactionID: unfinished.transactionID)
        #expect(await history(h) == [ID.pro, ID.coins])
        await h.close()

        let opted = try await Harness.make(catalog: catalog(includingConsumables: true))
        _ = await opted.manager.purchase(ID.coins)
        #expect(await history(opted) == [ID.coins])
        #expect(await history(opted, full: true) == [ID.coins])
        await opted.close()
    }

    // MARK: Sandbox renewal rates

    @Test("sandbox renewal rates: a subscription renews 12 times, then auto-renew turns off and it expires")
    func sandboxStopsAfterTwelveRenewals() async throws {
        let h = try await Harness.make { $0.timeRate = .sandboxMonthlyEveryFiveMinutes }
        _ = await h.manager.purchase(ID.proYearly)
        try await h.store.advanceTime(by: Period(20, .year))
        #expect(await h.store.ledgerEntries().filter { $0.payload.productID == ID.proYearly }.count == 13)
        let info = try await h.renewal()
        #expect(info.expirationReason == .autoRenewDisabled && !info.willAutoRenew)
        #expect(await !h.entitled(ID.proYearly))
        await h.close()
    }
}
