import Foundation
import StoreCore
import StoreEngine
import StoreClient
import StoreServer

/// What one step did. Expectations carry what was expected and what was found.
public struct StepResult: Sendable, Equatable {
    /// `notReached`: a walk ended before the step (it fails the walk, but is no failure of the step).
    public enum Outcome: String, Sendable { case passed, failed, skipped, notReached }
    public var step: ScenarioStep
    public var outcome: Outcome
    public var expected: String?
    public var actual: String?
    /// For actions: what came of it (a purchase result) or why it could not be done.
    public var note: String?
    /// How long a check that failed kept retrying before it gave up (left out of a report's time).
    public var waited: TimeInterval = 0

    public var passed: Bool { outcome == .passed || outcome == .skipped }
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
    /// The time the steps took, without the retries of checks that failed anyway.
    public var workTime: TimeInterval { max(0, duration - steps.map(\.waited).reduce(0, +)) }
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
    /// The current device's app; other devices of the same account keep theirs in `devices`.
    var manager: StoreManager?
    var appRunning = false
    var device = "main"
    var devices: [String: (manager: StoreManager, running: Bool)] = [:]
    var lastResult: PurchaseResult?
    /// Each device's wallet, asked after every action whether its disk was full.
    var wallets: [String: ConsumableWallet] = [:]
    /// What the current app reported since the last action (`expect message`, `expect restored`).
    var events: [AppEvent] = []
    /// Why the last action was refused (`expect refused`); nil when it was not.
    var lastRefusal: String?
    /// How many of the current app's events have been heard (see `StoreManager.eventCount`).
    var heard = 0
    private var listening: Task<Void, Never>?
    /// Sends the store's notifications while the scenario runs, when a notification URL is set (`--notify`).
    private var notifier: NotificationDispatcher?

    /// How long an expectation may wait for updates to arrive.
    public private(set) var patience: Duration = .seconds(2)
    public func setPatience(_ value: Duration) { patience = value }

    /// What the command line asks of every store the runner opens (`--time-rate`, `--environment`).
    let prepare: @Sendable (LocalAppStore) async throws -> Void
    let ledger: LedgerLocation?

    /// `stateDirectory` nil: a fresh temporary one, removed by `close()` (a directory, not memory, so `restart` has state to reopen).
    /// `ledger`: a PostgreSQL ledger instead of the state directory's.
    public init(scenario: Scenario, catalog: Catalog, storefront: String? = nil, locale: String? = nil, stateDirectory: String? = nil,
                ledger: LedgerLocation? = nil, prepare: @escaping @Sendable (LocalAppStore) async throws -> Void = { _ in }) {
        self.prepare = prepare
        self.ledger = ledger
        self.scenario = scenario
        self.catalog = catalog
        self.storefront = storefront
        self.locale = locale
        self.directory = stateDirectory ?? NSTemporaryDirectory() + "storefront-scenario-" + UUID().uuidString
        self.ownsDirectory = stateDirectory == nil
    }

    /// Opens the store and launches the app.
    public func start() async throws {
        let store = try LocalAppStore(catalog: catalog, stateDirectory: directory, ledger: ledger, storefront: storefront, locale: locale)
        // Headless: no artificial network delay.
        await store.update { $0.networkDelay = 0 }
        self.store = store
        try await prepare(store)
        await notify(from: store)
        try await launch()
    }

    public func close() async {
        listening?.cancel()
        for (other, _) in devices.values { await other.stop() }
        await manager?.stop()
        await notify(from: nil)
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
        for (index, step) in scenario.steps.enumerated() {
            var result = stopped ? StepResult(step: step, outcome: .skipped) : await perform(step)
            if case .action = step.kind, result.outcome == .failed {
                // A refusal the next step expects is the step's outcome, not a failure: the scenario goes on.
                if Self.expectsRefusal(scenario.steps.dropFirst(index + 1).first) {
                    (result.outcome, result.note) = (.passed, "refused: " + (result.note ?? ""))
                } else {
                    stopped = true
                }
            }
            results.append(result)
            onStep(result)
        }
        if setupError == nil, let damage = await store?.damage() { setupError = "the ledger is damaged: \(damage)" }
        let code = await store?.storefront().code ?? storefront ?? "?"
        await close()
        return ScenarioResult(scenario: scenario, steps: results, catalogPath: scenario.catalogPath ?? "", storefront: code,
                              setupError: setupError, duration: Date().timeIntervalSince(started))
    }

    /// Performs one step; an expectation waits up to `patience` for updates to arrive.
    public func perform(_ step: ScenarioStep) async -> StepResult {
        switch step.kind {
        case .action(let action):
            await hearEverything()  // what the step before set off is the step before's
            events.removeAll()
            lastRefusal = nil
            do {
                let note = try await perform(action)
                await settle()
                try await checkDisk()
                return StepResult(step: step, outcome: .passed, note: note)
            } catch {
                lastRefusal = "\(error)"
                return StepResult(step: step, outcome: .failed, note: "\(error)")
            }
        case .expect(let expectation):
            let clock = ContinuousClock()
            let deadline = clock.now + patience
            // That nothing arrived holds only once what was on its way has had time to arrive.
            if expectation.probe == .message, expectation.expected == "none" { await hearEverything() }
            var (passed, actual) = await check(expectation)
            while !passed && clock.now < deadline {
                try? await Task.sleep(for: .milliseconds(20))
                await store?.tick()
                await manager?.refresh()
                (passed, actual) = await check(expectation)
            }
            var result = StepResult(step: step, outcome: passed ? .passed : .failed, expected: expectation.expected, actual: actual)
            if !passed { result.waited = (clock.now - (deadline - patience)).seconds }
            return result
        }
    }

    /// A step the disk was too full for fails, naming the file: the app sees only StoreKit's `systemError`.
    func checkDisk() async throws {
        // Asked of every wallet and the store, so none keeps a full disk for a later step to report.
        var full = await store?.takeDiskFull()
        for wallet in wallets.values { if let met = await wallet.takeDiskFull(), full == nil { full = met } }
        if let full { throw full }
    }

    // MARK: Actions

    /// Performs an action through the one `CommandPerformer`; the app's lifecycle is the runner's own.
    func perform(_ command: StoreCommand) async throws -> String? {
        guard let store, let manager else { throw TestControlError("the store is not open") }
        switch command {
        case .quit: try await quit(); return nil
        case .launch: try await launch(); return nil
        case .restart:
            if appRunning { try await quit() }
            try await reopenStore()
            try await launch()
            return nil
        case .crashBeforeFinish:
            guard appRunning else { throw TestControlError("the app is not running") }
            await manager.crashBeforeNextFinish()
            return nil
        case .device(let name):
            try await switchDevice(to: name)
            return nil
        case .export(let path):
            try await store.exportSignedData(to: path)
            return "wrote \(path)"
        default: break
        }
        var command = command
        if case .manage(let name, let action) = command, let group = catalog.group(named: name) { command = .manage(group.id, action) }
        let intentsHeard = await manager.purchaseIntentsHeard
        let outcome = try await CommandPerformer(manager: manager, controls: store).perform(command)
        // The app looks for purchase intents four times a second: the step ends when it has heard this one
        // (at most 2 s: another device's app on the same store may take it instead, or the app crashed).
        if case .promote = command, appRunning {
            let deadline = ContinuousClock.now + .seconds(2)
            while ContinuousClock.now < deadline, await manager.purchaseIntentsHeard == intentsHeard, await !manager.hasCrashed {
                guard (try? await Task.sleep(for: .milliseconds(10))) != nil else { break }
            }
        }
        if command == .reset { await store.update { $0.networkDelay = 0 } }  // headless: no artificial delay
        switch outcome {
        case .purchase(_, let result):
            lastResult = result
            // With its ID: a run that is killed shows exactly which purchases it reported.
            if case .success(.verified(let transaction)) = result { return Self.describe(result) + " (transaction \(transaction.transactionID))" }
            return Self.describe(result)
        case .redeem(_, let failure): return failure.map { "rejected: \($0.name)" } ?? "accepted"
        case .refused(_, let failure): return "failed: \(failure.name)"
        case .done, .retention: return nil
        }
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
        let wallet = try await StoreStack.openWallet(for: store, stateDirectory: directory, name: walletName)
        wallets[device] = wallet
        // Listening before it starts: what the app reports at launch (redelivered transactions) is heard too.
        _ = await StoreStack.launchApp(on: store, wallet: wallet) { manager in await self.attachApp(manager) }
    }

    /// Each device keeps its own app state (its consumables' wallet); `main` is the app's own file.
    var walletName: String { device == "main" ? "wallet.sqlite" : "wallet-\(device).sqlite" }

    /// Listens to the app's events, so checks can read everything it reported since the last action.
    func attachApp(_ manager: StoreManager) async {
        self.manager = manager
        appRunning = true
        listening?.cancel()
        let stream = await manager.events()
        heard = await manager.eventCount
        listening = Task { [weak self] in for await event in stream { await self?.note(event) } }
    }

    func note(_ event: AppEvent) {
        events.append(event)
        heard += 1
    }

    /// Waits until every event the app reported so far has been heard.
    func hearEverything() async {
        guard appRunning, let manager, listening != nil else { return }
        // Only waits while something the app reported is on its way; the bound is for a listener that died.
        let deadline = ContinuousClock.now + .seconds(10)
        while heard < (await manager.eventCount), ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(5)) }
    }

    /// Another device on the same account: the current app keeps running in the background, the
    /// other device's app launches on first use, and steps then act on and read the other device.
    func switchDevice(to name: String) async throws {
        guard name != device else { return }
        if let manager { devices[device] = (manager, appRunning) }
        device = name
        if let (other, running) = devices.removeValue(forKey: name) {
            self.manager = other
            appRunning = false
            if running { await attachApp(other) } else { try await launch() }
        } else {
            appRunning = false
            manager = nil
            try await launch()
        }
    }

    /// Sends `store`'s notifications from now on; what the last store left due is sent first.
    func notify(from store: LocalAppStore?) async {
        if let notifier {
            await notifier.stop()
            await notifier.drain()
        }
        notifier = store.map { NotificationDispatcher(store: $0) }
        await notifier?.start()
    }

    /// A new store on the same state directory. Test settings are not saved by the store, so they carry over from the old one.
    func reopenStore() async throws {
        guard let old = store else { return }
        let settings = await old.settings(), code = await old.storefront().code, locale = await old.locale()
        await old.shutdown()
        let store = try LocalAppStore(catalog: catalog, stateDirectory: directory, ledger: ledger, storefront: code, locale: locale)
        await store.update { $0 = settings }
        self.store = store
        await notify(from: store)
    }

    /// Waits (bounded) until what the last action set off has reached the app: the app finishes every
    /// transaction it is handed, so the wait ends when nothing is unfinished or nothing more changes.
    func settle() async {
        guard let store, let manager else { return }
        await store.tick()
        if await manager.hasCrashed { appRunning = false }
        guard appRunning else { return }
        await Self.waitForTheApp(store, manager) { await self.heardAFailure }
        await hearEverything()
        await manager.refresh()
    }

    /// The app finishes every transaction it is handed unless it died or its delivery failed (`failed`):
    /// waits for that, however slowly a loaded machine lets it (the bound is for a stuck app). The runner's
    /// settle and the session recorder's save both end here, so a recorded end state is the one a replay reaches.
    static func waitForTheApp(_ store: LocalAppStore, _ manager: StoreManager, failed: @Sendable () async -> Bool = { false }) async {
        let deadline = ContinuousClock.now + .seconds(15)
        while ContinuousClock.now < deadline, await !store.unfinishedTransactions().isEmpty {
            if await manager.hasCrashed { break }
            if await failed() { break }
            try? await Task.sleep(for: .milliseconds(10))
        }
        await manager.finishDelivering()  // a transaction is finished before the app reports it
    }

    private var heardAFailure: Bool { events.contains(where: \.isFailure) }

    // MARK: Expectations

    /// Reads the expectation's value now (no waiting) and compares it.
    public func check(_ e: ScenarioExpectation) async -> (passed: Bool, actual: String) {
        let actual = await read(e)
        if e.probe == .message {
            // Any event since the last action, not only the last one: a purchase and its renewal may both speak.
            // A walk rides the TUI's own app, whose actions the runner does not see: there, the last event.
            let said = listening == nil ? [actual].filter { $0 != "none" } : events.map(\.message)
            return (e.expected == "none" ? said.isEmpty : said.contains(e.expected),
                    said.isEmpty ? "none since the last action" : said.joined(separator: " | "))
        }
        if e.probe == .refused { return (e.expected == "none" ? actual == "none" : actual.contains(e.expected), actual) }
        if let other = e.otherField {
            var theirs = e
            theirs.subject[1] = other.name
            let value = await read(theirs)
            return ((actual == value) == other.equal, "\(actual) (\(other.name): \(value))")
        }
        if let other = e.sameAs {
            var theirs = e
            theirs.subject[0] = other
            let expected = await read(theirs)
            return (actual == expected, "\(actual) (\(other): \(expected))")
        }
        let passed = actual == e.expected || (e.probe == .result && actual.hasPrefix(e.expected + " "))
        return (passed, actual)
    }

    /// A signed field as scenarios write values: text as is, booleans yes/no, arrays space-separated.
    static func text(_ value: JSONValue?) -> String {
        switch value {
        case .string(let s)?: s
        case .number(let n)?: n
        case .bool(let b)?: b ? "yes" : "no"
        case .array(let items)?: items.isEmpty ? "none" : items.map { text($0) }.joined(separator: " ")
        case .object?: value!.serialized()
        case .null?, nil: "none"
        }
    }

    func read(_ e: ScenarioExpectation) async -> String {
        guard let store, let manager else { return "no store" }
        let s = await manager.snapshot
        // A group may be named by its ID or its name.
        let subject = ScenarioParser.probe(e.probe).subject.first == "GROUP" ? catalog.group(named: e.subject[0])?.id ?? e.subject[0] : e.subject.first ?? ""
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
            case "gracePeriod": return yesNo(info.gracePeriodExpirationDate != nil)
            case let field: return Self.text(info.json[field])
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
            case "refundRequest": return row.refundRequest?.rawValue ?? "none"
            case let field: return Self.text(t.json[field])
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
        case .restored:
            for case .restored(let count) in events.reversed() { return String(count) }
            return "no restore since the last action"
        case .boughtBefore:
            guard case .verified(let p)? = s.appTransaction else { return "no verified app transaction" }
            return yesNo(AppTransactionPayload.version(p.originalAppVersion, isBefore: subject))
        case .all, .latest, .refused: return appView(e, s)
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

extension Duration {
    /// In seconds, as `TimeInterval`.
    var seconds: TimeInterval { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
