import Foundation
import Testing
import StoreCore
import StoreSigning
@testable import StoreEngine
import StorefrontTestSupport

/// The outbox: every store event leaves its App Store Server Notification V2 in the ledger.
@Suite("Notifications outbox (LocalAppStore)")
struct NotificationOutboxTests {
    func store(directory: String? = nil, url: String? = "http://127.0.0.1:9/notify", time: ManualTime = ManualTime()) throws -> LocalAppStore {
        var catalog = Repo.catalog
        catalog.settings.networkDelay = 0
        catalog.settings.gracePeriod = false
        catalog.settings.notificationURL = url
        return try LocalAppStore(catalog: catalog, stateDirectory: directory, ledger: PostgresTestServer.defaultLedger(for: directory), time: time)
    }

    func names(_ store: LocalAppStore) async -> [String] {
        await store.notifications().map { [$0.type, $0.subtype].compactMap { $0 }.joined(separator: " ") }
    }

    @discardableResult
    func buy(_ store: LocalAppStore, _ id: String) async throws -> Int64 {
        _ = try await store.purchase(id, options: PurchaseOptions(), answer: .confirm)
        return try #require(await store.ledgerEntries(limit: 1).first?.id)
    }

    @Test("every store event leaves the notification the App Store sends for it, in order")
    func storeEventsMakeTheirNotifications() async throws {
        let store = try store()
        try await buy(store, ID.plusMonthly)
        try await store.advanceTime(by: Period(8, .day))
        try await store.setAutoRenew(productID: ID.plusMonthly, enabled: false)
        try await store.setAutoRenew(productID: ID.plusMonthly, enabled: true)
        try await store.requestPriceIncrease(productID: ID.plusMonthly)
        try await store.respondToPriceIncrease(productID: ID.plusMonthly, agree: true)
        try await buy(store, ID.proMonthly)
        try await buy(store, ID.plusMonthly)
        let latest = try await buy(store, ID.removeAds)
        try await store.refund(transactionID: latest, prorated: false)
        try await store.reverseRefund(transactionID: latest)
        let coins = try await buy(store, ID.coins)
        _ = try await store.requestRefund(transactionID: coins, reason: "")
        try await store.decideRefundRequest(transactionID: coins, approve: false)
        try await store.buyOutsideApp(productID: ID.proYearly, familyShared: true)
        let family = try #require(await store.ledgerEntries(limit: 1).first?.id)
        try await store.revokeFamilySharing(transactionID: family)
        _ = try await store.requestTestNotification()
        #expect(await names(store) == [
            "SUBSCRIBED INITIAL_BUY", "DID_RENEW", "DID_CHANGE_RENEWAL_STATUS AUTO_RENEW_DISABLED",
            "DID_CHANGE_RENEWAL_STATUS AUTO_RENEW_ENABLED", "PRICE_INCREASE PENDING", "PRICE_INCREASE ACCEPTED",
            "DID_CHANGE_RENEWAL_PREF UPGRADE", "DID_CHANGE_RENEWAL_PREF DOWNGRADE", "ONE_TIME_CHARGE", "REFUND", "REFUND_REVERSED",
            "ONE_TIME_CHARGE", "CONSUMPTION_REQUEST", "REFUND_DECLINED", "SUBSCRIBED INITIAL_BUY", "REVOKE", "TEST",
        ])
        // A renewal's notification, made inside a catch-up, carries the renewal info as it was then.
        let renewal = try #require(await store.notifications().first { $0.type == "DID_RENEW" })
        let body = try JSONParser.parse(try #require(Base64URL.decode(String(renewal.signedPayload.split(separator: ".")[1]))))
        let info = try #require(body["data"]?["signedRenewalInfo"]?.stringValue)
        let claims = try JSONParser.parse(try #require(Base64URL.decode(String(info.split(separator: ".")[1]))))
        #expect(claims["productId"]?.stringValue == ID.plusMonthly && claims["autoRenewStatus"]?.intValue == 1)
        #expect(body["data"]?["status"]?.intValue == 1)
        await store.shutdown()
    }

    @Test("CONSUMPTION_REQUEST carries data.consumptionRequestReason, from the reason the customer picked", arguments: [
        ("I didn't mean to buy this", "UNINTENDED_PURCHASE"), ("A child or family member bought it", "UNINTENDED_PURCHASE"),
        ("It doesn't work or isn't what I expected", "UNSATISFIED_WITH_PURCHASE"), ("I didn't receive it", "FULFILLMENT_ISSUE"),
        ("Other", "OTHER"), ("legal", "LEGAL"),
    ])
    func consumptionRequestReason(_ reason: String, _ expected: String) async throws {
        let store = try store()
        let coins = try await buy(store, ID.coins)
        _ = try await store.requestRefund(transactionID: coins, reason: reason)
        let request = try #require(await store.notifications().first { $0.type == "CONSUMPTION_REQUEST" })
        let body = try JSONParser.parse(try #require(Base64URL.decode(String(request.signedPayload.split(separator: ".")[1]))))
        #expect(body["data"]?["consumptionRequestReason"]?.stringValue == expected)
        #expect(body["data"]?["signedTransactionInfo"] != nil)
        await store.shutdown()
    }

    @Test("billing retry, grace, recovery and expiry make DID_FAIL_TO_RENEW, GRACE_PERIOD_EXPIRED, BILLING_RECOVERY and EXPIRED")
    func billingTroubleNotifications() async throws {
        let store = try store()
        try await buy(store, ID.proMonthly)
        await store.update { $0.billingRetryOnRenewal = true; $0.gracePeriod = true }
        try await store.advanceTime(by: Period(1, .month))
        try await store.advanceTime(by: Period(20, .day))
        try await store.resolveBillingIssue(productID: ID.proMonthly)
        await store.update { $0.gracePeriod = false }
        try await store.advanceTime(by: Period(1, .month))
        try await store.resolveBillingIssue(productID: ID.proMonthly)
        try await store.advanceTime(by: Period(1, .month))
        try await store.advanceTime(by: Period(61, .day))
        #expect(await names(store) == [
            "SUBSCRIBED INITIAL_BUY", "DID_FAIL_TO_RENEW GRACE_PERIOD", "GRACE_PERIOD_EXPIRED", "DID_RENEW BILLING_RECOVERY",
            "DID_FAIL_TO_RENEW", "DID_RENEW BILLING_RECOVERY", "DID_FAIL_TO_RENEW", "EXPIRED BILLING_RETRY",
        ])
        await store.shutdown()
    }

    @Test("declining a price increase turns auto-renew off at once (DID_CHANGE_RENEWAL_STATUS AUTO_RENEW_DISABLED) and expires the subscription at its renewal: EXPIRED PRICE_INCREASE; buying again is RESUBSCRIBE")
    func priceIncreaseExpiry() async throws {
        let store = try store()
        try await buy(store, ID.proMonthly)
        try await store.requestPriceIncrease(productID: ID.proMonthly)
        try await store.respondToPriceIncrease(productID: ID.proMonthly, agree: false)
        try await store.advanceTime(by: Period(1, .month))
        try await buy(store, ID.proMonthly)
        try await store.expireSubscription(productID: ID.proMonthly)
        #expect(await names(store) == ["SUBSCRIBED INITIAL_BUY", "PRICE_INCREASE PENDING", "DID_CHANGE_RENEWAL_STATUS AUTO_RENEW_DISABLED", "EXPIRED PRICE_INCREASE",
                                       "SUBSCRIBED RESUBSCRIBE", "EXPIRED VOLUNTARY"])
        await store.shutdown()
    }

    @Test("buying the current plan while a downgrade waits calls it off: DID_CHANGE_RENEWAL_PREF without a subtype")
    func backToTheCurrentPlan() async throws {
        let store = try store()
        try await buy(store, ID.proMonthly)
        try await buy(store, ID.plusMonthly)
        try await buy(store, ID.proMonthly)
        try await store.manageSubscription(groupID: ID.group, .cancel)
        try await store.manageSubscription(groupID: ID.group, .cancel)
        try await store.advanceTime(by: Period(1, .month))
        #expect(await names(store) == ["SUBSCRIBED INITIAL_BUY", "DID_CHANGE_RENEWAL_PREF DOWNGRADE", "DID_CHANGE_RENEWAL_PREF",
                                       "DID_CHANGE_RENEWAL_STATUS AUTO_RENEW_DISABLED", "EXPIRED VOLUNTARY"])
        #expect(await store.ledgerEntries(limit: 1).first?.payload.productID == ID.proMonthly)
        await store.shutdown()
    }

    @Test("a promotional offer bought by a subscriber who lapsed is SUBSCRIBED RESUBSCRIBE, not OFFER_REDEEMED")
    func promotionalOfferRedeemed() async throws {
        let store = try store()
        try await buy(store, ID.proMonthly)
        try await store.expireSubscription(productID: ID.proMonthly)
        let signature = try await store.signPromotionalOffer(productID: ID.proMonthly, offerID: "pro.comeback50")
        let options = PurchaseOptions(promotionalOffer: (id: "pro.comeback50", signature: signature))
        _ = try await store.purchase(ID.proMonthly, options: options, answer: .confirm)
        #expect(await names(store).last == "SUBSCRIBED RESUBSCRIBE")
        await store.shutdown()
    }

    @Test("a notification is signed once: every read gives the same token, which verifies against the store's certificate")
    func signedOnceAndKept() async throws {
        let store = try store()
        try await buy(store, ID.proMonthly)
        let first = try #require(await store.notifications().first)
        #expect(await store.notifications().first?.signedPayload == first.signedPayload)
        let verified = JWSVerifier(trustedRoots: [store.certificate]).verify(first.signedPayload, at: .now)
        #expect(verified.isVerified)
        let body = try JSONParser.parse(try #require(verified.payload))
        #expect(body["notificationType"]?.stringValue == "SUBSCRIBED")
        #expect(body["notificationUUID"]?.stringValue == first.uuid)
        #expect(body["version"]?.stringValue == "2.0")
        let data = try #require(body["data"])
        #expect(data["bundleId"]?.stringValue == Repo.catalog.app.bundleID)
        #expect(data["status"]?.intValue == 1)
        for nested in ["signedTransactionInfo", "signedRenewalInfo"] {
            let token = try #require(data[nested]?.stringValue)
            #expect(JWSVerifier(trustedRoots: [store.certificate]).verify(token, at: .now).isVerified, "\(nested)")
        }
        await store.shutdown()
    }

    @Test("the newest notifications read again show what changed since: a new one, and an attempt at an old one")
    func recentNotificationsFollowChanges() async throws {
        let store = try store()
        try await buy(store, ID.removeAds)
        let first = try #require(await store.recentNotifications(limit: 10).first)
        #expect(first.delivery == .pending && first.attempts.isEmpty)
        await store.recordSendAttempt(sequence: first.sequence, result: "unreachable")
        try await buy(store, ID.coins)
        let again = await store.recentNotifications(limit: 10)
        #expect(again.count == 2)
        #expect(again.last?.sequence == first.sequence && again.last?.attempts.map(\.result) == ["unreachable"])
        #expect(again.last?.signedPayload == first.signedPayload)
        // The same as reading every notification whole.
        #expect(again == Array(await store.notifications().reversed()))
        await store.recordSendAttempt(sequence: first.sequence, result: SendAttempt.success)
        #expect(await store.recentNotifications(limit: 10).last?.delivery == .delivered)
        #expect(await store.recentNotifications(limit: 1).map(\.sequence) == [again[0].sequence])
        await store.shutdown()
    }

    /// What the transaction said in a notification's nested `signedTransactionInfo`.
    func nestedTransaction(_ n: StoreNotification) throws -> JSONValue {
        let body = try JSONParser.parse(try #require(Base64URL.decode(String(n.signedPayload.split(separator: ".")[1]))))
        let token = try #require(body["data"]?["signedTransactionInfo"]?.stringValue)
        return try JSONParser.parse(try #require(Base64URL.decode(String(token.split(separator: ".")[1]))))
    }

    @Test("a notification says what the transaction was when it was made, though it is signed later and the transaction changed or went")
    func notificationKeepsTheTransactionAsItWas() async throws {
        let store = try store()
        let bought = try await buy(store, ID.removeAds)
        try await store.refund(transactionID: bought, prorated: false)
        let coins = try await buy(store, ID.coins)
        try await store.deleteTransaction(coins)
        let list = await store.notifications()  // signed only now
        #expect(list.map(\.type) == ["ONE_TIME_CHARGE", "REFUND", "ONE_TIME_CHARGE"])
        #expect(try nestedTransaction(list[0])["revocationDate"] == nil)
        #expect(try nestedTransaction(list[1])["revocationDate"] != nil)
        #expect(try nestedTransaction(list[2])["productId"]?.stringValue == ID.coins)
        #expect(Set(list.map(\.uuid)).count == 3)
        #expect(await store.notifications().map(\.uuid) == list.map(\.uuid), "the UUID is given once")
        await store.shutdown()
    }

    @Test("a notification made while no URL is set is recorded, not sent")
    func noURLRecordsWithoutSending() async throws {
        let store = try store(url: nil)
        try await buy(store, ID.coins)
        #expect(await store.notifications().map(\.delivery) == [.notSent])
        #expect(await store.claimDueNotifications() == nil)
        await store.shutdown()
    }

    @Test("the test notification is found by its token")
    func testNotificationToken() async throws {
        let store = try store()
        let token = try await store.requestTestNotification()
        let found = try #require(await store.notification(testToken: token))
        #expect(found.type == "TEST" && found.transactionID == nil)
        #expect(await store.notification(testToken: "nope") == nil)
        await store.shutdown()
    }

    @Test("a failed attempt is retried after 1, 12, 24, 48 and 72 hours of store time, then the notification has failed")
    func retriesOnTheAppStoreSchedule() async throws {
        let time = ManualTime()
        let store = try store(time: time)
        try await buy(store, ID.coins)
        var hours: [Double] = []
        for _ in 0..<6 {
            let claimed = try #require(await store.claimDueNotifications()?.notifications.first)
            await store.recordSendAttempt(sequence: claimed.sequence, result: SendAttempt.unsuccessfulHTTPResponseCode)
            #expect(await store.claimDueNotifications()?.notifications.isEmpty == true, "not due again at once")
            guard let next = await store.notification(sequence: claimed.sequence)?.nextAttemptDate else { break }
            hours.append(next.timeIntervalSince(await store.now()) / 3600)
            time.advance(hours.last! * 3600)
        }
        #expect(hours == [1, 12, 24, 48, 72])
        let final = try #require(await store.notifications().first)
        #expect(final.delivery == .failed && final.attempts.count == 6)
        try await store.resendNotification(sequence: final.sequence)
        #expect(await store.claimDueNotifications()?.notifications.map(\.sequence) == [final.sequence])
        await store.shutdown()
    }

    @Test("advance over the retries makes one attempt at each scheduled time, stamped then: 1, 12, 24, 48, 72 hours apart")
    func retriesAcrossAnAdvance() async throws {
        let store = try store()
        try await buy(store, ID.coins)
        let first = try #require(await store.claimDueNotifications()?.notifications.first)
        await store.recordSendAttempt(sequence: first.sequence, result: SendAttempt.unsuccessfulHTTPResponseCode)
        try await store.advanceTime(by: Period(10, .day))
        while let due = await store.claimDueNotifications()?.notifications.first {
            await store.recordSendAttempt(sequence: due.sequence, result: SendAttempt.unsuccessfulHTTPResponseCode)
        }
        let attempts = try #require(await store.notification(sequence: first.sequence)?.attempts)
        let gaps = zip(attempts.dropFirst(), attempts).map { ($0.date.timeIntervalSince($1.date) / 3600).rounded() }
        #expect(gaps == [1, 12, 24, 48, 72])
        #expect(await store.notification(sequence: first.sequence)?.delivery == .failed)
        await store.shutdown()
    }

    @Test("a notification of an event inside a jump in time is made (and signed) when the event happened, not at the jump's end")
    func eventsInsideAJumpAreDatedWhenTheyHappened() async throws {
        let store = try store()
        try await buy(store, ID.proMonthly)
        try await store.advanceTime(by: Period(3, .month))
        let renewals = await store.notifications().filter { $0.type == "DID_RENEW" }
        #expect(renewals.count == 3)
        let renewalDates = await store.ledgerEntries(limit: 3).map(\.payload.purchaseDate).sorted()
        #expect(renewals.map(\.createdDate) == renewalDates)
        let body = try JSONParser.parse(try #require(Base64URL.decode(String(renewals[0].signedPayload.split(separator: ".")[1]))))
        #expect(body["signedDate"]?.intValue == Int(renewalDates[0].timeIntervalSince1970 * 1000))
        await store.shutdown()
    }

    @Test("a later notification of an original transaction does not wait behind a failing one (Apple documents no order)")
    func noHoldBehindAFailingNotification() async throws {
        let store = try store()
        try await buy(store, ID.proMonthly)
        try await store.setAutoRenew(productID: ID.proMonthly, enabled: false)
        try await buy(store, ID.coins)
        let first = try #require(await store.claimDueNotifications()?.notifications)
        #expect(first.map(\.type) == ["SUBSCRIBED", "DID_CHANGE_RENEWAL_STATUS", "ONE_TIME_CHARGE"])
        await store.recordSendAttempt(sequence: first[0].sequence, result: SendAttempt.unsuccessfulHTTPResponseCode)
        await store.recordSendAttempt(sequence: first[1].sequence, result: SendAttempt.success)
        #expect(await store.notifications().first { $0.type == "DID_CHANGE_RENEWAL_STATUS" }?.delivery == .delivered,
                "delivered while the subscription's first notification waits for its retry")
        await store.shutdown()
    }

    @Test("two stores on one state never claim the same notification")
    func oneClaimAcrossProcesses() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let a = try store(directory: directory), b = try store(directory: directory)
        try await buy(a, ID.coins)
        try await buy(b, ID.gems)
        let claimedByA = try #require(await a.claimDueNotifications()?.notifications)
        let claimedByB = try #require(await b.claimDueNotifications()?.notifications)
        #expect(claimedByA.count == 2 && claimedByB.isEmpty)
        await a.shutdown()
        await b.shutdown()
    }

    /// A notification's `data`, as the backend decodes it.
    func data(_ notification: StoreNotification?) throws -> JSONValue? {
        let signed = try #require(notification).signedPayload
        return try JSONParser.parse(try #require(Base64URL.decode(String(signed.split(separator: ".")[1]))))["data"]
    }

    func autoRenewStatus(_ data: JSONValue?) throws -> Int? {
        let info = try #require(data?["signedRenewalInfo"]?.stringValue)
        return try JSONParser.parse(try #require(Base64URL.decode(String(info.split(separator: ".")[1]))))["autoRenewStatus"]?.intValue
    }

    @Test("a refund request on a subscription that renews turns auto-renew off: DID_CHANGE_RENEWAL_STATUS AUTO_RENEW_DISABLED, then CONSUMPTION_REQUEST")
    func refundRequestTurnsAutoRenewOff() async throws {
        let store = try store()
        let bought = try await buy(store, ID.proMonthly)
        _ = try await store.requestRefund(transactionID: bought, reason: "Other")
        #expect(await names(store) == ["SUBSCRIBED INITIAL_BUY", "DID_CHANGE_RENEWAL_STATUS AUTO_RENEW_DISABLED", "CONSUMPTION_REQUEST"])
        let request = try data(await store.notifications().first { $0.type == "CONSUMPTION_REQUEST" })
        #expect(try autoRenewStatus(request) == 0)
        await store.shutdown()
    }

    @Test("a refund request made after a renewal fell due renews first, then turns auto-renew off")
    func refundRequestCatchesUpFirst() async throws {
        let time = ManualTime()
        let store = try store(time: time)
        let bought = try await buy(store, ID.proMonthly)
        time.advance(32 * 86_400)  // the renewal is due; nothing has looked at the store since
        _ = try await store.requestRefund(transactionID: bought, reason: "Other")
        #expect(await names(store) == ["SUBSCRIBED INITIAL_BUY", "DID_RENEW", "DID_CHANGE_RENEWAL_STATUS AUTO_RENEW_DISABLED", "CONSUMPTION_REQUEST"])
        await store.shutdown()
    }

    @Test("buying the plan again after cancelling it turns auto-renew back on: DID_CHANGE_RENEWAL_STATUS AUTO_RENEW_ENABLED, and it renews")
    func buyingAgainAfterCancellingResumesAutoRenew() async throws {
        let store = try store()
        try await buy(store, ID.proMonthly)
        try await store.setAutoRenew(productID: ID.proMonthly, enabled: false)
        _ = try await store.purchase(ID.proMonthly, options: PurchaseOptions(), answer: .confirm)
        try await store.advanceTime(by: Period(1, .month))
        #expect(await names(store) == ["SUBSCRIBED INITIAL_BUY", "DID_CHANGE_RENEWAL_STATUS AUTO_RENEW_DISABLED",
                                       "DID_CHANGE_RENEWAL_STATUS AUTO_RENEW_ENABLED", "DID_RENEW"])
        await store.shutdown()
    }

    @Test("a promotional offer taken with a downgrade is OFFER_REDEEMED DOWNGRADE, discounts the renewal that makes the change, and uses its nonce")
    func promotionalOfferWithADowngrade() async throws {
        let store = try store()
        try await buy(store, ID.proMonthly)
        let signature = try await store.signPromotionalOffer(productID: ID.plusMonthly, offerID: "plus.loyalty")
        let options = PurchaseOptions(promotionalOffer: (id: "plus.loyalty", signature: signature))
        _ = try await store.purchase(ID.plusMonthly, options: options, answer: .confirm)
        #expect(await names(store) == ["SUBSCRIBED INITIAL_BUY", "OFFER_REDEEMED DOWNGRADE"])
        try await store.advanceTime(by: Period(1, .month))
        let renewal = try #require(await store.ledgerEntries(limit: 1).first?.payload)
        #expect(renewal.productID == ID.plusMonthly && renewal.offerType == .promotional && renewal.offerID == "plus.loyalty")
        await #expect(throws: StoreFailure.self, "a used nonce") { _ = try await store.purchase(ID.plusMonthly, options: options, answer: .confirm) }
        await store.shutdown()
    }

    @Test("a promotional offer taken with an upgrade uses its nonce")
    func promotionalOfferWithAnUpgradeUsesItsNonce() async throws {
        let store = try store()
        try await buy(store, ID.plusMonthly)
        let signature = try await store.signPromotionalOffer(productID: ID.proMonthly, offerID: "pro.comeback50")
        let options = PurchaseOptions(promotionalOffer: (id: "pro.comeback50", signature: signature))
        _ = try await store.purchase(ID.proMonthly, options: options, answer: .confirm)
        #expect(await names(store) == ["SUBSCRIBED INITIAL_BUY", "OFFER_REDEEMED UPGRADE"])
        try await store.expireSubscription(productID: ID.proMonthly)
        await #expect(throws: StoreFailure.self, "a used nonce") { _ = try await store.purchase(ID.proMonthly, options: options, answer: .confirm) }
        await store.shutdown()
    }

    @Test("data.appAppleId is there in Production only: Apple leaves it out in the sandbox", arguments: [StoreEnvironment.sandbox, .production])
    func appAppleIDInProductionOnly(_ environment: StoreEnvironment) async throws {
        var catalog = Repo.catalog
        catalog.settings.networkDelay = 0
        catalog.settings.environment = environment
        catalog.app.appAppleID = 1_234_567_890
        let store = try LocalAppStore(catalog: catalog, stateDirectory: nil, ledger: PostgresTestServer.defaultLedger(for: nil), time: ManualTime())
        try await buy(store, ID.coins)
        let data = try data(await store.notifications().first)
        #expect(data?["appAppleId"]?.intValue == (environment == .production ? 1_234_567_890 : nil))
        #expect(data?["bundleId"]?.stringValue == catalog.app.bundleID)
        await store.shutdown()
    }

}
