import Foundation
@_spi(Storefront) import StoreKit
import StoreEngine
@_spi(Storefront) import StoreKitTest
import StoreSigning
import StorefrontTestSupport
import Testing
import Locking

/// The calls that show one of the App Store's sheets (payment, refund request, manage subscriptions, messages),
/// answered by the scene's customer, and the updates that tell the app what the customer did there.
extension StoreKitSuites {
@Suite("StoreKit's sheets and status updates")
struct StoreKitSheetTests {
    let session: SKTestSession
    init() throws { session = try StoreKitSuites.freshSession() }
    func product(_ id: String) async throws -> Product { try await StoreKitSuites.product(id) }

    func buy(_ id: String, options: Set<Product.PurchaseOption> = []) async throws -> Transaction {
        try await StoreKitSuites.buy(id, options: options)
    }

    func status(_ id: String) async throws -> Product.SubscriptionInfo.Status {
        try #require(try await product(id).subscription?.status.first)
    }

    @Test func aRefundRequestSubmittedIsReceivedOnceAndASecondIsADuplicate() async throws {
        await session.store.update { $0.autoApproveRefunds = false }  // decided by hand, as the QA panel may switch it
        let car = try await buy("nonconsumable.car")
        let asked = Locked<StoreSheet?>(nil)
        let scene = UIWindowScene { sheet in asked.withLock { $0 = sheet }; return .requestRefund(reason: "I didn't receive it") }
        #expect(try await car.beginRefundRequest(in: scene) == .success)
        guard case .refundRequest(let id) = asked.withLock({ $0 }) else { Issue.record("no refund sheet: \(String(describing: asked.withLock({ $0 })))"); return }
        #expect(id == car.id)
        await #expect(throws: Transaction.RefundRequestError.duplicateRequest) {
            try await Transaction.beginRefundRequest(for: car.id, in: UIWindowScene())
        }
    }

    @Test func aRefundRequestUnderATestSessionIsApprovedAtOnceAndReachesTheAppRevoked() async throws {
        let car = try await buy("nonconsumable.car")
        #expect(try await car.beginRefundRequest(in: UIWindowScene(answering: .confirm)) == .success)
        let revoked = await first(Transaction.updates) { $0.unsafePayloadValue.id == car.id }?.unsafePayloadValue
        #expect(revoked?.revocationDate != nil && revoked?.revocationReason == .other)
        #expect(await Transaction.currentEntitlements.first { _ in true } == nil)
        await #expect(throws: Transaction.RefundRequestError.duplicateRequest) {
            try await car.beginRefundRequest(in: UIWindowScene())
        }
    }

    @Test func aReviewRequestReachesTheScenesCustomerAndReturnsAtOnce() async throws {
        let (asked, ask) = AsyncStream<StoreSheet>.makeStream()
        let scene = UIWindowScene { sheet in ask.yield(sheet); return .cancel }
        await AppStore.requestReview(in: scene)
        Task { try? await Task.sleep(for: .seconds(5)); ask.finish() }  // a prompt that never came fails, never hangs
        var sheets = asked.makeAsyncIterator()
        guard case .reviewRequest = await sheets.next() else { Issue.record("no rating prompt"); return }
    }

    @Test func aLocalStoreBindsNoDevice() async throws {
        #expect(AppStore.deviceVerificationID == nil)
        let car = try await buy("nonconsumable.car")
        #expect(car.deviceVerification.isEmpty)
    }

    @Test func aRefundRequestCancelledAtTheSheetIsUserCancelledAndRequestsNothing() async throws {
        let car = try await buy("nonconsumable.car")
        #expect(try await Transaction.beginRefundRequest(for: car.id, in: UIWindowScene(answering: .cancel)) == .userCancelled)
        #expect(try await car.beginRefundRequest(in: UIWindowScene()) == .success, "the cancelled sheet sent no request")
    }

    @Test func aSimulatedRefundRequestErrorIsThrown() async throws {
        let car = try await buy("nonconsumable.car")
        try await session.setSimulatedError(.refundRequest(.failed), forAPI: .refundRequest)
        await #expect(throws: Transaction.RefundRequestError.failed) { try await car.beginRefundRequest(in: UIWindowScene()) }
    }

    @Test func closingManageSubscriptionsChangesNothingAndCancellingThereTurnsOffAutoRenew() async throws {
        let pro = try await buy("subscription.pro")
        let group = try #require(pro.subscriptionGroupID)
        try await AppStore.showManageSubscriptions(in: UIWindowScene())
        #expect(try await status(pro.productID).renewalInfo.payloadValue.willAutoRenew)
        try await AppStore.showManageSubscriptions(in: UIWindowScene(answering: .cancelSubscription(groupID: group)), subscriptionGroupID: group)
        let cancelled = try await status(pro.productID)
        #expect(try cancelled.state == .subscribed && !cancelled.renewalInfo.payloadValue.willAutoRenew, "it runs to the end of its period")
        try await AppStore.showManageSubscriptions(in: UIWindowScene(answering: .resumeSubscription(groupID: group)))
        #expect(try await status(pro.productID).renewalInfo.payloadValue.willAutoRenew)
    }

    @Test func anUpgradeChosenInManageSubscriptionsArrivesThroughUpdates() async throws {
        _ = try await buy("subscription.standard")
        let updates = Transaction.updates
        try await AppStore.showManageSubscriptions(in: UIWindowScene(answering: .switchSubscription(toProductID: "subscription.pro")))
        let upgrade = await first(updates) { $0.unsafePayloadValue.productID == "subscription.pro" }
        #expect(upgrade != nil)
    }

    @Test func aPaymentSheetCancelledInTheSceneIsUserCancelledAndChargesNothing() async throws {
        let car = try await product("nonconsumable.car")
        #expect(try await car.purchase(confirmIn: UIWindowScene(answering: .cancel)) == .userCancelled)
        var all: [Transaction] = []
        for await result in Transaction.all { all.append(result.unsafePayloadValue) }
        #expect(all.isEmpty)
        let asked = Locked<StoreSheet?>(nil)
        let bought = try await car.purchase(confirmIn: UIWindowScene { sheet in asked.withLock { $0 = sheet }; return .confirm })
        guard case .success(.verified(let transaction)) = bought, case .payment(let shown) = asked.withLock({ $0 }) else { Issue.record("\(bought)"); return }
        #expect(transaction.productID == car.id && shown.id == car.id)
    }

    @Test func statusUpdatesGiveEachChangeAfterWhatTheAppLastRead() async throws {
        let pro = try await buy("subscription.pro")
        #expect(try await status(pro.productID).state == .subscribed)  // what the app last read
        let updates = Product.SubscriptionInfo.Status.updates
        try session.expireSubscription(productIdentifier: pro.productID)
        let change = await first(updates) { _ in true }
        #expect(change?.state == .expired, "the first update is the change, not the status the app had already read")
    }

    @Test func aPriceIncreaseAskingConsentIsAMessageAndAgreeingInTheSceneShowsInStatusUpdates() async throws {
        let pro = try await buy("subscription.pro")
        try session.requestPriceIncreaseConsentForTransaction(identifier: Int(pro.id))
        let message = try #require(await first(Message.messages) { _ in true })
        #expect(message.reason == .priceIncreaseConsent)
        #expect(try await status(pro.productID).renewalInfo.payloadValue.priceIncreaseStatus == .pending)
        let updates = Product.SubscriptionInfo.Status.updates
        try message.display(in: UIWindowScene())
        let agreed = await first(updates) { (try? $0.renewalInfo.payloadValue.priceIncreaseStatus) == .agreed }
        #expect(agreed != nil)
    }

    @Test func aMessageAnsweredNotNowChangesNothingAndComesBackToANewListener() async throws {
        let pro = try await buy("subscription.pro")
        try session.requestPriceIncreaseConsentForTransaction(identifier: Int(pro.id))
        let messages = Message.messages
        var iterator = messages.makeAsyncIterator()
        let message = try #require(await iterator.next())
        try message.display(in: UIWindowScene(answering: .cancel))
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await status(pro.productID).renewalInfo.payloadValue.priceIncreaseStatus == .pending)
        #expect(await first(messages, within: 1) { _ in true } == message, "a new listener gets it again (the next launch)")
    }

    @Test func aBillingIssueIsAMessageAndUpdatingThePaymentMethodRenews() async throws {
        session.shouldEnterBillingRetryOnRenewal = true
        let pro = try await buy("subscription.pro")
        try await session.store.advanceTime(by: .init(3, .month))  // past the 2-month introductory period: the renewal the clock makes fails
        let lapsed = try await status(pro.productID).state
        #expect(lapsed == .inBillingRetryPeriod)
        let message = try #require(await first(Message.messages) { $0.reason == .billingIssue })
        let updates = Product.SubscriptionInfo.Status.updates
        session.shouldEnterBillingRetryOnRenewal = false
        try message.display(in: UIWindowScene())
        #expect(await first(updates) { $0.state == .subscribed } != nil)
    }

    @Test func anIntroductoryOfferEligibilitySignatureThatDoesNotVerifyIsRefused() async throws {
        let pro = try await product("subscription.pro")
        await #expect(throws: Product.PurchaseError.invalidOfferSignature) {
            try await pro.purchase(options: [.introductoryOfferEligibility(compactJWS: "eyJhbGciOiJFUzI1NiJ9.e30.c2ln")])
        }
    }
}

/// `AppStore.presentOfferCodeRedeemSheet(in:)`, on the bundled catalog (which has offer codes).
@Suite("StoreKit's offer code redemption sheet")
struct StoreKitOfferCodeSheetTests {
    let session: SKTestSession

    init() throws {
        session = try SKTestSession(contentsOf: Repo.root.appendingPathComponent("catalog.json"))
        session.clearTransactions()
    }

    func redeemed(_ product: String) -> [SKTestTransaction] { session.allTransactions().filter { $0.productIdentifier == product } }

    @Test func aTestPurchaseWithACodeOfferRedeemsTheCodeOfThatReferenceName() async throws {
        await #expect(throws: Product.PurchaseError.ineligibleForOffer, "the code is for existing and lapsed subscribers, as a redemption checks") {
            try await session.buyProduct(identifier: "com.lumenquest.pro.monthly", options: [.codeOffer(referenceName: "Pro at half price")])
        }
        let plus = try await session.buyProduct(identifier: "com.lumenquest.plus.monthly", options: [.codeOffer(referenceName: "One month of Plus free")])
        #expect(plus.offer?.type == .code && plus.offer?.id == "One month of Plus free" && plus.offer?.paymentMode == .freeTrial)
        #expect(plus.price == 0, "charged the code's price")
        await #expect(throws: Product.PurchaseError.invalidOfferIdentifier) {
            try await session.buyProduct(identifier: "com.lumenquest.coins.100", options: [.codeOffer(referenceName: "No such code")])
        }
        await #expect(throws: Product.PurchaseError.ineligibleForOffer, "an expired code is refused as a redemption is") {
            try await session.buyProduct(identifier: "com.lumenquest.pro", options: [.codeOffer(referenceName: "Launch code (expired)")])
        }
        let coins = try await session.buyProduct(identifier: "com.lumenquest.coins.100", options: [.codeOffer(referenceName: "free coins")])
        #expect(coins.price == 0 && coins.offer?.type == .code)
    }

    @Test func aCodeTheCustomerRedeemsAtTheSheetArrivesThroughUpdates() async throws {
        let asked = Locked<StoreSheet?>(nil)
        let updates = Task { () -> Transaction? in
            for await update in Transaction.updates where update.unsafePayloadValue.productID == "com.lumenquest.coins.100" { return update.unsafePayloadValue }
            return nil
        }
        let bound = Task { try await Task.sleep(for: .seconds(10)); updates.cancel() }  // a missed update fails, never hangs
        defer { bound.cancel() }
        try await AppStore.presentOfferCodeRedeemSheet(in: UIWindowScene { sheet in asked.withLock { $0 = sheet }; return .redeem(code: "coins100") })
        guard case .offerCodeRedemption = asked.withLock({ $0 }) else { Issue.record("no redemption sheet: \(String(describing: asked.withLock { $0 }))"); return }
        let arrived = try #require(await updates.value)
        #expect(arrived.offer?.type == .code && arrived.price == 0)
    }

    @Test func aRefusedCodeIsTheSheetsToSayAndAClosedSheetRedeemsNothing() async throws {
        try await AppStore.presentOfferCodeRedeemSheet(in: UIWindowScene(answering: .redeem(code: "NOSUCHCODE")))
        try await AppStore.presentOfferCodeRedeemSheet(in: UIWindowScene(answering: .cancel))
        #expect(session.allTransactions().isEmpty)
    }

    @Test func aSimulatedRedemptionFailureIsThrown() async throws {
        try await session.setSimulatedError(.generic(.networkError(URLError(.notConnectedToInternet))), forAPI: .offerCodeRedeem)
        await #expect(throws: StoreKitError.self) {
            try await AppStore.presentOfferCodeRedeemSheet(in: UIWindowScene(answering: .redeem(code: "COINS100")))
        }
        #expect(redeemed("com.lumenquest.coins.100").isEmpty)
    }
}

/// Purchase options for subscriptions with billing plans and signed promotional offers, on a configuration that has them.
@Suite("StoreKit's billing plans and signed offers")
struct StoreKitPlanTests {
    static let yearly = "com.lumennotes.pro.yearly"
    let session: SKTestSession

    init() throws {
        session = try SKTestSession(contentsOf: Repo.root.appendingPathComponent("Tests/Scenarios/catalogs/billing-plans.json"))
        session.clearTransactions()
    }

    func buy(_ options: Set<Product.PurchaseOption>) async throws -> Transaction {
        try await StoreKitSuites.buy(Self.yearly, options: options)
    }

    @Test func aPurchaseIsBilledUpFrontUnlessTheMonthlyPlanIsChosen() async throws {
        let upFront = try await buy([])
        #expect(upFront.billingPlanType == .upFront)
        session.clearTransactions()
        let monthly = try await buy([.billingPlanType(.monthly)])
        #expect(monthly.billingPlanType == .monthly)
        #expect(monthly.price.map { $0 < 3 } == true, "a month's charge, not the year's")
        let info = try #require(try await StoreKitSuites.product(Self.yearly).subscription?.status.first).renewalInfo
        #expect(try info.payloadValue.renewalBillingPlanType == .monthly)
    }

    @Test func pricingTermsAreEachPlanTheSubscriptionIsSoldOnWithItsOffers() async throws {
        let info = try #require(try await StoreKitSuites.product(Self.yearly).subscription)
        let terms = info.pricingTerms
        #expect(terms.map(\.billingPlanType) == [.upFront, .monthly])
        let (upFront, monthly) = (terms[0], terms[1])
        #expect(upFront.billingPrice == Decimal(string: "29.99") && upFront.billingDisplayPrice == "$29.99" && upFront.billingPeriod == .yearly)
        #expect(upFront.commitmentInfo.price == Decimal(string: "29.99") && upFront.commitmentInfo.displayPrice == "$29.99")
        #expect(upFront.commitmentInfo.period == .yearly)
        #expect(monthly.billingPrice == Decimal(string: "2.99") && monthly.billingDisplayPrice == "$2.99" && monthly.billingPeriod == .monthly)
        #expect(monthly.commitmentInfo.price == Decimal(string: "35.88") && monthly.commitmentInfo.period == .yearly)
        #expect(upFront[offers: .introductory].map(\.paymentMode) == [.freeTrial])
        #expect(monthly[offers: .introductory].map(\.paymentMode) == [.payAsYouGo])
        #expect(upFront[offers: .promotional].map(\.id) == ["pro.yearly.comeback"] && monthly[offers: .promotional].map(\.id) == ["pro.monthly.comeback"])
    }

    /// Storefront's own app passes the store's options through StoreKit's: none may be lost on the way.
    @Test func theStoresPurchaseOptionsGoThroughStoreKitsAndBackWhole() {
        var engine = PurchaseOptions(quantity: 3, appAccountToken: UUID(), promotionalOffer: ("offer", "jws"), winBackOfferID: "back",
                                     simulatesAskToBuy: true, billingPlan: .monthly)
        engine.introductoryOfferEligibility = "eligibility"
        (engine.purchaseDate, engine.renewsAfterFirstPeriod) = (Date(timeIntervalSince1970: 1_700_000_000), false)
        (engine.codeOfferReferenceName, engine.unsignedPromotionalOfferID) = ("Free coins", "pro.yearly.comeback")
        #expect(Product.PurchaseOption.engineOptions(Product.PurchaseOption.options(engine)) == engine)
        var withoutCode = engine, withoutPromotion = engine
        (withoutCode.codeOfferReferenceName, withoutPromotion.unsignedPromotionalOfferID) = (nil, nil)
        #expect(withoutCode != engine && withoutPromotion != engine)
    }

    @Test func aTestPurchaseGetsAPromotionalOfferByItsIDWithoutASignature() async throws {
        await #expect(throws: Product.PurchaseError.invalidOfferIdentifier, "that offer is the monthly plan's") {
            try await session.buyProduct(identifier: Self.yearly, options: [.promotionalOffer(id: "pro.monthly.comeback")])
        }
        let back = try await session.buyProduct(identifier: Self.yearly, options: [.promotionalOffer(id: "pro.yearly.comeback")])
        #expect(back.offer?.type == .promotional && back.offer?.id == "pro.yearly.comeback" && back.price == Decimal(string: "19.99"))
        #expect(Product.PurchaseOption.promotionalOffer(id: "x").debugDescription == #"promotionalOffer(id: "x")"#)
    }

    @Test func aSubscribersPromotionalOfferOnTheirOwnPlanAppliesFromTheNextRenewal() async throws {
        let first = try await buy([])
        let signature = try await session.store.signPromotionalOffer(productID: Self.yearly, offerID: "pro.yearly.comeback")
        let offer = Set(Product.PurchaseOption.promotionalOffer("pro.yearly.comeback", compactJWS: signature))
        #expect(try await buy(offer).id == first.id, "nothing is charged now: the current transaction")
        let status = try #require(try await StoreKitSuites.product(Self.yearly).subscription?.status.first)
        guard case .verified(let info) = status.renewalInfo else { Issue.record("unverified"); return }
        #expect(info.offer?.type == .promotional && info.offer?.id == "pro.yearly.comeback" && info.willAutoRenew)
        var updates = Transaction.updates.makeAsyncIterator()
        try session.forceRenewalOfSubscription(productIdentifier: Self.yearly)
        let renewal = try #require(await updates.next()).unsafePayloadValue
        #expect(renewal.offer?.type == .promotional && renewal.offer?.id == "pro.yearly.comeback" && renewal.price == Decimal(string: "19.99"))
        await #expect(throws: Product.PurchaseError.invalidOfferSignature, "its nonce was used") { try await buy(offer) }
    }

    @Test func aPromotionalOfferByIDWithAValidSignatureIsApplied() async throws {
        let first = try await buy([])
        try session.disableAutoRenewForTransaction(identifier: Int(first.id))
        try session.expireSubscription(productIdentifier: Self.yearly)
        let signature = try await session.store.signPromotionalOffer(productID: Self.yearly, offerID: "pro.yearly.comeback")
        let back = try await buy(Set(Product.PurchaseOption.promotionalOffer("pro.yearly.comeback", compactJWS: signature)))
        #expect(back.offer?.type == .promotional && back.offer?.id == "pro.yearly.comeback" && back.price == Decimal(string: "19.99"))
    }

    /// The earlier kind of signature, made by Apple's library (`PromotionalOfferSignatureCreator`) with the team's key,
    /// passed as an app passes its server's answer: key ID, nonce, timestamp and the signature's bytes.
    @Test(.tags(.appleLibrary), .enabled(if: AppleLibraryPython.enabled, "Apple's library is not installed (.venv-apple)"))
    func aPromotionalOfferWithTheEarlierKindOfSignatureIsApplied() async throws {
        let first = try await buy([])
        try session.disableAutoRenewForTransaction(identifier: Int(first.id))
        try session.expireSubscription(productIdentifier: Self.yearly)
        let key = try SigningKey.generate()
        let keyPath = FileManager.default.temporaryDirectory.appendingPathComponent("SubscriptionKey_\(UUID().uuidString).p8").path
        try key.pemRepresentation.write(toFile: keyPath, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: keyPath) }
        try await session.store.registerInAppPurchaseKey(keyID: "LEGACYKEY1", privateKeyPEM: key.pemRepresentation, issuerID: nil)
        let token = UUID()
        let answer = try await AppleLibraryPython.sign([["kind": "legacy", "productId": Self.yearly, "offerId": "pro.yearly.comeback",
                                                         "applicationUsername": token.uuidString.lowercased()]],
                                                       keyPath: keyPath, keyID: "LEGACYKEY1", issuerID: "", bundleID: session.store.catalog.app.bundleID)[0]
        let fields = try #require(try JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any])
        let nonce = try #require((fields["nonce"] as? String).flatMap(UUID.init(uuidString:)))
        let timestamp = try #require((fields["timestamp"] as? NSNumber)?.intValue)
        let signature = try #require((fields["signature"] as? String).flatMap { Data(base64Encoded: $0) })
        let offer = Product.PurchaseOption.promotionalOffer(offerID: "pro.yearly.comeback", keyID: "LEGACYKEY1", nonce: nonce,
                                                            signature: signature, timestamp: timestamp)
        await #expect(throws: Product.PurchaseError.invalidOfferSignature, "signed for another app account token") {
            _ = try await buy([offer, .appAccountToken(UUID())])
        }
        let back = try await buy([offer, .appAccountToken(token)])
        #expect(back.offer?.type == .promotional && back.offer?.id == "pro.yearly.comeback")
    }

    /// Xcode checks promotional-offer signatures against the `.storekit` file's own key pair
    /// (`subscriptionOffersKeyPair`, an 8-character key ID): a signature Apple's library makes with it is accepted.
    @Test(.tags(.appleLibrary), .enabled(if: AppleLibraryPython.enabled, "Apple's library is not installed (.venv-apple)"))
    func aPromotionalOfferSignedWithTheConfigurationFilesKeyIsApplied() async throws {
        let file = Repo.sharedFixtures.appendingPathComponent("storekit/russell-archer+StoreHelperDemo__Products.storekit")
        let session = try SKTestSession(contentsOf: file)
        session.disableDialogs = true
        session.clearTransactions()
        let gold = "com.rarcher.subscription.vip.gold"
        let first = try await StoreKitSuites.buy(gold)
        try session.expireSubscription(productIdentifier: first.productID)  // promotional offers are for existing or lapsed subscribers
        let key = try #require(session.store.catalog.offerSigningKey)
        #expect(key.keyID == "5509FCF1")
        let keyPath = FileManager.default.temporaryDirectory.appendingPathComponent("SubscriptionKey_\(UUID().uuidString).p8").path
        try key.privateKeyPEM.write(toFile: keyPath, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: keyPath) }
        let answer = try await AppleLibraryPython.sign([["kind": "legacy", "productId": gold, "offerId": "vip.gold.xmassale", "applicationUsername": ""]],
                                                       keyPath: keyPath, keyID: key.keyID, issuerID: "", bundleID: session.store.catalog.app.bundleID)[0]
        let fields = try #require(try JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any])
        let offer = Product.PurchaseOption.promotionalOffer(
            offerID: "vip.gold.xmassale", keyID: key.keyID, nonce: try #require((fields["nonce"] as? String).flatMap(UUID.init(uuidString:))),
            signature: try #require((fields["signature"] as? String).flatMap { Data(base64Encoded: $0) }),
            timestamp: try #require((fields["timestamp"] as? NSNumber)?.intValue))
        let back = try await StoreKitSuites.buy(gold, options: [offer])
        #expect(back.offer?.type == .promotional && back.offer?.id == "vip.gold.xmassale")
    }
}
}
