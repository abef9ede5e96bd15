import Foundation
import Testing
import StoreCore
import StoreEngine
import StoreSigning
import StorefrontTestSupport

/// A store selling `Tests/Scenarios/catalogs/billing-plans.json`: Pro Yearly, $29.99 up front or
/// $2.99 a month for a 12-month commitment, each plan with its own intro and promotional offer.
private struct PlanStore {
    static let yearly = "com.lumennotes.pro.yearly"
    static let group = "lumennotes.pro"
    static let catalog = try! CatalogLoader.load(path: Repo.root.appendingPathComponent("Tests/Scenarios/catalogs/billing-plans.json").path)

    let store: LocalAppStore

    init(_ catalog: Catalog = PlanStore.catalog) throws {
        store = try LocalAppStore(catalog: catalog, stateDirectory: nil, time: ManualTime())
    }

    /// The signed transaction of a confirmed purchase, decoded; throws the purchase's error.
    func buy(_ id: String = yearly, _ options: PurchaseOptions = PurchaseOptions()) async throws -> TransactionPayload {
        guard case .success(let jws) = try await store.purchase(id, options: options, answer: .confirm) else { throw StoreFailure.storeKit(.unknown) }
        return try #require(TransactionPayload(json: Self.payload(jws)))
    }

    func latest(_ id: String = yearly) async throws -> TransactionPayload {
        try #require(await store.ledgerEntries().first { $0.payload.productID == id && $0.status == .completed }).payload
    }

    func renewalInfo(_ group: String = group) async throws -> RenewalInfoPayload {
        let status = try #require(try await store.subscriptionStatuses(groupID: group).first)
        return try #require(RenewalInfoPayload(json: Self.payload(status.renewalInfo)))
    }

    /// Subscribes on `plan`, then lets the subscription lapse: a customer promotional offers are for.
    func lapsed(on plan: BillingPlanType) async throws {
        _ = try await buy(Self.yearly, PurchaseOptions(billingPlan: plan))
        try await store.setAutoRenew(productID: Self.yearly, enabled: false)
        try await store.advanceTime(by: Period(14, .month))
    }

    func promotional(_ offerID: String, on plan: BillingPlanType) async throws -> PurchaseOptions {
        let signature = try await store.signPromotionalOffer(productID: Self.yearly, offerID: offerID)
        return PurchaseOptions(promotionalOffer: (offerID, signature), billingPlan: plan)
    }

    static func payload(_ jws: String) throws -> JSONValue {
        try JSONParser.parse(try #require(Base64URL.decode(String(jws.split(separator: ".")[1]))))
    }
}

private func purchaseError(_ body: () async throws -> TransactionPayload) async -> StoreFailure? {
    do { _ = try await body(); return nil } catch { return error as? StoreFailure }
}

@Suite("Billing plans (LocalAppStore)")
struct BillingPlanTests {
    @Test("a purchase that chooses no plan is billed up front, StoreKit's default: the yearly price for a year")
    func upFrontIsTheDefault() async throws {
        let s = try PlanStore()
        let first = try await s.buy()
        #expect(first.billingPlanType == .upFront)
        #expect(first.offerType == .introductory && first.offerPeriod == Period(1, .month))
        try await s.store.advanceTime(by: Period(1, .month))
        let renewal = try await s.latest()
        #expect(renewal.reason == .renewal && renewal.price == Decimal(string: "29.99"))
        #expect(renewal.expirationDate == Period(1, .year).advance(renewal.purchaseDate))
        await s.store.shutdown()
    }

    @Test("the monthly plan charges the monthly price each month, renewing monthly")
    func monthlyPlanRenewsMonthly() async throws {
        var catalog = PlanStore.catalog
        catalog.products[0].subscription?.introductoryOffers = []
        let s = try PlanStore(catalog)
        let first = try await s.buy(PlanStore.yearly, PurchaseOptions(billingPlan: .monthly))
        #expect(first.price == Decimal(string: "2.99") && first.billingPlanType == .monthly && first.offerType == nil)
        #expect(first.expirationDate == Period(1, .month).advance(first.purchaseDate))
        for _ in 1...3 {
            try await s.store.advanceTime(by: Period(1, .month))
            let renewal = try await s.latest()
            #expect(renewal.reason == .renewal && renewal.price == Decimal(string: "2.99") && renewal.billingPlanType == .monthly)
            #expect(renewal.expirationDate == Period(1, .month).advance(renewal.purchaseDate))
        }
        #expect(await s.store.ledgerEntries().count == 4)
        await s.store.shutdown()
    }

    @Test("a monthly payment carries its place in the 12-month commitment (commitmentInfo); the 13th starts a new commitment")
    func monthlyPaymentsCarryTheirCommitment() async throws {
        let s = try PlanStore()
        let first = try await s.buy(PlanStore.yearly, PurchaseOptions(billingPlan: .monthly))
        let commitment = try #require(first.commitment)
        #expect(commitment.billingPeriodNumber == 1 && commitment.totalBillingPeriods == 12 && commitment.priceMilliunits == 35_880)
        #expect(commitment.expiresDate == Period(1, .year).advance(first.purchaseDate))
        try await s.store.advanceTime(by: Period(1, .year))
        let payments = await s.store.ledgerEntries().map(\.payload).filter { $0.productID == PlanStore.yearly }.sorted { $0.transactionID < $1.transactionID }
        #expect(payments.count == 13)
        #expect(payments.compactMap(\.commitment?.billingPeriodNumber) == Array(1...12) + [1])
        #expect(payments.prefix(12).allSatisfy { $0.commitment?.expiresDate == commitment.expiresDate })
        #expect(payments[12].commitment?.expiresDate == Period(1, .year).advance(payments[12].purchaseDate))
        #expect(try await PlanStore().buy().commitment == nil, "up front has no commitment beyond its one payment")
        await s.store.shutdown()
    }

    @Test("a monthly purchase waiting for Ask to Buy completes on its plan, its month and commitment starting at approval")
    func askToBuyKeepsThePlan() async throws {
        let time = ManualTime()
        let store = try LocalAppStore(catalog: PlanStore.catalog, stateDirectory: nil, time: time)
        let outcome = try await store.purchase(PlanStore.yearly, options: PurchaseOptions(simulatesAskToBuy: true, billingPlan: .monthly), answer: .confirm)
        #expect(outcome == .pending(.askToBuy))
        try await store.advanceTime(by: Period(3, .day))
        let pending = try #require(await store.ledgerEntries().first)
        try await store.approveAskToBuy(transactionID: pending.id)
        let approved = try #require(await store.ledgerEntries().first { $0.status == .completed }).payload
        #expect(approved.billingPlanType == .monthly && approved.price == Decimal(string: "0.99"))
        // Both keep their length from the request (as any held purchase's period does), starting at approval.
        func length(_ date: Date?, _ payload: TransactionPayload) -> TimeInterval? { date.map { $0.timeIntervalSince(payload.purchaseDate) } }
        #expect(approved.purchaseDate > pending.payload.purchaseDate)
        #expect(length(approved.expirationDate, approved) == length(pending.payload.expirationDate, pending.payload))
        #expect(length(approved.commitment?.expiresDate, approved) == length(pending.payload.commitment?.expiresDate, pending.payload))
        #expect(approved.commitment?.billingPeriodNumber == 1)
        await store.shutdown()
    }

    @Test("under a oneRenewalEvery… time rate the commitment is twelve of its renewals")
    func commitmentUnderRenewalRate() async throws {
        var catalog = PlanStore.catalog
        catalog.settings.timeRate = .oneRenewalEveryTwoSeconds
        let s = try PlanStore(catalog)
        let first = try await s.buy(PlanStore.yearly, PurchaseOptions(billingPlan: .monthly))
        #expect(first.expirationDate == first.purchaseDate.addingTimeInterval(2))
        #expect(first.commitment?.expiresDate == first.purchaseDate.addingTimeInterval(24))
        await s.store.shutdown()
    }

    @Test("each plan has its own introductory offer: a monthly purchase gets the monthly plan's, never the up-front free month")
    func introductoryOfferOfThePlan() async throws {
        let s = try PlanStore()
        let first = try await s.buy(PlanStore.yearly, PurchaseOptions(billingPlan: .monthly))
        #expect(first.offerType == .introductory && first.offerPaymentMode == .payAsYouGo)
        #expect(first.price == Decimal(string: "0.99") && first.offerPeriod == Period(3, .month))
        // Pay as you go carries the monthly plan's intro over its three months, then the monthly price.
        var prices: [Decimal] = []
        for _ in 1...3 {
            try await s.store.advanceTime(by: Period(1, .month))
            prices.append(try await s.latest().price)
        }
        #expect(prices == [Decimal(string: "0.99")!, Decimal(string: "0.99")!, Decimal(string: "2.99")!])
        await s.store.shutdown()
    }

    @Test("an up-front plan's promotional offer is never applied to a monthly purchase, and vice versa")
    func promotionalOfferOnlyOnItsPlan() async throws {
        let s = try PlanStore()
        try await s.lapsed(on: .monthly)
        let upFrontOffer = try await s.promotional("pro.yearly.comeback", on: .monthly)
        #expect(await purchaseError { try await s.buy(PlanStore.yearly, upFrontOffer) } == .purchase(.invalidOfferIdentifier))
        let monthlyOffer = try await s.promotional("pro.monthly.comeback", on: .upFront)
        #expect(await purchaseError { try await s.buy(PlanStore.yearly, monthlyOffer) } == .purchase(.invalidOfferIdentifier))
        let bought = try await s.buy(PlanStore.yearly, try await s.promotional("pro.monthly.comeback", on: .monthly))
        #expect(bought.offerID == "pro.monthly.comeback" && bought.billingPlanType == .monthly && bought.price == 0)
        await s.store.shutdown()
    }

    @Test("an offer code for the monthly plan subscribes on the monthly plan")
    func offerCodeBuysOnItsPlan() async throws {
        let s = try PlanStore()
        try await s.store.redeem(offerCode: "MONTHLYFREE")
        let redeemed = try await s.latest()
        #expect(redeemed.offerType == .code && redeemed.billingPlanType == .monthly && redeemed.price == 0)
        try await s.store.advanceTime(by: Period(1, .month))
        #expect(try await s.latest().price == Decimal(string: "2.99"))
        await s.store.shutdown()
    }

    @Test("a plan the product does not sell fails with productUnavailable")
    func unsoldPlanIsUnavailable() async throws {
        var catalog = PlanStore.catalog
        catalog.products[0].subscription?.billingPlans[1].isEnabled = false
        let s = try PlanStore(catalog)
        #expect(await purchaseError { try await s.buy(PlanStore.yearly, PurchaseOptions(billingPlan: .monthly)) } == .purchase(.productUnavailable))
        let plain = try PlanStore(Repo.catalog)
        #expect(await purchaseError { try await plain.buy(ID.plusYearly, PurchaseOptions(billingPlan: .monthly)) } == .purchase(.productUnavailable))
        await s.store.shutdown()
        await plain.store.shutdown()
    }

    @Test("billingPlanType is in a transaction only when its product has billing plans")
    func billingPlanTypeOnlyWithPlans() async throws {
        let s = try PlanStore()
        let jws = try #require(try await s.store.purchase(PlanStore.yearly, options: PurchaseOptions(billingPlan: .monthly), answer: .confirm).jws)
        #expect(try PlanStore.payload(jws)["billingPlanType"] == "MONTHLY")
        let plain = try PlanStore(Repo.catalog)
        let other = try #require(try await plain.store.purchase(ID.plusYearly, options: PurchaseOptions(), answer: .confirm).jws)
        #expect(try PlanStore.payload(other)["billingPlanType"] == nil)
        #expect(try await plain.renewalInfo(ID.group).renewalBillingPlanType == nil)
        await s.store.shutdown()
        await plain.store.shutdown()
    }

    @Test("renewal info carries renewalBillingPlanType: the plan the subscription renews on")
    func renewalInfoCarriesThePlan() async throws {
        let s = try PlanStore()
        _ = try await s.buy(PlanStore.yearly, PurchaseOptions(billingPlan: .monthly))
        #expect(try await s.renewalInfo().renewalBillingPlanType == .monthly)
        #expect(try await s.renewalInfo().renewalPriceMilliunits == 990, "the intro's second month")
        let upFront = try PlanStore()
        _ = try await upFront.buy()
        #expect(try await upFront.renewalInfo().renewalBillingPlanType == .upFront)
        #expect(try await upFront.renewalInfo().renewalPriceMilliunits == 29_990)
        await s.store.shutdown()
        await upFront.store.shutdown()
    }

    @Test("Apple's App Store Server Library decodes billingPlanType and renewalBillingPlanType",
          .enabled(if: AppleLibrary.enabled, "Apple's library is not installed: run .ci/run"))
    func appleDecodesBillingPlans() async throws {
        let s = try PlanStore()
        _ = try await s.buy(PlanStore.yearly, PurchaseOptions(billingPlan: .monthly))
        try await s.store.advanceTime(by: Period(1, .month))
        let export = try await s.store.exportSignedData()
        let root = await s.store.certificate.der.base64EncodedString()
        let bundle = PlanStore.catalog.app.bundleID
        let cases = export.transactions.map { AppleLibrary.Case(label: "transaction", kind: "transaction", jws: $0, root: root,
                                                                environment: "Sandbox", bundleId: bundle, appAppleId: nil) }
            + export.renewalInfo.map { AppleLibrary.Case(label: "renewalInfo", kind: "renewalInfo", jws: $0, root: root,
                                                         environment: "Sandbox", bundleId: bundle, appAppleId: nil) }
        #expect(cases.count == 3)
        let reply = try AppleLibrary.run(cases)
        for result in reply.results {
            #expect(result.status == "OK", "\(result.label): \(result.status) \(result.cause ?? "")")
            #expect(result.unknownEnums.isEmpty && result.unknownFields.isEmpty, "\(result.label): \(result.unknownEnums) \(result.unknownFields)")
        }
        await s.store.shutdown()
    }
}

private extension PurchaseOutcome {
    var jws: String? { if case .success(let jws) = self { jws } else { nil } }
}
