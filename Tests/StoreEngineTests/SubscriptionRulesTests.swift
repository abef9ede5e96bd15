import Foundation
import Testing
import StoreCore
@testable import StoreEngine
import StoreClient
import StorefrontTestSupport

@Suite("Subscriptions, offers and codes (LocalAppStore)")
struct SubscriptionRulesTests {
    func status(_ h: Harness) async -> SubscriptionStatus? {
        await h.manager.refresh()
        return await h.manager.snapshot.effectiveStatus(group: ID.group)
    }

    @Test("renewal transactions share originalID, carry reason renewal and a new expirationDate")
    func renewals() async throws {
        let h = try await Harness.make()
        let first = try #require(await h.manager.purchase(ID.proYearly).transaction)
        try await h.store.advanceTime(by: Period(1, .year))
        try await h.store.advanceTime(by: Period(1, .year))
        let all = await h.store.ledgerEntries().map(\.payload).filter { $0.productID == ID.proYearly }
        #expect(all.count == 3)
        #expect(Set(all.map(\.originalTransactionID)) == [first.transactionID])
        #expect(all.filter { $0.reason == .renewal }.count == 2)
        #expect(all.map(\.expirationDate).compactMap { $0 }.sorted() == all.compactMap(\.expirationDate).sorted())
        #expect(await eventually { await h.entitled(ID.proYearly) })
        await h.close()
    }

    @Test("a simulated year of monthly renewals is processed in order")
    func yearOfRenewals() async throws {
        let h = try await Harness.make()
        _ = await h.manager.purchase(ID.plusMonthly) // one week free trial first
        try await h.store.advanceTime(by: Period(1, .year))
        let renewals = await h.store.ledgerEntries().filter { $0.payload.reason == .renewal }
        #expect(renewals.count == 12)
        let dates = renewals.map(\.payload.purchaseDate)
        #expect(dates == dates.sorted(by: >))
        await h.close()
    }

    @Test("monthly renewals fall on the anniversary day, or the month's last day when it has none")
    func renewalsKeepTheAnniversaryDay() async throws {
        let january31 = try Date("2027-01-31T10:00:00Z", strategy: .iso8601)
        let h = try await Harness.make(time: ManualTime(start: january31))
        _ = await h.manager.purchase(ID.proMonthly)  // pay as you go, monthly: the run starts today
        try await h.store.advanceTime(by: Period(120, .day))  // to May 31
        let ends = await h.store.ledgerEntries().compactMap(\.payload.expirationDate).sorted()
        #expect(ends.map { $0.formatted(.iso8601.year().month().day()) } == ["2027-02-28", "2027-03-31", "2027-04-30", "2027-05-31", "2027-06-30"])
        await h.close()
    }

    @Test("after a one-week free trial, monthly renewals fall on the trial's last day")
    func renewalsAfterATrialKeepTheTrialEndDay() async throws {
        let h = try await Harness.make(time: ManualTime(start: try Date("2027-01-27T10:00:00Z", strategy: .iso8601)))
        _ = await h.manager.purchase(ID.plusMonthly)  // one week free: Jan 27 → Feb 3
        try await h.store.advanceTime(by: Period(3, .month))
        let ends = await h.store.ledgerEntries().compactMap(\.payload.expirationDate).sorted()
        #expect(ends.map { $0.formatted(.iso8601.year().month().day()) } == ["2027-02-03", "2027-03-03", "2027-04-03", "2027-05-03"])
        await h.close()
    }

    @Test("auto-renew off expires at period end with expirationReason autoRenewDisabled")
    func autoRenewOff() async throws {
        let h = try await Harness.make()
        _ = await h.manager.purchase(ID.proMonthly)
        try await h.store.setAutoRenew(productID: ID.proMonthly, enabled: false)
        try await h.store.advanceTime(by: Period(4, .month))
        let s = try #require(await status(h))
        #expect(s.state == .expired)
        #expect(s.renewalInfo.payload?.expirationReason == .autoRenewDisabled)
        #expect(await !h.entitled(ID.proMonthly))
        await h.close()
    }

    @Test("billing retry without grace period loses access, then expires with billingError")
    func billingRetry() async throws {
        let h = try await Harness.make { $0.billingRetryOnRenewal = true }
        _ = await h.manager.purchase(ID.proYearly)
        try await h.store.advanceTime(by: Period(1, .year))
        #expect(await status(h)?.state == .inBillingRetryPeriod)
        #expect(await status(h)?.renewalInfo.payload?.isInBillingRetry == true)
        #expect(await !h.entitled(ID.proYearly))
        try await h.store.advanceTime(by: Period(3, .month))
        let s = try #require(await status(h))
        #expect(s.state == .expired && s.renewalInfo.payload?.expirationReason == .billingError)
        await h.close()
    }

    @Test("billing retry with grace period keeps access until gracePeriodExpirationDate; fixing payment recovers")
    func gracePeriod() async throws {
        let h = try await Harness.make { $0.billingRetryOnRenewal = true; $0.gracePeriod = true }
        _ = await h.manager.purchase(ID.proYearly)
        try await h.store.advanceTime(by: Period(1, .year))
        let s = try #require(await status(h))
        #expect(s.state == .inGracePeriod)
        #expect(s.renewalInfo.payload?.gracePeriodExpirationDate != nil)
        #expect(await h.entitled(ID.proYearly))
        await h.store.update { $0.billingRetryOnRenewal = false }
        try await h.store.resolveBillingIssue(productID: ID.proYearly)
        #expect(await status(h)?.state == .subscribed)
        await h.close()
    }

    @Test("a billing issue resolved within the grace period renews from the old expiry: no paid days lost")
    func graceRecoveryKeepsTheRenewalDate() async throws {
        let h = try await Harness.make { $0.billingRetryOnRenewal = true; $0.gracePeriod = true }
        _ = await h.manager.purchase(ID.proMonthly)
        let expiry = try #require(await h.store.ledgerEntries(limit: 1).first?.payload.expirationDate)
        try await h.store.advanceTime(by: Period(1, .month))
        try await h.store.advanceTime(by: Period(3, .day))
        #expect(await status(h)?.state == .inGracePeriod)
        await h.store.update { $0.billingRetryOnRenewal = false }
        try await h.store.resolveBillingIssue(productID: ID.proMonthly)
        let renewal = try #require(await h.store.ledgerEntries(limit: 1).first?.payload)
        #expect(renewal.reason == .renewal && renewal.expirationDate == Period(1, .month).advance(expiry))
        #expect(renewal.purchaseDate > expiry, "charged when the issue was resolved")
        await h.close()
    }

    @Test("declining a price increase expires at period end with didNotConsentToPriceIncrease")
    func priceIncreaseDeclined() async throws {
        let h = try await Harness.make()
        _ = await h.manager.purchase(ID.proYearly)
        try await h.store.requestPriceIncrease(productID: ID.proYearly)
        #expect(await status(h)?.renewalInfo.payload?.priceIncreaseStatus == .notYetResponded)
        try await h.store.respondToPriceIncrease(productID: ID.proYearly, agree: false)
        try await h.store.advanceTime(by: Period(1, .year))
        let s = try #require(await status(h))
        #expect(s.state == .expired && s.renewalInfo.payload?.expirationReason == .didNotConsentToPriceIncrease)
        await h.close()
    }

    @Test("a price increase asks consent for a new price, a fifth more in the currency's smallest unit, and renews at it once agreed")
    func priceIncreaseNewPrice() async throws {
        let h = try await Harness.make()
        _ = await h.manager.purchase(ID.proYearly)  // $99.99 a year
        try await h.store.requestPriceIncrease(productID: ID.proYearly)
        #expect(await status(h)?.renewalInfo.payload?.renewalPriceMilliunits == 119_990, "the new price, pending consent")
        try await h.store.respondToPriceIncrease(productID: ID.proYearly, agree: true)
        try await h.store.advanceTime(by: Period(1, .year))
        #expect(await status(h)?.transaction.payload?.priceMilliunits == 119_990)
        try await h.store.advanceTime(by: Period(1, .year))
        #expect(await status(h)?.transaction.payload?.priceMilliunits == 119_990, "the new price stays the price")
        #expect(await status(h)?.renewalInfo.payload?.renewalPriceMilliunits == 119_990)
        await h.close()
    }

    @Test("a price increase is rounded in the currency's smallest unit: cents, whole yen")
    func priceIncreaseRounding() {
        #expect(SubscriptionRecord.increased(99_990, currency: "USD") == 119_990)
        #expect(SubscriptionRecord.increased(16_000_000, currency: "JPY") == 19_200_000)
        #expect(SubscriptionRecord.increased(4_990, currency: "EUR") == 5_990)
        #expect(SubscriptionRecord.increased(1_000, currency: "JPY") == 2_000, "1.2 yen is 2 yen: never less than asked")
    }

    @Test("agreeing to a price increase renews")
    func priceIncreaseAgreed() async throws {
        let h = try await Harness.make()
        _ = await h.manager.purchase(ID.proYearly)
        try await h.store.requestPriceIncrease(productID: ID.proYearly)
        try await h.store.respondToPriceIncrease(productID: ID.proYearly, agree: true)
        #expect(await status(h)?.renewalInfo.payload?.priceIncreaseStatus == .agreed)
        try await h.store.advanceTime(by: Period(1, .year))
        #expect(await status(h)?.state == .subscribed)
        await h.close()
    }

    @Test("an upgrade takes effect at once and marks the old transaction isUpgraded")
    func upgrade() async throws {
        let h = try await Harness.make()
        let plus = try #require(await h.manager.purchase(ID.plusYearly).transaction)
        let pro = try #require(await h.manager.purchase(ID.proYearly).transaction)
        #expect(pro.originalTransactionID == plus.originalTransactionID)
        #expect(await h.store.ledgerEntries().first { $0.id == plus.transactionID }?.payload.isUpgraded == true)
        #expect(await h.entitled(ID.proYearly))
        #expect(await !h.entitled(ID.plusYearly))
        await h.close()
    }

    @Test("an upgrade records a prorated refund of the old plan's unused time")
    func upgradeRefundsTheUnusedTime() async throws {
        let h = try await Harness.make()
        let plus = try #require(await h.manager.purchase(ID.plusYearly).transaction)
        let paid = Decimal(plus.priceMilliunits) / 1000
        let period = try #require(plus.expirationDate).timeIntervalSince(plus.purchaseDate)
        try await h.store.advanceTime(by: Period(30, .day))
        _ = await h.manager.purchase(ID.proYearly)
        let old = try #require(await h.store.ledgerEntries().first { $0.id == plus.transactionID })
        let expected = paid * Decimal((period - 30 * 86_400) / period)
        let refund = try #require(old.upgradeRefund)
        #expect(abs(NSDecimalNumber(decimal: refund - expected).doubleValue) < 0.01, "refund \(refund), expected \(expected)")
        #expect(refund > 0 && refund < paid)
        await h.close()
    }

    @Test("Ask to Buy applies to plan changes: an upgrade is pending until approved, then takes effect on the request's ID, with a purchase event ID of its own")
    func askToBuyUpgrade() async throws {
        let h = try await Harness.make()
        let plus = try #require(await h.manager.purchase(ID.plusYearly).transaction)
        #expect(await h.manager.purchase(ID.proYearly, options: PurchaseOptions(simulatesAskToBuy: true)) == .pending(.askToBuy))
        #expect(await h.entitled(ID.plusYearly))
        #expect(await !h.entitled(ID.proYearly))
        let request = try #require(await h.entry(ID.proYearly))
        #expect(request.status == .pendingApproval)

        try await h.store.approveAskToBuy(transactionID: request.id)
        #expect(await eventually { await h.entitled(ID.proYearly) })
        #expect(await !h.entitled(ID.plusYearly))
        let pro = try #require(await h.entry(ID.proYearly))
        #expect(pro.id == request.id && pro.status == .completed && pro.payload.originalTransactionID == plus.originalTransactionID)
        // webOrderLineItemID identifies each subscription purchase event (the placeholder's was every such upgrade's).
        #expect(pro.payload.webOrderLineItemID == String(pro.id + 1_000_000_000))
        #expect(await h.store.ledgerEntries().first { $0.id == plus.transactionID }?.payload.isUpgraded == true)
        await h.close()
    }

    @Test("Ask to Buy applies to plan changes: an approved downgrade changes autoRenewPreference and leaves no transaction")
    func askToBuyDowngrade() async throws {
        let h = try await Harness.make { $0.askToBuy = true }
        try await h.store.buyOutsideApp(productID: ID.proYearly, familyShared: false)
        #expect(await eventually { await h.entitled(ID.proYearly) })
        #expect(await h.manager.purchase(ID.plusYearly) == .pending(.askToBuy))
        #expect(await status(h)?.renewalInfo.payload?.autoRenewProductID == ID.proYearly)
        let request = try #require(await h.entry(ID.plusYearly))
        try await h.store.approveAskToBuy(transactionID: request.id)
        #expect(await status(h)?.renewalInfo.payload?.autoRenewProductID == ID.plusYearly)
        #expect(await h.entry(ID.plusYearly) == nil)
        await h.close()
    }

    @Test("a downgrade takes effect at the next renewal; autoRenewPreference shows it now")
    func downgrade() async throws {
        let h = try await Harness.make()
        _ = await h.manager.purchase(ID.proYearly)
        _ = await h.manager.purchase(ID.plusYearly)
        let s = try #require(await status(h))
        #expect(s.transaction.payload?.productID == ID.proYearly)
        #expect(s.renewalInfo.payload?.autoRenewProductID == ID.plusYearly)
        try await h.store.advanceTime(by: Period(1, .year))
        #expect(await status(h)?.transaction.payload?.productID == ID.plusYearly)
        await h.close()
    }

    @Test("a crossgrade to another period takes effect at the next renewal")
    func crossgrade() async throws {
        let h = try await Harness.make()
        _ = await h.manager.purchase(ID.proMonthly)
        _ = await h.manager.purchase(ID.proYearly)
        #expect(await status(h)?.renewalInfo.payload?.autoRenewProductID == ID.proYearly)
        #expect(await status(h)?.transaction.payload?.productID == ID.proMonthly)
        await h.close()
    }

    @Test("intro offer eligibility is once per group per customer")
    func introEligibility() async throws {
        let h = try await Harness.make()
        #expect(await h.store.isEligibleForIntroOffer(groupID: ID.group))
        let t = try #require(await h.manager.purchase(ID.plusMonthly).transaction)
        #expect(t.offerType == .introductory && t.offerPaymentMode == .freeTrial && t.priceMilliunits == 0)
        #expect(await !h.store.isEligibleForIntroOffer(groupID: ID.group))
        await h.close()
    }

    @Test("a promotional offer needs a valid, unused signature")
    func promotionalOffer() async throws {
        let h = try await Harness.make()
        let offer = "pro.comeback50"
        #expect(await h.manager.purchase(ID.proMonthly, options: PurchaseOptions(promotionalOffer: (offer, nil))) == .failed(.purchase(.missingOfferParameters)))
        #expect(await h.manager.purchase(ID.proMonthly, options: PurchaseOptions(promotionalOffer: ("nope", "x"))) == .failed(.purchase(.invalidOfferIdentifier)))
        #expect(await h.manager.purchase(ID.proMonthly, options: PurchaseOptions(promotionalOffer: (offer, "a.b.c"))) == .failed(.purchase(.invalidOfferSignature)))
        let signature = try await h.store.signPromotionalOffer(productID: ID.proMonthly, offerID: offer)
        // Not a subscriber of the group yet: not eligible.
        #expect(await h.manager.purchase(ID.proMonthly, options: PurchaseOptions(promotionalOffer: (offer, signature))) == .failed(.purchase(.ineligibleForOffer)))
        _ = await h.manager.purchase(ID.plusMonthly)
        try await h.store.expireSubscription(productID: ID.plusMonthly)
        let t = try #require(await h.manager.purchase(ID.proMonthly, options: PurchaseOptions(promotionalOffer: (offer, signature))).transaction)
        #expect(t.offerType == .promotional && t.offerID == offer)
        try await h.store.expireSubscription(productID: ID.proMonthly)
        #expect(await h.manager.purchase(ID.proMonthly, options: PurchaseOptions(promotionalOffer: (offer, signature))) == .failed(.purchase(.invalidOfferSignature)))
        await h.close()
    }

    @Test("win-back offers are listed for lapsed subscribers and purchasable")
    func winBack() async throws {
        let h = try await Harness.make()
        _ = await h.manager.purchase(ID.plusMonthly)
        try await h.store.expireSubscription(productID: ID.plusMonthly)
        #expect(await status(h)?.renewalInfo.payload?.eligibleWinBackOfferIDs == ["plus.winback"])
        let t = try #require(await h.manager.purchase(ID.plusMonthly, options: PurchaseOptions(winBackOfferID: "plus.winback")).transaction)
        #expect(t.offerType == .winBack)
        await h.close()
    }

    @Test("offer codes redeem for every product type, delivered through updates with offer type code")
    func offerCodes() async throws {
        let h = try await Harness.make()
        for code in ["coins100", "  ADFREE ", "Season2026", "PLUSMONTH"] {
            #expect(await h.manager.redeem(offerCode: code) == nil)
        }
        #expect(await eventually { await h.balance(ID.coins) == 1 })
        #expect(await eventually { await h.manager.snapshot.entitlements.isSuperset(of: [ID.removeAds, ID.season, ID.plusMonthly]) })
        let codes = await h.store.ledgerEntries().map(\.payload)
        #expect(codes.allSatisfy { $0.offerType == .code })
        #expect(codes.first { $0.productID == ID.removeAds }?.offerPaymentMode == .oneTime)
        #expect(codes.first { $0.productID == ID.plusMonthly }?.offerPaymentMode == .freeTrial)
        await h.close()
    }

    @Test("an unknown, used-up, expired or ineligible code fails with a specific error and changes nothing")
    func offerCodeErrors() async throws {
        let h = try await Harness.make()
        #expect(await h.manager.redeem(offerCode: "NOSUCHCODE") == .offerCode(.unknownCode))
        #expect(await h.manager.redeem(offerCode: "LAUNCH2025") == .offerCode(.expired))
        #expect(await h.manager.redeem(offerCode: "ONESHOT") == nil)
        #expect(await h.manager.redeem(offerCode: "ONESHOT") == .offerCode(.usedUp))
        #expect(await h.manager.redeem(offerCode: "PROHALF") == .offerCode(.notEligible))
        #expect(await h.store.ledgerEntries().count == 1)
        await h.close()
    }

    @Test("non-renewing subscriptions have no expirationDate; the app computes the end from the catalog")
    func nonRenewing() async throws {
        let h = try await Harness.make()
        let t = try #require(await h.manager.purchase(ID.season).transaction)
        #expect(t.expirationDate == nil)
        #expect(await h.manager.nonRenewingEnd(t) == Period(3, .month).advance(t.purchaseDate))
        #expect(await h.entitled(ID.season))
        try await h.store.advanceTime(by: Period(4, .month))
        await h.manager.refresh()
        #expect(await !h.entitled(ID.season))
        await h.close()
    }

    @Test("a family member's purchase is familyShared and unlocks")
    func familySharing() async throws {
        let h = try await Harness.make()
        try await h.store.buyOutsideApp(productID: ID.pro, familyShared: true)
        #expect(await eventually { await h.entitled(ID.pro) })
        #expect(await h.entry(ID.pro)?.payload.ownership == .familyShared)
        try await h.store.revokeFamilySharing(transactionID: try #require(await h.entry(ID.pro)?.id))
        #expect(await eventually { await !h.entitled(ID.pro) })
        await h.close()
    }

    @Test("after a restart the store catches up on renewals for all the time that passed")
    func catchUpAfterRestart() async throws {
        let dir = temporaryDirectory()
        let time = ManualTime()
        let first = try await Harness.make(directory: dir, time: time) { $0.timeRate = .monthlyRenewalEveryThirtySeconds }
        _ = await first.manager.purchase(ID.proMonthly)
        await first.close()
        time.advance(95) // about three monthly renewals at 30 s each
        let second = try await Harness.make(directory: dir, time: time) { $0.timeRate = .monthlyRenewalEveryThirtySeconds }
        let renewals = await second.store.ledgerEntries().filter { $0.payload.reason == .renewal }
        #expect(renewals.count >= 2)
        await second.close()
    }
}

@Suite("AppTransaction, refund requests and manage subscriptions (LocalAppStore)")
struct AppSurfaceTests {
    @Test("AppTransaction is signed with the catalog's app facts and the same appTransactionID as every transaction")
    func appTransaction() async throws {
        let h = try await Harness.make()
        let app = try #require(await h.manager.snapshot.appTransaction)
        guard case .verified(let payload) = app else { Issue.record("unverified \(app)"); return }
        #expect(payload.bundleID == "com.lumenquest.app" && payload.originalAppVersion == "2.4" && payload.originalPlatform == "iOS")
        let t = try #require(await h.manager.purchase(ID.pro).transaction)
        #expect(t.appTransactionID == payload.appTransactionID)
        await h.close()
    }

    @Test("the QA panel sets the original app version for a migration check")
    func migration() async throws {
        let h = try await Harness.make()
        try await h.store.setOriginalApp(version: "1.9", purchaseDate: Date(timeIntervalSince1970: 1_600_000_000), platform: "macOS")
        await h.manager.loadAppTransaction()
        let payload = try #require(await h.manager.snapshot.appTransaction?.payload)
        #expect(AppTransactionPayload.version(payload.originalAppVersion, isBefore: "2.0"))
        #expect(payload.originalPlatform == "macOS")
        #expect(!AppTransactionPayload.version("2.10", isBefore: "2.9"))
        await h.close()
    }

    @Test("an injected app transaction failure reaches the app")
    func appTransactionFailure() async throws {
        let h = try await Harness.make { $0.failures[.appTransaction] = .storeKit(.networkError) }
        #expect(await h.manager.snapshot.appTransaction == nil)
        #expect(await h.manager.snapshot.lastError == .storeKit(.networkError))
        await h.close()
    }

    @Test("a refund request stays pending until the tester decides; a second request is duplicateRequest")
    func refundRequest() async throws {
        let h = try await Harness.make()
        let t = try #require(await h.manager.purchase(ID.pro).transaction)
        #expect(await h.manager.requestRefund(transactionID: t.transactionID, reason: "didn't mean to") == .success(.success))
        #expect(await h.manager.requestRefund(transactionID: t.transactionID, reason: "again") == .failure(.refund(.duplicateRequest)))
        #expect(await h.entitled(ID.pro))
        try await h.store.decideRefundRequest(transactionID: t.transactionID, approve: false)
        #expect(await h.entry(ID.pro)?.refundRequest == .declined)
        #expect(await h.entitled(ID.pro))
        _ = await h.manager.requestRefund(transactionID: t.transactionID, reason: "please")
        try await h.store.decideRefundRequest(transactionID: t.transactionID, approve: true)
        #expect(await eventually { await !h.entitled(ID.pro) })
        #expect(await h.manager.snapshot.lastEvent == .revoked(productID: ID.pro, refund: "$9.99"))
        await h.close()
    }

    @Test("with Xcode's behaviour a refund request is approved at once")
    func refundAutoApproved() async throws {
        let h = try await Harness.make { $0.autoApproveRefunds = true }
        let t = try #require(await h.manager.purchase(ID.removeAds).transaction)
        _ = await h.manager.requestRefund(transactionID: t.transactionID, reason: "x")
        #expect(await eventually { await !h.entitled(ID.removeAds) })
        await h.close()
    }

    @Test("the manage-subscriptions sheet cancels, re-enables and schedules a downgrade")
    func manageSubscriptions() async throws {
        let h = try await Harness.make()
        _ = await h.manager.purchase(ID.proYearly)
        #expect(await h.manager.manageSubscription(groupID: ID.group, .cancel) == nil)
        #expect(await h.manager.snapshot.effectiveStatus(group: ID.group)?.renewalInfo.payload?.willAutoRenew == false)
        #expect(await h.manager.manageSubscription(groupID: ID.group, .reenable) == nil)
        #expect(await h.manager.snapshot.effectiveStatus(group: ID.group)?.renewalInfo.payload?.willAutoRenew == true)
        #expect(await h.manager.manageSubscription(groupID: ID.group, .switchTo(productID: ID.plusMonthly)) == nil)
        #expect(await h.manager.snapshot.effectiveStatus(group: ID.group)?.renewalInfo.payload?.autoRenewProductID == ID.plusMonthly)
        try await h.store.advanceTime(by: Period(1, .year))
        await h.manager.refresh()
        #expect(await h.manager.snapshot.effectiveStatus(group: ID.group)?.transaction.payload?.productID == ID.plusMonthly)
        await h.close()
    }

    @Test("an upgrade in the manage-subscriptions sheet reaches the app through updates")
    func manageUpgrade() async throws {
        let h = try await Harness.make()
        _ = await h.manager.purchase(ID.plusMonthly)
        _ = await h.manager.manageSubscription(groupID: ID.group, .switchTo(productID: ID.proMonthly))
        #expect(await eventually { await h.entitled(ID.proMonthly) })
        #expect(await !h.entitled(ID.plusMonthly))
        await h.close()
    }
}

@Suite("Refunds (LocalAppStore)")
struct RefundRulesTests {
    @Test("a prorated refund of a subscription records the unused share in milliunits and revokes it")
    func proratedRefund() async throws {
        let h = try await Harness.make()
        let t = try #require(await h.manager.purchase(ID.proYearly).transaction)
        let half = t.expirationDate!.timeIntervalSince(t.purchaseDate) / 2
        h.time.advance(half)
        try await h.store.refund(transactionID: t.transactionID, prorated: true)
        let revoked = try #require(await h.entry(ID.proYearly)?.payload)
        #expect(revoked.revocationType == .refundProrated)
        #expect((49_000...51_000).contains(revoked.revocationPercentage ?? 0))
        #expect(await eventually { await h.manager.snapshot.effectiveStatus(group: ID.group)?.state == .revoked })
        #expect(await !h.entitled(ID.proYearly))
        await h.close()
    }
}

@Suite("Offer periods and family subscriptions (LocalAppStore)")
struct OfferPeriodTests {
    @Test("pay as you go discounts every period of the offer, then renews at the regular price")
    func payAsYouGo() async throws {
        let h = try await Harness.make()
        _ = await h.manager.purchase(ID.proMonthly) // intro: $4.99/month for 3 months
        try await h.store.advanceTime(by: Period(4, .month))
        let prices = await h.store.ledgerEntries().reversed().map(\.payload.priceMilliunits)
        #expect(prices == [4990, 4990, 4990, 14990, 14990])
        let offers = await h.store.ledgerEntries().reversed().map(\.payload.offerType)
        #expect(offers == [.introductory, .introductory, .introductory, nil, nil])
        await h.close()
    }

    @Test("a family member's subscription stands beside the customer's own; the higher level is granted")
    func familyBesideOwn() async throws {
        let h = try await Harness.make()
        _ = await h.manager.purchase(ID.plusMonthly)
        try await h.store.buyOutsideApp(productID: ID.proYearly, familyShared: true)
        #expect(await eventually { await h.manager.snapshot.subscriptionStatuses[ID.group]?.count == 2 })
        #expect(await h.manager.snapshot.effectiveStatus(group: ID.group)?.transaction.payload?.productID == ID.proYearly)
        #expect(await h.manager.snapshot.entitlements.isSuperset(of: [ID.plusMonthly, ID.proYearly]))
        await h.close()
    }

    @Test("an offer code's transaction carries the code's reference name as offerIdentifier")
    func offerCodeIdentifier() async throws {
        let h = try await Harness.make()
        #expect(await h.manager.redeem(offerCode: "ADFREE") == nil)
        #expect(await eventually { await h.entry(ID.removeAds)?.payload.offerID == "Remove ads for free" })
        await h.close()
    }
}

@Suite("Time rates (LocalAppStore)")
struct TimeRateTests {
    @Test("under oneRenewalEveryMinute a yearly subscription renews once a minute, like a weekly one")
    func oneRenewalEvery() async throws {
        let h = try await Harness.make { $0.timeRate = .oneRenewalEveryMinute }
        _ = await h.manager.purchase(ID.proYearly)
        h.time.advance(61)
        await h.store.tick()
        #expect(await h.store.ledgerEntries().filter { $0.payload.reason == .renewal }.count == 1)
        await h.close()
    }

    @Test("under monthlyRenewalEveryThirtySeconds a month passes in 30 seconds and a year in 6 minutes")
    func monthlyEveryThirtySeconds() async throws {
        let h = try await Harness.make { $0.timeRate = .monthlyRenewalEveryThirtySeconds }
        _ = await h.manager.purchase(ID.proYearly)
        _ = await h.manager.purchase(ID.coins)
        h.time.advance(31)
        #expect(await h.store.ledgerEntries().filter { $0.payload.reason == .renewal }.isEmpty)
        h.time.advance(6 * 60 * 365 / 360) // a little over a store year
        await h.store.tick()
        #expect(await h.store.ledgerEntries().filter { $0.payload.reason == .renewal }.count == 1)
        await h.close()
    }

    @Test("a time rate keeps dates wall-clock dates: the store clock moves as real time does")
    func timeRateKeepsWallClockDates() async throws {
        let h = try await Harness.make()
        let before = await h.store.now()
        await h.store.setTimeRate(.oneSecondIsOneDay)
        h.time.advance(2)
        #expect(await h.store.now().timeIntervalSince(before) == 2)
        await h.close()
    }

    @Test("a monthly bought under monthlyRenewalEveryThirtySeconds is dated now and expires 30 s after its purchase")
    func compressedExpirationDate() async throws {
        let h = try await Harness.make { $0.timeRate = .monthlyRenewalEveryThirtySeconds }
        let bought = try #require(await h.manager.purchase(ID.proMonthly).transaction)
        #expect(bought.purchaseDate == h.time.now())
        #expect(bought.expirationDate == bought.purchaseDate.addingTimeInterval(30))
        h.time.advance(31)
        await h.store.tick()
        let renewal = try #require(await h.store.ledgerEntries().first { $0.payload.reason == .renewal })
        #expect(renewal.payload.purchaseDate == bought.expirationDate)
        #expect(renewal.payload.expirationDate == bought.expirationDate?.addingTimeInterval(30))
        await h.close()
    }

    @Test("a rate changed mid-subscription applies from the next period; the current one keeps its end")
    func rateChangeAppliesFromTheNextPeriod() async throws {
        let h = try await Harness.make { $0.timeRate = .monthlyRenewalEveryThirtySeconds }
        let bought = try #require(await h.manager.purchase(ID.proMonthly).transaction)
        await h.store.setTimeRate(.monthlyRenewalEveryFiveMinutes)
        h.time.advance(31)
        await h.store.tick()
        let renewal = try #require(await h.store.ledgerEntries().first { $0.payload.reason == .renewal })
        #expect(renewal.payload.purchaseDate == bought.expirationDate)
        #expect(renewal.payload.expirationDate == bought.expirationDate?.addingTimeInterval(300))
        await h.close()
    }

    @Test("advance P1M under a time rate moves the store clock by the compressed month")
    func advanceUnderATimeRate() async throws {
        let h = try await Harness.make { $0.timeRate = .monthlyRenewalEveryThirtySeconds }
        let before = await h.store.now()
        try await h.store.advanceTime(by: Period(1, .month))
        #expect(await h.store.now().timeIntervalSince(before) == 30)
        await h.close()
    }
}
