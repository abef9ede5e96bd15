import Foundation
import StoreCore
import StoreEngine
import StoreClient

/// What one step did. Expectations carry what was expected and what was found.
public struct StepResult: Sendable, Equatable {
    public enum Outcome: String, Sendable { case passed, failed, skipped }
    public var step: ScenarioStep
    public var outcome: Outcome
    public var expected: String?
    public var actual: String?
    /// For actions: what came of it (a purchase result) or why it could not be done.
    public var note: String?

    public var passed: Bool { outcome != .failed }
}

public struct ScenarioResult: Sendable {
    public var scenario: Scenario
    public var steps: [StepResult]
    public var catalogPath: String
    public var storefront: String
    /// Set when the scenario could not start (catalog, state directory).
    public var setupError: String?
    public var duration: TimeInterval

    public var passed: Bool { setupError == nil && steps.allSatisfy(\.passed) }
}

/// Runs a scenario against a LocalAppStore and the app's StoreManager, one step at a time. It drives
/// the store only through `StoreTestControls` and the app only through `StoreManager`, and never prints:
/// `storefront run` prints its results, and a walk mode can call `perform` / `check` step by step.
public actor ScenarioRunner {
    public let scenario: Scenario
    let catalog: Catalog
    let storefront: String?
    let locale: String?
    let directory: String
    let ownsDirectory: Bool
    var store: LocalAppStore?
    var manager: StoreManager?
    var appRunning = false
    var lastResult: PurchaseResult?

    /// How long an expectation may wait for updates to arrive.
    public private(set) var patience: Duration = .seconds(2)
    public func setPatience(_ value: Duration) { patience = value }

    /// `stateDirectory` nil: a fresh temporary one, removed by `close()` (a directory, not memory, so `restart` has state to reopen).
    public init(scenario: Scenario, catalog: Catalog, storefront: String? = nil, locale: String? = nil, stateDirectory: String? = nil) {
        self.scenario = scenario
        self.catalog = catalog
        self.storefront = storefront
        self.locale = locale
        self.directory = stateDirectory ?? NSTemporaryDirectory() + "storefront-scenario-" + UUID().uuidString
        self.ownsDirectory = stateDirectory == nil
    }

    /// Opens the store and launches the app.
    public func start() async throws {
        let store = try LocalAppStore(catalog: catalog, stateDirectory: directory, storefront: storefront, locale: locale)
        // Headless: no artificial network delay.
        await store.update { $0.networkDelay = 0 }
        self.store = store
        try await launch()
    }

    public func close() async {
        await manager?.stop()
        await store?.shutdown()
        if ownsDirectory { try? FileManager.default.removeItem(atPath: directory) }
    }

    /// Runs every step; after an action fails, the rest are skipped.
    public func run(onStep: @Sendable (StepResult) -> Void = { _ in }) async -> ScenarioResult {
        let started = Date()
        var results: [StepResult] = []
        var setupError: String?
        do { try await start() } catch { setupError = "cannot open the store: \(error)" }
        var stopped = setupError != nil
        for step in scenario.steps {
            let result = stopped ? StepResult(step: step, outcome: .skipped) : await perform(step)
            if case .action = step.kind, result.outcome == .failed { stopped = true }
            results.append(result)
            onStep(result)
        }
        let code = await store?.storefront().code ?? storefront ?? "?"
        await close()
        return ScenarioResult(scenario: scenario, steps: results, catalogPath: scenario.catalogPath ?? "", storefront: code,
                              setupError: setupError, duration: Date().timeIntervalSince(started))
    }

    /// Performs one step; an expectation waits up to `patience` for updates to arrive.
    public func perform(_ step: ScenarioStep) async -> StepResult {
        switch step.kind {
        case .action(let action):
            do {
                let note = try await perform(action)
                await settle()
                return StepResult(step: step, outcome: .passed, note: note)
            } catch {
                return StepResult(step: step, outcome: .failed, note: "\(error)")
            }
        case .expect(let expectation):
            let clock = ContinuousClock()
            let deadline = clock.now + patience
            var (passed, actual) = await check(expectation)
            while !passed && clock.now < deadline {
                try? await Task.sleep(for: .milliseconds(20))
                await store?.tick()
                await manager?.refresh()
                (passed, actual) = await check(expectation)
            }
            return StepResult(step: step, outcome: passed ? .passed : .failed, expected: expectation.expected, actual: actual)
        }
    }

    // MARK: Actions

    func perform(_ action: ScenarioAction) async throws -> String? {
        guard let store, let manager else { throw TestControlError("the store is not open") }
        switch action {
        case .storefront(let code, let locale):
            try await store.setStorefront(code, locale: locale)
            await manager.loadProducts() // as an app does on Storefront.updates
        case .set(let toggle, let on):
            await store.update { s in
                switch toggle {
                case .askToBuy: s.askToBuy = on
                case .interruptedPurchases: s.interruptedPurchases = on
                case .billingRetry: s.billingRetryOnRenewal = on
                case .gracePeriod: s.gracePeriod = on
                case .invalidSignatures: s.invalidSignatures = on
                case .autoApproveRefunds: s.autoApproveRefunds = on
                }
            }
        case .timeRate(let rate):
            await store.setTimeRate(rate)
        case .fail(let api, let failure):
            await store.update { $0.failures[api] = failure }
        case .buy(let id, let quantity, let offer, let signature, let askToBuy, let answer):
            var options = PurchaseOptions(quantity: quantity, simulatesAskToBuy: askToBuy)
            if let offer {
                if catalog.product(id)?.subscription?.winBackOffers.contains(where: { $0.id == offer }) == true {
                    options.winBackOfferID = offer
                } else {
                    // The developer's server signs the offer; an unknown offer gets a signature the store will reject.
                    let signed = (try? await store.signPromotionalOffer(productID: id, offerID: offer)) ?? "unsigned"
                    options.promotionalOffer = (offer, [.valid: signed, .invalid: "not.a.signature"][signature])
                }
            }
            lastResult = await manager.purchase(id, options: options, answer: answer)
            return lastResult.map(Self.describe)
        case .restore:
            await manager.restore()
        case .refresh:
            await manager.refresh()
        case .redeem(let code):
            return await manager.redeem(offerCode: code).map { "rejected: \($0.name)" } ?? "accepted"
        case .requestRefund(let id):
            let history = await manager.snapshot.history.compactMap(\.payload)
            guard let t = history.first(where: { $0.productID == id && !$0.isRevoked }) else {
                throw TestControlError("the app has no transaction for \(id) to request a refund for")
            }
            if case .failure(let failure) = await manager.requestRefund(transactionID: t.transactionID, reason: "scenario") {
                return "failed: \(failure.name)"
            }
        case .quit:
            try await quit()
        case .launch:
            try await launch()
        case .restart:
            if appRunning { try await quit() }
            try await reopenStore()
            try await launch()
        case .control(let control, let id):
            try await perform(control, id, store)
        case .refund(let id, let prorated):
            let t = try await entry(id) { $0.status == .completed && !$0.payload.isRevoked && $0.payload.ownership == .purchased }
            try await store.refund(transactionID: t.id, prorated: prorated)
        case .autoRenew(let id, let on):
            try await store.setAutoRenew(productID: id, enabled: on)
        case .priceIncrease(let id, .request):
            try await store.requestPriceIncrease(productID: id)
        case .priceIncrease(let id, let answer):
            try await store.respondToPriceIncrease(productID: id, agree: answer == .agree)
        case .buyElsewhere(let id, let family):
            try await store.buyOutsideApp(productID: id, familyShared: family)
        case .advance(let period):
            try await store.advanceTime(by: period)
        case .originalApp(let version, let platform, let date):
            try await store.setOriginalApp(version: version, purchaseDate: date, platform: platform)
            await manager.loadAppTransaction()
        case .manage(let group, let action):
            if let failure = await manager.manageSubscription(groupID: group, action) { return "failed: \(failure.name)" }
        case .clear:
            try await store.clearTransactions()
        case .reset:
            try await store.reset()
            await store.update { $0.networkDelay = 0 }
        }
        return nil
    }

    func perform(_ control: ScenarioAction.Control, _ id: String, _ store: LocalAppStore) async throws {
        switch control {
        case .approve: try await store.approveAskToBuy(transactionID: entry(id) { $0.status == .pendingApproval }.id)
        case .decline: try await store.declineAskToBuy(transactionID: entry(id) { $0.status == .pendingApproval }.id)
        case .resolve: try await store.resolveInterruptedPurchase(transactionID: entry(id) { $0.status == .interrupted }.id)
        case .revokeFamily:
            try await store.revokeFamilySharing(transactionID: entry(id) {
                $0.status == .completed && !$0.payload.isRevoked && $0.payload.ownership == .familyShared
            }.id)
        case .approveRefund: try await store.decideRefundRequest(transactionID: entry(id) { $0.refundRequest == .pending }.id, approve: true)
        case .declineRefund: try await store.decideRefundRequest(transactionID: entry(id) { $0.refundRequest == .pending }.id, approve: false)
        case .delete: try await store.deleteTransaction(entry(id) { _ in true }.id)
        case .expire: try await store.expireSubscription(productID: id)
        case .renew: try await store.forceRenewal(productID: id)
        case .fixBilling: try await store.resolveBillingIssue(productID: id)
        }
    }

    /// The newest ledger row of a product that matches, as the tester picks it in the Transaction Manager.
    func entry(_ productID: String, _ matching: (LedgerEntry) -> Bool) async throws -> LedgerEntry {
        let rows = await store?.ledgerEntries() ?? []
        guard let found = rows.filter({ $0.payload.productID == productID && matching($0) }).max(by: { $0.id < $1.id }) else {
            throw TestControlError("no matching transaction for \(productID) in the ledger")
        }
        return found
    }

    /// The app quits: its StoreManager stops listening, so updates wait as unfinished transactions.
    func quit() async throws {
        guard appRunning else { throw TestControlError("the app is not running") }
        await manager?.stop()
        appRunning = false
    }

    /// The app launches: a new StoreManager (on the same wallet file) listens to updates, which redelivers unfinished transactions.
    func launch() async throws {
        guard !appRunning, let store else { throw TestControlError("the app is already running") }
        await manager?.stop()
        let wallet = try ConsumableWallet(path: directory + "/wallet.sqlite")
        let manager = StoreManager(source: store, verifier: SignedDataVerifier(trustedRoots: [store.certificate]), wallet: wallet)
        await manager.start()
        self.manager = manager
        appRunning = true
    }

    /// A new store on the same state directory. Test settings are not saved by the store, so they carry over from the old one.
    func reopenStore() async throws {
        guard let old = store else { return }
        let settings = await old.settings(), code = await old.storefront().code, locale = await old.locale()
        await old.shutdown()
        let store = try LocalAppStore(catalog: catalog, stateDirectory: directory, storefront: code, locale: locale)
        await store.update { $0 = settings }
        self.store = store
    }

    /// Waits (bounded) until what the last action set off has reached the app: the app finishes every
    /// transaction it is handed, so the wait ends when nothing is unfinished or nothing more changes.
    func settle() async {
        guard let store, let manager else { return }
        await store.tick()
        guard appRunning else { return }
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(3)
        var last = -1, stableSince = clock.now
        while clock.now < deadline {
            let count = await store.unfinishedTransactions().count
            if count == 0 { break }
            if count != last { last = count; stableSince = clock.now }
            if clock.now - stableSince > .milliseconds(300) { break }
            try? await Task.sleep(for: .milliseconds(10))
        }
        await manager.refresh()
    }

    // MARK: Expectations

    /// Reads the expectation's value now (no waiting) and compares it.
    public func check(_ e: ScenarioExpectation) async -> (passed: Bool, actual: String) {
        let actual = await read(e)
        let passed = actual == e.expected || (e.probe == .result && actual.hasPrefix(e.expected + " "))
        return (passed, actual)
    }

    func read(_ e: ScenarioExpectation) async -> String {
        guard let store, let manager else { return "no store" }
        let s = await manager.snapshot
        let subject = e.subject.first ?? ""
        func yesNo(_ b: Bool) -> String { b ? "yes" : "no" }
        switch e.probe {
        case .result: return lastResult.map(Self.describe) ?? "none"
        case .entitled: return yesNo(s.entitlements.contains(subject))
        case .balance: return String(s.balances[subject] ?? 0)
        case .status: return s.effectiveStatus(group: subject)?.state.rawValue ?? "none"
        case .renewal:
            guard let info = s.effectiveStatus(group: subject)?.renewalInfo.payload else { return "no renewal info" }
            switch e.subject[1] {
            case "willAutoRenew": return yesNo(info.willAutoRenew)
            case "autoRenewProduct": return info.autoRenewProductID
            case "expirationReason": return info.expirationReason?.name ?? "none"
            case "priceIncrease": return info.priceIncreaseStatus.map { "\($0)" } ?? "none"
            case "billingRetry": return yesNo(info.isInBillingRetry)
            case "winBackOffers": return info.eligibleWinBackOfferIDs.isEmpty ? "none" : info.eligibleWinBackOfferIDs.joined(separator: " ")
            default: return yesNo(info.gracePeriodExpirationDate != nil)
            }
        case .introEligible: return s.introEligibility[subject].map(yesNo) ?? "unknown group"
        case .error: return s.lastError?.name ?? "none"
        case .transactions: return String(s.transactionCount)
        case .ledger: return String(await store.ledgerEntries().count)
        case .unfinished: return String(await store.unfinishedTransactions().count)
        case .products: return String(s.products.count)
        case .verification:
            guard let v = s.history.first(where: { $0.payload?.productID == subject }) else { return "no transaction" }
            return v.error?.rawValue ?? "verified"
        case .transaction:
            guard let row = await store.ledgerEntries().filter({ $0.payload.productID == subject }).max(by: { $0.id < $1.id }) else {
                return "no transaction"
            }
            let t = row.payload
            switch e.subject[1] {
            case "status": return row.status.rawValue
            case "offer": return t.offerType?.rawValue ?? "none"
            case "offerID": return t.offerID ?? "none"
            case "ownership": return t.ownership == .familyShared ? "familyShared" : "purchased"
            case "upgraded": return yesNo(t.isUpgraded)
            case "upgrade-refund": return row.upgradeRefund.map { "\($0)" } ?? "none"
            case "revoked": return yesNo(t.isRevoked)
            case "revocation": return t.revocationType.map { "\($0)" } ?? "none"
            case "reason": return t.reason == .renewal ? "renewal" : "purchase"
            case "price": return "\(t.price)"
            case "currency": return t.currency
            case "storefront": return t.storefront
            case "quantity": return String(t.quantity)
            case "duration": return Self.duration(from: t.purchaseDate, to: t.expirationDate)
            case "finished": return yesNo(row.isFinished)
            default: return row.refundRequest?.rawValue ?? "none"
            }
        case .message: return s.lastEvent?.message ?? "none"
        case .storefront: return s.storefront.code
        case .price: return s.products.first { $0.id == subject }?.displayPrice ?? "not loaded"
        case .appTransaction:
            guard let app = s.appTransaction else { return "none" }
            guard let p = app.payload else { return app.error?.rawValue ?? "none" }
            switch subject {
            case "originalVersion": return p.originalAppVersion
            case "originalPlatform": return p.originalPlatform
            case "appVersion": return p.appVersion
            case "bundleID": return p.bundleID
            default: return app.error?.rawValue ?? "verified"
            }
        case .boughtBefore:
            guard case .verified(let p)? = s.appTransaction else { return "no verified app transaction" }
            return yesNo(AppTransactionPayload.version(p.originalAppVersion, isBefore: subject))
        }
    }

    /// The period from purchase to expiration, as ISO 8601 (`P1M`), or `none` without an expiration date.
    static func duration(from start: Date, to end: Date?) -> String {
        guard let end else { return "none" }
        for unit in [Period.Unit.year, .month, .week, .day] {
            for n in 1...400 where Period(n, unit).advance(start) >= end {
                if Period(n, unit).advance(start) == end { return Period(n, unit).iso }
                break
            }
        }
        return "\(Int(end.timeIntervalSince(start)))s"
    }

    /// A purchase result as scenarios write it: `purchased`, `pending askToBuy`, `failed networkError`…
    static func describe(_ result: PurchaseResult) -> String {
        switch result {
        case .success(.verified): "purchased"
        case .success(.unverified(_, let e)): "unverified \(e.rawValue)"
        case .userCancelled: "cancelled"
        case .pending(let reason): "pending \(reason.rawValue)"
        case .failed(let f): "failed \(f.name)"
        }
    }
}
