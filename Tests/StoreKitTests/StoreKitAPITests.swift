import Foundation
import Observation
@_spi(Storefront) import StoreKit
@testable import StoreKitTest
import StoreEngine
import StorefrontTestSupport
import Testing
import Locking

/// Apple's StoreKit API, member by member, over a session on Apple's own SKDemo configuration.
extension StoreKitSuites {
@Suite("StoreKit API")
struct StoreKitAPITests {
    let session: SKTestSession
    init() throws { session = try StoreKitSuites.freshSession() }
    func product(_ id: String) async throws -> Product { try await StoreKitSuites.product(id) }

    func buy(_ id: String, options: Set<Product.PurchaseOption> = []) async throws -> Transaction {
        try await StoreKitSuites.buy(id, options: options, finishing: false)
    }

    @Test func productShowsTheConfigurationsNamesAndPrices() async throws {
        let car = try await product("nonconsumable.car")
        #expect(car.type == .nonConsumable)
        #expect(car.price == Decimal(string: "1.99"))
        #expect(car.displayPrice == "$1.99")
        #expect(car.price.formatted(car.priceFormatStyle) == "$1.99")
        #expect(!car.displayName.isEmpty)
        #expect(car.subscription == nil)
        let pro = try #require(try await product("subscription.pro").subscription)
        #expect(pro.subscriptionGroupID == (try await product("subscription.standard").subscription?.subscriptionGroupID))
        #expect(pro.subscriptionPeriod.value == 1 && pro.subscriptionPeriod.unit == .month)
        #expect(pro.groupLevel == 1)
        let intro = try #require(pro.introductoryOffer)
        #expect(intro.paymentMode == .payUpFront && intro.displayPrice == "$1.99" && intro.period.unit == .month && intro.period.value == 2)
        #expect(await pro.isEligibleForIntroOffer)
        #expect(try await product("nonRenewing.standard").type == .nonRenewable)
    }

    @Test func purchaseHandsBackAVerifiedTransactionWithTheOptions() async throws {
        let token = UUID()
        let fuel = try await buy("consumable.fuel.octane87", options: [.quantity(3), .appAccountToken(token)])
        #expect(fuel.purchasedQuantity == 3 && fuel.appAccountToken == token && fuel.productType == .consumable)
        #expect(fuel.ownershipType == .purchased && fuel.reason == .purchase && fuel.storefront.countryCode == "USA")
        #expect(fuel.price == Decimal(string: "2.97") && fuel.currency?.identifier == "USD")
        let result = try #require(await Transaction.latest(for: fuel.productID))
        #expect(result.jwsRepresentation.split(separator: ".").count == 3)
        #expect(try result.payloadValue == fuel)
        #expect(fuel.jsonRepresentation == result.payloadData)
    }

    @Test func anIntroductoryOfferIsNamedAsSignedInTheTransaction() async throws {
        let pro = try await buy("subscription.pro")
        #expect(pro.offer?.type == .introductory && pro.offer?.paymentMode == .payUpFront)
        #expect(pro.offerPaymentModeStringRepresentation == "PAY_UP_FRONT" && pro.offerPeriodStringRepresentation == "P2M")
        let status = try #require(try await product("subscription.pro").subscription?.status.first)
        #expect(try status.renewalInfo.payloadValue.offer == nil, "the two-month introductory price was paid up front: the renewal has no offer")
        #expect(status.state.localizedDescription == "subscribed")
        #expect(status.transaction.deviceVerification.isEmpty)
    }

    @Test func askToBuyIsPendingUntilApprovedThenArrivesThroughUpdates() async throws {
        session.askToBuyEnabled = true
        #expect(try await product("nonconsumable.car").purchase() == .pending)
        let pending = try #require(session.allTransactions().first)
        #expect(pending.state == .deferred && pending.pendingAskToBuyConfirmation)
        var updates = Transaction.updates.makeAsyncIterator()
        try session.approveAskToBuyTransaction(identifier: pending.identifier)
        let approved = try #require(await updates.next())
        #expect(try approved.payloadValue.productID == "nonconsumable.car")
    }

    @Test func askToBuyDeclinedDeliversNothing() async throws {
        session.askToBuyEnabled = true
        #expect(try await product("nonconsumable.car").purchase() == .pending)
        let pending = try #require(session.allTransactions().first)
        try session.declineAskToBuyTransaction(identifier: pending.identifier)
        #expect(session.allTransactions().first?.state == .failed)
        var entitlements: [Transaction] = []
        for await result in Transaction.currentEntitlements { entitlements.append(result.unsafePayloadValue) }
        #expect(entitlements.isEmpty)
        #expect(throws: SKTestError.self) { try session.approveAskToBuyTransaction(identifier: pending.identifier) }
    }

    @Test func subscriptionStatusFollowsExpiryAndForcedRenewal() async throws {
        let pro = try await product("subscription.pro")
        let first = try await buy(pro.id)
        await first.finish()
        #expect(try await pro.subscription?.status.map(\.state) == [.subscribed])
        #expect(await pro.subscription?.isEligibleForIntroOffer == false)
        try session.forceRenewalOfSubscription(productIdentifier: pro.id)
        let renewed = try #require(await Transaction.latest(for: pro.id)).unsafePayloadValue
        #expect(renewed.id != first.id && renewed.originalID == first.originalID && renewed.reason == .renewal)
        try session.expireSubscription(productIdentifier: pro.id)
        let status = try #require(try await pro.subscription?.status.first)
        #expect(status.state == .expired)
        #expect(try status.renewalInfo.payloadValue.currentProductID == pro.id)
    }

    @Test func aTransactionsSubscriptionStatusIsItsSubscriptionsInItsGroupAndNilForAnythingElse() async throws {
        let pro = try await buy("subscription.pro")
        let status = try #require(await pro.subscriptionStatus)
        #expect(status.state == .subscribed)
        #expect(status.transaction.unsafePayloadValue.originalID == pro.originalID)
        try session.expireSubscription(productIdentifier: pro.productID)
        #expect(await pro.subscriptionStatus?.state == .expired, "the status now, not the one when the transaction was signed")
        #expect(await (try buy("nonconsumable.car")).subscriptionStatus == nil)
    }

    @Test func subscriptionPeriodsCompareWithStoreKitsNamedPeriods() async throws {
        let pro = try #require(try await product("subscription.pro").subscription)
        #expect(pro.subscriptionPeriod == .monthly)
        #expect(pro.subscriptionPeriod != .yearly)
        #expect(try #require(pro.introductoryOffer).period == .everyTwoMonths)
        let named: [Product.SubscriptionPeriod] = [.everyThreeDays, .weekly, .everyTwoWeeks, .monthly, .everyTwoMonths, .everyThreeMonths,
                                                   .everySixMonths, .yearly]
        #expect(named.map(\.debugDescription) == ["3 day", "1 week", "2 week", "1 month", "2 month", "3 month", "6 month", "1 year"])
    }

    @Test func aSubscriptionPeriodsDateRangeIsOnePeriodOnTheCalendar() throws {
        func date(_ text: String) throws -> Date { try Date(text, strategy: .iso8601) }
        let february = try date("2026-02-01T10:00:00Z")
        #expect(Product.SubscriptionPeriod.monthly.dateRange(referenceDate: february) == february..<(try date("2026-03-01T10:00:00Z")))
        let endOfJanuary = try date("2026-01-31T10:00:00Z")
        #expect(Product.SubscriptionPeriod.monthly.dateRange(referenceDate: endOfJanuary).upperBound == (try date("2026-02-28T10:00:00Z")))
        #expect(Product.SubscriptionPeriod.weekly.dateRange(referenceDate: february).upperBound == (try date("2026-02-08T10:00:00Z")))
    }

    @Test func aPeriodUnitsLocalizedDescriptionIsItsCapitalizedName() {
        // Apple's sample code lowercases it after a price: "$4.99/month".
        #expect(Product.SubscriptionPeriod.Unit.allCases.map { $0.localizedDescription.lowercased() } == ["day", "week", "month", "year"])
        #expect(Product.SubscriptionPeriod.Unit.month.localizedDescription == "Month")
    }

    @Test func aSubscriptionPeriodFormatsInAnyDateRangeOrDurationStyleFromItsReferenceDate() throws {
        let february = try #require(Calendar(identifier: .gregorian).date(from: DateComponents(timeZone: .gmt, year: 2026, month: 2, day: 1)))
        #expect(Product.SubscriptionPeriod.monthly.formatted(Bounds(), referenceDate: february) == "2026-02-01…2026-03-01")
        #expect(Product.SubscriptionPeriod.monthly.formatted(.units(allowed: [.days]), referenceDate: february) == "28 days")
        #expect(Product.SubscriptionPeriod.weekly.formatted(.units(allowed: [.days])) == "7 days")
    }

    /// A date-range style that shows what it was given.
    struct Bounds: FormatStyle {
        func format(_ range: Range<Date>) -> String {
            [range.lowerBound, range.upperBound].map { $0.formatted(.iso8601.year().month().day()) }.joined(separator: "…")
        }
    }

    @Test func aProductsJSONRepresentationIsTheAppStoresCatalogEntry() async throws {
        let pro = try await product("subscription.pro")
        let json = try #require(try JSONSerialization.jsonObject(with: pro.jsonRepresentation) as? [String: Any])
        #expect(json["id"] as? String == pro.id && json["type"] as? String == "in-apps")
        #expect(json["href"] as? String == "/v1/catalog/usa/in-apps/\(pro.id)")
        let attributes = try #require(json["attributes"] as? [String: Any])
        #expect(attributes["kind"] as? String == "Auto-Renewable Subscription" && attributes["offerName"] as? String == pro.id)
        #expect(attributes["name"] as? String == pro.displayName && attributes["icuLocale"] as? String == "en_US@currency=USD")
        #expect((attributes["description"] as? [String: Any])?["standard"] as? String == pro.description)
        #expect(attributes["subscriptionFamilyId"] as? String == pro.subscription?.subscriptionGroupID)
        #expect(attributes["subscriptionFamilyRank"] as? Int == 1 && attributes["isFamilyShareable"] as? Int == 0)
        let offer = try #require((attributes["offers"] as? [[String: Any]])?.first)
        #expect(offer["currencyCode"] as? String == "USD" && offer["priceFormatted"] as? String == pro.displayPrice)
        #expect(offer["price"] as? String == "\(pro.price)" && offer["recurringSubscriptionPeriod"] as? String == "P1M")
        let intro = try #require((offer["discounts"] as? [[String: Any]])?.first)
        #expect(intro["type"] as? String == "IntroOffer" && intro["modeType"] as? String == "PayUpFront")
        #expect(intro["priceFormatted"] as? String == "$1.99" && intro["recurringSubscriptionPeriod"] as? String == "P2M")
        #expect(pro.debugDescription == String(decoding: pro.jsonRepresentation, as: UTF8.self))

        let car = try #require(try JSONSerialization.jsonObject(with: try await product("nonconsumable.car").jsonRepresentation) as? [String: Any])
        let carAttributes = try #require(car["attributes"] as? [String: Any])
        #expect(carAttributes["kind"] as? String == "Non-Consumable" && carAttributes["subscriptionFamilyId"] == nil)
        let carOffer = try #require((carAttributes["offers"] as? [[String: Any]])?.first)
        #expect(carOffer["price"] as? String == "1.99" && carOffer["discounts"] == nil && carOffer["recurringSubscriptionPeriod"] == nil)
    }

    @Test func errorsReadAsStoreKitSaysThem() {
        #expect(StoreKitError.unknown.localizedDescription == "Unable to Complete Request")
        #expect(Product.PurchaseError.productUnavailable.localizedDescription == "Item Unavailable")
        #expect(!Transaction.RevocationReason.developerIssue.localizedDescription.isEmpty)
        #expect(Transaction.RevocationReason.developerIssue.localizedDescription != Transaction.RevocationReason.other.localizedDescription)
    }

    @Test func aPeriodAndItsUnitFormatInTheProductsLocale() async throws {
        let pro = try await product("subscription.pro")
        let period = try #require(pro.subscription?.subscriptionPeriod)
        #expect("\(pro.displayPrice)/\(period.unit.formatted(pro.subscriptionPeriodUnitFormatStyle))" == "$4.99/month")
        #expect(Product.SubscriptionPeriod.Unit.year.formatted(pro.subscriptionPeriodUnitFormatStyle.locale(Locale(identifier: "de_DE"))) == "Jahr")
        #expect(period.formatted(pro.subscriptionPeriodFormatStyle) == "1 month")
        let january31 = Date(timeIntervalSince1970: 1_769_817_600)  // 2026-01-31: a month ends on the last day of February
        #expect(period.formatted(pro.subscriptionPeriodFormatStyle, referenceDate: january31) == "1 month")
        #expect(Product.SubscriptionPeriod.everyTwoWeeks.formatted(pro.subscriptionPeriodFormatStyle) == "2 weeks")
        #expect(Product.SubscriptionPeriod.everyThreeDays.formatted(pro.subscriptionPeriodFormatStyle.locale(Locale(identifier: "de_DE"))) == "3 Tage")
    }

    @Test func customPurchaseOptionsAreSentAndChangeNothing() async throws {
        let options: Set<Product.PurchaseOption> = [.custom(key: "source", value: "paywall"), .custom(key: "score", value: 0.5),
                                                   .custom(key: "returning", value: true), .custom(key: "payload", value: Data([1, 2]))]
        #expect(options.count == 4)
        #expect(Product.PurchaseOption.custom(key: "source", value: "paywall").debugDescription == #"custom(key: "source", value: "paywall")"#)
        #expect(Product.PurchaseOption.quantity(3).debugDescription == "quantity(3)")
        let fuel = try await buy("consumable.fuel.octane87", options: options.union([.quantity(2)]))
        #expect(fuel.purchasedQuantity == 2 && fuel.price == Decimal(string: "1.98"))
    }

    @Test func aStorefrontChangeDuringThePurchaseEndsItWhenTheAppSaysSo() async throws {
        let car = try await product("nonconsumable.car")
        let asked = Locked<[String]>([])
        let refuse = Product.PurchaseOption.onStorefrontChange { storefront in asked.withLock { $0.append(storefront.countryCode) }; return false }
        let moving = UIWindowScene { [session] _ in session.storefront = "FRA"; return .confirm }
        await #expect(throws: Product.PurchaseError.productUnavailable) { try await car.purchase(confirmIn: moving, options: [refuse]) }
        #expect(asked.withLock { $0 } == ["FRA"], "asked once, with the storefront the customer moved to")
        #expect(await Transaction.latest(for: car.id) == nil, "nothing was charged")

        session.storefront = "USA"
        let goOn = Product.PurchaseOption.onStorefrontChange { _ in true }
        guard case .success(.verified(let bought)) = try await car.purchase(confirmIn: moving, options: [goOn]) else {
            Issue.record("the purchase did not go on in the new storefront"); return
        }
        #expect(bought.storefront.countryCode == "FRA")

        session.clearTransactions()
        guard case .success = try await car.purchase(confirmIn: UIWindowScene(), options: [refuse]) else {
            Issue.record("a purchase whose storefront stayed was refused"); return
        }
        #expect(asked.withLock { $0 } == ["FRA"], "no change, no question")
    }

    @Test func theAgeRatingCodeIsTheCatalogAppsAndNilWithoutOne() async throws {
        #expect(await AppStore.ageRatingCode == nil, "Apple's SKDemo configuration gives none")
        var catalog = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: Repo.root.appendingPathComponent("catalog.json"))) as? [String: Any])
        var app = try #require(catalog["app"] as? [String: Any])
        app["ageRatingCode"] = 300
        catalog["app"] = app
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("age-rating-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: catalog).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let rated = try SKTestSession(contentsOf: file)
        #expect(await AppStore.ageRatingCode == 300)
        withExtendedLifetime(rated) {}
    }

    @Test func buyProductMakesThePurchaseWithTheOptionsGiven() async throws {
        let token = UUID()
        let fuel = try await session.buyProduct(identifier: "consumable.fuel.octane87", options: [.quantity(4), .appAccountToken(token)])
        #expect(fuel.purchasedQuantity == 4 && fuel.appAccountToken == token)
        #expect(fuel.price == Decimal(string: "3.96"))
    }

    @Test func aPurchaseDateInThePastRenewsTheSubscriptionFromThenUntilNow() async throws {
        session.timeRate = .realTime  // the configuration's rate would make it a renewal every few seconds since
        let then = Date.now.addingTimeInterval(-95 * 86_400)
        let bought = try await session.buyProduct(identifier: "subscription.standard", options: [.purchaseDate(then)])
        #expect(abs(bought.purchaseDate.timeIntervalSince(then)) < 1)
        let chain = session.allTransactions().filter { $0.productIdentifier == "subscription.standard" }
        #expect(chain.count == 4, "the purchase 95 days ago and three monthly renewals since")
        let latest = try #require(await Transaction.latest(for: "subscription.standard")).unsafePayloadValue
        #expect(latest.originalID == bought.id && latest.reason == .renewal)
        #expect(abs(latest.originalPurchaseDate.timeIntervalSince(then)) < 1)
        #expect(try #require(latest.expirationDate) > .now)
        #expect(await latest.subscriptionStatus?.state == .subscribed)
    }

    @Test func cancelImmediatelyLeavesABackdatedSubscriptionOnePeriodLong() async throws {
        session.timeRate = .realTime
        let then = Date.now.addingTimeInterval(-45 * 86_400)
        let bought = try await session.buyProduct(identifier: "subscription.premium",
                                                  options: [.purchaseDate(then, renewalBehavior: .cancelImmediately)])
        #expect(session.allTransactions().filter { $0.productIdentifier == "subscription.premium" }.count == 1)
        let status = try #require(await bought.subscriptionStatus)
        #expect(status.state == .expired)
        #expect(try status.renewalInfo.payloadValue.willAutoRenew == false)
    }

    @Test func aPurchaseDateInTheFutureIsRefused() async throws {
        let tomorrow = Date.now.addingTimeInterval(86_400)
        await #expect(throws: SKTestError.self) {
            try await session.buyProduct(identifier: "subscription.standard", options: [.purchaseDate(tomorrow)])
        }
        #expect(session.allTransactions().isEmpty)
        let standard = try await product("subscription.standard")
        await #expect(throws: (any Error).self) { _ = try await standard.purchase(options: [.purchaseDate(tomorrow)]) }
    }

    @Test func aPurchaseDateIsRefusedWhereThePurchaseCannotStartThen() async throws {
        session.timeRate = .realTime
        let monthAgo = Date.now.addingTimeInterval(-30 * 86_400)
        func refusal(_ product: String, _ options: Set<Product.PurchaseOption>) async -> String? {
            do { try await session.buyProduct(identifier: product, options: options); return nil } catch { return "\(error)" }
        }
        session.askToBuyEnabled = true
        let standard = try await product("subscription.standard")
        await #expect(throws: (any Error).self, "the app's purchase would wait for approval") {
            _ = try await standard.purchase(options: [.purchaseDate(monthAgo)])
        }
        #expect(session.allTransactions().isEmpty, "nothing held either")
        session.askToBuyEnabled = false
        _ = try await session.buyProduct(identifier: "subscription.standard")
        #expect(await refusal("subscription.premium", [.purchaseDate(monthAgo)])?.contains("is subscribed") == true, "a dated purchase is no plan change")
        try session.expireSubscription(productIdentifier: "subscription.standard")
        #expect(await refusal("subscription.standard", [.purchaseDate(monthAgo)])?.contains("before the group's last subscription ended") == true)
        session.clearTransactions()
        session.timeRate = .monthlyRenewalEveryThirtySeconds
        let message = await refusal("subscription.standard", [.purchaseDate(monthAgo)])
        #expect(message?.contains("more than 1000 renewals") == true && message?.contains(".realTime") == true, "\(message ?? "bought")")
        #expect(session.allTransactions().isEmpty, "nothing refused was bought")
    }

    @Test func aPurchaseDateAppliesToTheAppsOwnPurchaseToo() async throws {
        let then = Date.now.addingTimeInterval(-10 * 86_400)
        let car = try await buy("nonconsumable.car", options: [.purchaseDate(then)])
        #expect(abs(car.purchaseDate.timeIntervalSince(then)) < 1)
    }

    @Test func statusAllGivesEachGroupTheCustomerIsInOnceThenEnds() async throws {
        _ = try await buy("subscription.standard")
        var groups: [(groupID: String, statuses: [Product.SubscriptionInfo.Status])] = []
        for await group in Product.SubscriptionInfo.Status.all { groups.append(group) }
        let standard = try #require(try await product("subscription.standard").subscription)
        #expect(groups.map(\.groupID) == [standard.subscriptionGroupID])
        #expect(groups.first?.statuses.map(\.state) == [.subscribed])
        #expect(groups.first?.statuses.first?.transaction.unsafePayloadValue.productID == "subscription.standard")
    }

    @Test func aSharedLedgerOutOfReachIsServiceUnavailable() {
        let error = SKTestError.from(LedgerError.unreachable(path: "postgresql://team-store/ledger", detail: "connection refused")) as? SKTestError
        #expect(error?.code == .serviceUnavailable)
        #expect(error?.message.contains("team-store") == true)
    }

    @Test func aPurchaseMadeOutsideTheAppArrivesThroughUpdates() async throws {
        var updates = Transaction.updates.makeAsyncIterator()
        let bought = try await session.buyProduct(identifier: "nonconsumable.racecar")
        #expect(await updates.next()?.unsafePayloadValue.id == bought.id)
    }

    @Test func restoreSyncsAndEntitlementsComeBack() async throws {
        await (try await buy("nonconsumable.utilityvehicle")).finish()
        try await AppStore.sync()
        var restored: [String] = []
        for await result in Transaction.currentEntitlements { restored.append(try result.payloadValue.productID) }
        #expect(restored == ["nonconsumable.utilityvehicle"])
    }

    @Test func simulatedErrorsAreThrownWhereStoreKitThrowsThem() async throws {
        try await session.setSimulatedError(.generic(.networkError(URLError(.cannotConnectToHost))), forAPI: .loadProducts)
        await #expect(throws: StoreKitError.self) { try await Product.products(for: ["nonconsumable.car"]) }
        #expect(await session.simulatedError(forAPI: .loadProducts) != nil)
        try await session.setSimulatedError(nil, forAPI: .loadProducts)
        let car = try await product("nonconsumable.car")
        try await session.setSimulatedError(.purchase(.purchaseNotAllowed), forAPI: .purchase)
        await #expect(throws: Product.PurchaseError.purchaseNotAllowed) { try await car.purchase() }
        try await session.setSimulatedError(.generic(.userCancelled), forAPI: .purchase)
        #expect(try await car.purchase() == .userCancelled)
        try await session.setSimulatedError(nil, forAPI: .purchase)
        try await session.setSimulatedError(.generic(.networkError(URLError(.notConnectedToInternet))), forAPI: .appStoreSync)
        await #expect(throws: StoreKitError.self) { try await AppStore.sync() }
        #expect(await session.simulatedError(forAPI: .appStoreSync) == .generic(.networkError(URLError(.notConnectedToInternet))))
    }

    @Test func aSimulatedVerificationFailureComesBackUnverified() async throws {
        try await session.setSimulatedError(.verification(.invalidSignature), forAPI: .verification)
        let result = try await product("nonconsumable.car").purchase()
        guard case .success(.unverified(let transaction, let error)) = result else { Issue.record("\(result)"); return }
        #expect(error == .invalidSignature && transaction.productID == "nonconsumable.car")
        #expect(throws: VerificationResult<Transaction>.VerificationError.invalidSignature) { try VerificationResult.unverified(transaction, error).payloadValue }
    }

    @Test func appTransactionAndStorefrontAreTheStores() async throws {
        let app = try await AppTransaction.shared.payloadValue
        #expect(!app.bundleID.isEmpty && !app.originalAppVersion.isEmpty)
        #expect(app.debugDescription.contains("\"bundleId\":\"\(app.bundleID)\""), "its debug description is its signed JSON")
        #expect(await Storefront.current?.countryCode == "USA")
        session.storefront = "FRA"
        #expect(await Storefront.current?.countryCode == "FRA")
        #expect(try await product("nonconsumable.car").displayPrice.contains("€"))
        session.resetToDefaultState()
        #expect(session.storefront == "USA")
        let watching = Task {
            var changes = Storefront.updates.makeAsyncIterator()
            return await changes.next()?.countryCode
        }
        // Changed a few times: the watcher may start looking after the first change.
        for code in ["JPN", "GBR", "JPN", "GBR", "JPN", "GBR"] {
            session.storefront = code
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(["JPN", "GBR"].contains(await watching.value))
    }

    @Test func sessionSettingsReadBackAndReset() throws {
        session.interruptedPurchasesEnabled = true
        session.timeRate = .oneRenewalEveryTwoSeconds
        #expect(session.interruptedPurchasesEnabled && session.timeRate == .oneRenewalEveryTwoSeconds)
        session.resetToDefaultState()
        #expect(!session.interruptedPurchasesEnabled && session.timeRate == .monthlyRenewalEveryThirtySeconds)
    }

    @Test func theSandboxsAskToBuyOptionIsIgnoredInXcodesTestEnvironment() async throws {
        guard case .success(.verified(let car)) = try await product("nonconsumable.car").purchase(options: [.simulatesAskToBuyInSandbox(true)]) else {
            Issue.record("the purchase was held"); return
        }
        #expect(car.environment == .xcode)
    }

    @Test func theTestEnvironmentSignsInTheXcodeEnvironment() async throws {
        let car = try await session.buyProduct(identifier: "nonconsumable.car")
        #expect(car.environment == .xcode)
        #expect(try await buy("consumable.fuel.octane87").environment == .xcode)
        #expect(try await AppTransaction.shared.unsafePayloadValue.environment == .xcode)
    }

    @Test func everySessionControlsTheOneTestEnvironment() async throws {
        let car = try await buy("nonconsumable.car")
        let updates = Transaction.updates
        let again = try SKTestSession(contentsOf: StoreKitSuites.configuration)
        #expect(again.allTransactions().map(\.identifier) == [UInt(car.id)], "the purchase made under the first session")
        again.askToBuyEnabled = true
        #expect(session.askToBuyEnabled, "one environment, one setting")
        again.askToBuyEnabled = false
        let fuel = try await again.buyProduct(identifier: "consumable.fuel.octane87")
        #expect(await first(updates) { $0.unsafePayloadValue.id == fuel.id } != nil, "a listener from before the second session hears its purchase")
        again.clearTransactions()
        #expect(session.allTransactions().isEmpty)
    }

    /// flutter/packages' StoreKit 2 plugin tests, run on Xcode: "id should always be 0 as it is the first purchase",
    /// after earlier tests' purchases and a `clearTransactions()` in each setup.
    @Test func xcodesTestEnvironmentNumbersTransactionsFromZeroAndAgainAfterAClear() async throws {
        #expect(try await buy("nonconsumable.car").id == 0)
        #expect(try await buy("consumable.fuel.octane87").id == 1)
        #expect(session.allTransactions().map(\.identifier).sorted() == [0, 1])
        session.clearTransactions()
        let fuel = try await buy("consumable.fuel.octane87")
        #expect(fuel.id == 0 && fuel.originalID == 0)
        #expect(await Transaction.all.contains { $0.unsafePayloadValue.id == 0 }, "the app finds it by its ID")
        await fuel.finish()
        #expect(await Transaction.unfinished.first { _ in true } == nil)
    }

    @Test func aCatalogSessionNumbersTransactionsAsTheAppStoreDoes() async throws {
        let catalogSession = try SKTestSession(contentsOf: Repo.root.appendingPathComponent("catalog.json"))
        catalogSession.clearTransactions()
        let coins = try await catalogSession.buyProduct(identifier: "com.lumenquest.coins.100")
        #expect(coins.id > 2_000_000_000)
    }

    @Test func updatesBegunBeforeAnySessionHearTheSessionsPurchases() async throws {
        StoreKitRuntime.install(nil)
        let heard = Task { await first(Transaction.updates, within: 10) { $0.unsafePayloadValue.productID == "nonconsumable.car" } }
        let waiting = await eventually { StoreKitRuntime.waitingListeners == 1 }
        #expect(waiting, "the listener waits for a store rather than ending")
        let session = try StoreKitSuites.freshSession()
        let car = try await session.buyProduct(identifier: "nonconsumable.car")
        #expect(await heard.value?.unsafePayloadValue.id == car.id)
        #expect(StoreKitRuntime.waitingListeners == 0)
    }

    @Test func updatesMoveToTheStoreOfASessionOnAnotherConfiguration() async throws {
        let heard = Task { await first(Transaction.updates, within: 10) { $0.unsafePayloadValue.productID.hasPrefix("com.rarcher.") } }
        let car = try await buy("nonconsumable.car")
        let other = try SKTestSession(contentsOf: StoreKitSuites.configuration.deletingLastPathComponent()
            .appendingPathComponent("russell-archer+StoreHelperDemo__Products.storekit"))
        other.clearTransactions()
        #expect(other.allTransactions().isEmpty, "another configuration, another store: \(car.id) is not in it")
        let flowers = try await other.buyProduct(identifier: "com.rarcher.nonconsumable.flowers.large")
        #expect(await heard.value?.unsafePayloadValue.id == flowers.id, "the app's listener from before hears the new store")
    }

    @Test func subscriptionStatusUpdatesBegunBeforeAnySessionHearTheSessionsSubscription() async throws {
        StoreKitRuntime.install(nil)
        let heard = Task { await first(Product.SubscriptionInfo.Status.updates, within: 10) { $0.state == .subscribed } }
        #expect(await eventually { StoreKitRuntime.waitingListeners == 1 })
        let session = try StoreKitSuites.freshSession()
        let pro = try await session.buyProduct(identifier: "subscription.pro")
        #expect(await heard.value?.transaction.unsafePayloadValue.id == pro.id)
    }

    @Test func aListenerWaitingForAStoreEndsWhenItsTaskIsCancelled() async throws {
        StoreKitRuntime.install(nil)
        let listener = Task { await first(Transaction.updates, within: 60) { _ in true } }
        #expect(await eventually { StoreKitRuntime.waitingListeners == 1 })
        listener.cancel()
        #expect(await listener.value == nil)
        #expect(StoreKitRuntime.waitingListeners == 0, "its wait is withdrawn")
    }

    @Test func aForcedRenewalFailsIntoBillingRetryOrGraceWhenRenewalsAreSetToFail() async throws {
        let pro = try await product("subscription.pro")
        let first = try await buy(pro.id)
        session.shouldEnterBillingRetryOnRenewal = true
        try session.forceRenewalOfSubscription(productIdentifier: pro.id)
        #expect(try await pro.subscription?.status.first?.state == .inBillingRetryPeriod)
        #expect(try await pro.subscription?.status.first?.renewalInfo.payloadValue.isInBillingRetry == true)
        #expect(await Transaction.latest(for: pro.id)?.unsafePayloadValue.id == first.id, "no renewal was charged")
        let issue = try #require(session.allTransactions().first { $0.hasPurchaseIssue })
        #expect(issue.identifier == UInt(first.id))

        session.shouldEnterBillingRetryOnRenewal = false
        try session.resolveIssueForTransaction(identifier: UInt(first.id))
        #expect(try await pro.subscription?.status.first?.state == .subscribed)
        let renewed = try #require(await Transaction.latest(for: pro.id)).unsafePayloadValue
        #expect(renewed.id != first.id && renewed.originalID == first.originalID && renewed.reason == .renewal)
        #expect(!session.allTransactions().contains { $0.hasPurchaseIssue })

        session.shouldEnterBillingRetryOnRenewal = true
        session.billingGracePeriodIsEnabled = true
        try session.forceRenewalOfSubscription(productIdentifier: pro.id)
        let status = try #require(try await pro.subscription?.status.first)
        #expect(status.state == .inGracePeriod)
        #expect(try status.renewalInfo.payloadValue.gracePeriodExpirationDate != nil)
        #expect(await Transaction.currentEntitlements(for: pro.id).contains { _ in true }, "still entitled in the grace period")
    }

    @Test func aTestTransactionShowsItsRefundAndAPriceIncreaseWaitingAndComparesByIdentity() async throws {
        let car = try await buy("nonconsumable.car")
        let pro = try await buy("subscription.pro")
        try session.requestPriceIncreaseConsentForTransaction(identifier: UInt(pro.id))
        try session.refundTransaction(identifier: UInt(car.id))
        let transactions = session.allTransactions()
        let (refunded, subscribed) = (try #require(transactions.first { $0.identifier == UInt(car.id) }), try #require(transactions.first { $0.identifier == UInt(pro.id) }))
        #expect(refunded.cancelDate != nil && subscribed.cancelDate == nil)
        #expect(subscribed.isPendingPriceIncreaseConsent && !refunded.isPendingPriceIncreaseConsent)
        #expect(Set(transactions).count == transactions.count && refunded == refunded && refunded != subscribed)
        try session.consentToPriceIncreaseForTransaction(identifier: UInt(pro.id))
        #expect(session.allTransactions().allSatisfy { !$0.isPendingPriceIncreaseConsent })
    }

    @Test func aMissingConfigurationFileNamesWhereItLooked() throws {
        #expect { try SKTestSession(configurationFileNamed: "NoSuchConfiguration") } throws: { error in
            (error as? SKTestError)?.code == .fileNotFound && "\(error)".contains("NoSuchConfiguration.storekit")
        }
        #expect(throws: SKTestError.self) { try session.refundTransaction(identifier: 424242) }
    }
}
}

/// Apple's sample store classes, as they are written: `ObservableObject` with `@Published`, and `@Observable`.
@Suite("Observation of a store class")
struct StoreObservationTests {
    final class LegacyStore: ObservableObject {
        @Published var purchased: [String] = []
    }

    @Observable final class ModernStore {
        var purchased: [String] = []
    }

    @Test func publishedAnnouncesChangesThroughObjectWillChange() {
        let store = LegacyStore()
        var announced = 0
        let subscription = store.objectWillChange.sink { announced += 1 }
        store.purchased.append("nonconsumable.car")
        store.purchased = []
        #expect(announced == 2)
        subscription.cancel()
        store.purchased = ["x"]
        #expect(announced == 2)
    }

    @Test func observableTracksAccessAndChange() {
        let store = ModernStore()
        let changed = Locked(false)
        withObservationTracking { _ = store.purchased } onChange: { changed.withLock { $0 = true } }
        store.purchased.append("nonconsumable.car")
        #expect(changed.withLock { $0 })
    }
}
