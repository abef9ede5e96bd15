import Foundation
import Testing
import StoreCore
import StoreEngine
import StoreClient
import StorefrontTestSupport
import StoreVerification

/// The rules of issue 13: where Storefront behaved otherwise than StoreKit (see `storekit.md`).
@Suite("StoreKit parity: already purchased, the group's original transaction, codes for subscribers, signed data (LocalAppStore)")
struct StoreKitParityTests {
    // MARK: Purchases

    @Test("buying a non-consumable the customer owns returns success with the existing transaction, charges nothing, writes no row")
    func buyingOwnedNonConsumableReturnsIt() async throws {
        let h = try await Harness.make()
        let first = try #require(await h.manager.purchase(ID.pro).transaction)
        let again = try #require(await h.manager.purchase(ID.pro).transaction)
        #expect(again.transactionID == first.transactionID)
        #expect(await h.store.ledgerEntries().count == 1)
        #expect(await h.manager.purchase(ID.pro, answer: .cancel) == .userCancelled)
        #expect(await h.entitled(ID.pro))
        await h.close()
    }

    @Test("a non-consumable the customer bought and a family member shares is entitled by both transactions")
    func ownedAndFamilySharedBothEntitle() async throws {
        let h = try await Harness.make()
        _ = await h.manager.purchase(ID.pro)
        try await h.store.buyOutsideApp(productID: ID.pro, familyShared: true)
        let verifier = SignedDataVerifier(trustedRoots: [h.store.certificate])
        let owners = await h.store.currentEntitlements().compactMap { verifier.transaction($0).payload }.filter { $0.productID == ID.pro }
        #expect(owners.count == 2 && Set(owners.map(\.ownership)) == [.purchased, .familyShared])
        await h.close()
    }

    @Test("buying the subscription the customer is subscribed to returns its current transaction and writes no row")
    func buyingCurrentSubscriptionReturnsIt() async throws {
        let h = try await Harness.make()
        let first = try #require(await h.manager.purchase(ID.proYearly).transaction)
        let again = try #require(await h.manager.purchase(ID.proYearly, options: PurchaseOptions(simulatesAskToBuy: true)).transaction)
        #expect(again.transactionID == first.transactionID)
        #expect(await h.store.ledgerEntries().count == 1)
        await h.close()
    }

    // MARK: Subscriptions

    @Test("a customer who resubscribes in the same group continues its original transaction; one status per group")
    func resubscribingContinuesTheGroupsOriginalTransaction() async throws {
        let h = try await Harness.make()
        let first = try #require(await h.manager.purchase(ID.plusMonthly).transaction)
        try await h.store.expireSubscription(productID: ID.plusMonthly)
        let back = try #require(await h.manager.purchase(ID.proYearly).transaction)
        #expect(back.transactionID != first.transactionID)
        #expect(back.originalTransactionID == first.transactionID)
        #expect(back.originalPurchaseDate == first.purchaseDate)
        await h.manager.refresh()
        #expect(await h.manager.snapshot.subscriptionStatuses[ID.group]?.count == 1)
        #expect(try await h.renewal().originalTransactionID == first.transactionID)
        await h.close()
    }

    @Test("tester controls act on the group's current subscription, named by any product of the group")
    func controlsActOnTheGroupsCurrentSubscription() async throws {
        let h = try await Harness.make()
        _ = await h.manager.purchase(ID.plusMonthly)
        try await h.store.expireSubscription(productID: ID.plusMonthly)
        _ = await h.manager.purchase(ID.plusMonthly)
        try await h.store.requestPriceIncrease(productID: ID.plusMonthly)
        #expect(try await h.renewal().priceIncreaseStatus == .notYetResponded)
        _ = await h.manager.purchase(ID.proMonthly)  // an upgrade: pro is current now
        try await h.store.setAutoRenew(productID: ID.plusMonthly, enabled: false)
        let info = try await h.renewal()
        #expect(info.productID == ID.proMonthly && !info.willAutoRenew)
        await h.close()
    }

    @Test("a tester control that cannot apply fails with a message saying why")
    func controlThatCannotApplyFails() async throws {
        let h = try await Harness.make()
        await #expect(throws: TestControlError.self) { try await h.store.expireSubscription(productID: ID.plusMonthly) }
        _ = await h.manager.purchase(ID.plusMonthly)
        await #expect(throws: TestControlError.self) { try await h.store.setAutoRenew(productID: ID.plusMonthly, enabled: true) }
        try await h.store.expireSubscription(productID: ID.plusMonthly)
        let store = h.store
        let errors = [await #expect(throws: TestControlError.self) { try await store.expireSubscription(productID: ID.plusMonthly) },
                      await #expect(throws: TestControlError.self) { try await store.setAutoRenew(productID: ID.plusMonthly, enabled: true) },
                      await #expect(throws: TestControlError.self) { try await store.requestPriceIncrease(productID: ID.plusMonthly) },
                      await #expect(throws: TestControlError.self) { try await store.forceRenewal(productID: ID.plusMonthly) }]
        #expect(errors.allSatisfy { $0?.description == "the subscription to \(ID.plusMonthly) is expired: buy it again first" })
        await h.close()
    }

    @Test("an active subscriber may redeem a code for existing subscribers: the offer applies from the next renewal, renewal info shows it")
    func subscriberRedeemsCodeForNextRenewal() async throws {
        let h = try await Harness.make()
        _ = await h.manager.purchase(ID.proMonthly)  // intro: $4.99/month × 3
        try await h.store.advanceTime(by: Period(70, .day))  // into the third and last discounted month
        #expect(await h.store.ledgerEntries().count == 3)
        #expect(await h.manager.redeem(offerCode: "PROHALF") == nil)
        #expect(await h.store.ledgerEntries().count == 3)  // the current period is not cut short
        let info = try await h.renewal()
        #expect(info.offerType == .code && info.offerID == "Pro at half price" && info.offerPaymentMode == .payAsYouGo)
        #expect(info.offerPeriod == Period(3, .month) && info.renewalPriceMilliunits == 4_990)
        try await h.store.advanceTime(by: Period(1, .month))
        let renewed = try #require(await h.store.ledgerEntries().first?.payload)
        #expect(renewed.offerType == .code && renewed.priceMilliunits == 4_990 && renewed.offerPeriod == Period(3, .month))
        await h.close()
    }

    @Test("a non-renewing subscription stays in currentEntitlements: StoreKit never expires it")
    func nonRenewingStaysInCurrentEntitlements() async throws {
        let h = try await Harness.make()
        let t = try #require(await h.manager.purchase(ID.season).transaction)
        try await h.store.advanceTime(by: Period(10, .year))
        let entitlements = await h.store.currentEntitlements().compactMap { SignedDataVerifier(trustedRoots: [h.store.certificate]).transaction($0).payload }
        #expect(entitlements.map(\.transactionID) == [t.transactionID])
        await h.close()
    }

    // MARK: Signed data

    @Test("offerPeriod is the whole offer's duration, on the first transaction and its discounted renewals")
    func offerPeriodIsTheWholeOffer() async throws {
        let h = try await Harness.make()
        let t = try #require(await h.manager.purchase(ID.proMonthly).transaction)  // $4.99/month for 3 months
        #expect(t.offerPeriod == Period(3, .month))
        try await h.store.advanceTime(by: Period(1, .month))
        #expect(await h.store.ledgerEntries().first?.payload.offerPeriod == Period(3, .month))
        await h.close()
    }

    @Test("renewal info carries the next period's offer and renewalPrice, and none once the offer is over")
    func renewalInfoCarriesTheNextPeriodsOffer() async throws {
        let h = try await Harness.make()
        _ = await h.manager.purchase(ID.proMonthly)
        var info = try await h.renewal()
        #expect(info.offerType == .introductory && info.offerPaymentMode == .payAsYouGo && info.offerPeriod == Period(3, .month))
        #expect(info.renewalPriceMilliunits == 4_990)
        try await h.store.advanceTime(by: Period(2, .month))  // the third and last discounted period
        info = try await h.renewal()
        #expect(info.offerType == nil && info.offerPeriod == nil && info.renewalPriceMilliunits == 14_990)
        await h.close()
    }

    @Test("a full refund carries revocationPercentage 100000")
    func fullRefundCarriesFullPercentage() async throws {
        let h = try await Harness.make()
        let t = try #require(await h.manager.purchase(ID.pro).transaction)
        try await h.store.refund(transactionID: t.transactionID, prorated: false)
        #expect(await h.entry(ID.pro)?.payload.revocationPercentage == 100_000)
        await h.close()
    }

    @Test("a transaction signed while invalid signatures were on stays unverified after the switch is off")
    func signatureNeverChangesAfterTheFact() async throws {
        let h = try await Harness.make { $0.invalidSignatures = true }
        guard case .success(.unverified(_, .invalidSignature)) = await h.manager.purchase(ID.gems) else {
            Issue.record("expected an unverified purchase"); return
        }
        await h.store.update { $0.invalidSignatures = false }
        await h.manager.refresh()
        #expect(await h.manager.snapshot.history.first?.error == .invalidSignature)
        let fine = try #require(await h.manager.purchase(ID.pro).transaction)
        await h.store.update { $0.invalidSignatures = true }
        await h.manager.refresh()
        #expect(await h.manager.snapshot.history.first { $0.payload?.transactionID == fine.transactionID }?.isVerified == true)
        await h.close()
    }
}
