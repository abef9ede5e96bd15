import Foundation
import StoreCore
import StoreEngine
@_spi(Storefront) import StoreKit
import Locking

/// StoreKitTest's `SKTestSession`: the test environment a team's tests drive, over Storefront's local App Store.
/// There is one environment per process, as in Xcode, and every session controls it: a session on the
/// configuration file the environment runs on takes it as it is (its transactions and settings); one on
/// another file (or the same file changed since, or under another `STOREFRONT_STATE`) puts a fresh store from
/// that file in its place (in memory, or in `STOREFRONT_STATE` when set). Run tests that use it serially.
/// Sendable, so a `@MainActor` test can await its asynchronous methods.
public final class SKTestSession: Sendable {
    /// The process's test environment: the store, the file (and its modification date) it was opened from, and
    /// the state directory it keeps its ledger in (nil: in memory).
    private static let environment = Locked<(file: String, modified: Date?, state: String?, store: LocalAppStore)?>(nil)

    @_spi(Storefront) public let store: LocalAppStore
    /// The configuration's own settings, for `resetToDefaultState()`.
    private let defaults: TestSettings
    private let defaultPlace: (storefront: String, locale: String)

    /// A session on a `.storekit` file (or a Storefront `catalog.json`) found by name among the test bundle's
    /// resources or under the current directory; `Products` finds `Products.storekit`.
    public convenience init(configurationFileNamed filename: String) throws {
        try self.init(contentsOf: ConfigurationFile.find(filename))
    }

    /// The same as `init(contentsOf:)`, by the name StoreKitTest's Objective-C interface gives it.
    public convenience init(contentsOfURL fileURL: URL) throws { try self.init(contentsOf: fileURL) }

    /// A session on the configuration file at a URL: a `.storekit` file or a Storefront `catalog.json`.
    public init(contentsOf fileURL: URL) throws {
        guard fileURL.isFileURL else { throw SKTestError(.invalidURL, "\(fileURL) is not a file URL: give the path of a .storekit or catalog.json file") }
        guard FileManager.default.fileExists(atPath: fileURL.path) else {
            throw SKTestError(.fileNotFound, "no configuration file at \(fileURL.path)")
        }
        let file = fileURL.standardizedFileURL.path
        let modified = (try? FileManager.default.attributesOfItem(atPath: file))?[.modificationDate] as? Date
        var catalog = try CatalogLoader.load(path: file)
        // Xcode's test environment signs its transactions in the Xcode environment and numbers them from 0;
        // a catalog.json says its own environment, and is numbered as the App Store numbers.
        let isXcodes = fileURL.pathExtension.lowercased() == "storekit"
        if isXcodes { catalog.settings.environment = .xcode }
        defaults = catalog.settings
        let place = catalog.place(storefront: nil, locale: nil, settings: catalog.settings)
        defaultPlace = (place?.0.code ?? "USA", place?.1 ?? "en_US")
        let previous = Self.environment.withLock { $0 }
        let state = ProcessInfo.processInfo.environment["STOREFRONT_STATE"]
        if let previous, previous.file == file, previous.modified == modified, previous.state == state {
            store = previous.store
        } else {
            // Xcode's numbering needs a ledger of the test environment's own: one in memory.
            store = try LocalAppStore(catalog: catalog, stateDirectory: state, numbering: isXcodes && state == nil ? .xcode : .appStore)
            Self.environment.withLock { $0 = (file, modified, state, store) }
        }
        // The environment owns its store: it outlives the runtime's connections, and ends when another replaces it
        // (its listeners then move to the new one).
        StoreKitRuntime.install(StoreConnection(store: store, closesStore: false))
        if let previous, previous.store !== store { Task { await previous.store.shutdown() } }
    }

    // MARK: Settings

    /// Off at first, as Apple's; purchases answer the payment sheet by themselves either way here, where no sheet is shown.
    public var disableDialogs: Bool {
        get { dialogsDisabled.withLock { $0 } }
        set { dialogsDisabled.withLock { $0 = newValue } }
    }
    private let dialogsDisabled = Locked(false)

    public var askToBuyEnabled: Bool {
        get { setting(\.askToBuy) }
        set { change { $0.askToBuy = newValue } }
    }

    public var interruptedPurchasesEnabled: Bool {
        get { setting(\.interruptedPurchases) }
        set { change { $0.interruptedPurchases = newValue } }
    }

    public var billingGracePeriodIsEnabled: Bool {
        get { setting(\.gracePeriod) }
        set { change { $0.gracePeriod = newValue } }
    }

    public var shouldEnterBillingRetryOnRenewal: Bool {
        get { setting(\.billingRetryOnRenewal) }
        set { change { $0.billingRetryOnRenewal = newValue } }
    }

    public var timeRate: TimeRate {
        get { TimeRate(rawValue: setting(\.timeRate).rawValue) ?? .realTime }
        set { change { $0.timeRate = StoreCore.TimeRate(rawValue: newValue.rawValue) ?? .realTime } }
    }

    /// The storefront's ISO 3166-1 alpha-3 code (`USA`).
    public var storefront: String {
        get { (try? wait { [store] in await store.storefront().code }) ?? defaultPlace.storefront }
        // The locale stays: it chooses the language, the storefront the prices.
        set {
            let locale = self.locale.identifier
            perform { [store] in try await store.setStorefront(newValue, locale: locale) }
        }
    }

    public var locale: Locale {
        get { Locale(identifier: (try? wait { [store] in await store.locale() }) ?? defaultPlace.locale) }
        set {
            let code = storefront
            perform { [store] in try await store.setStorefront(code, locale: newValue.identifier) }
        }
    }

    /// Purchases fail with `failureError` (deprecated by Apple for `setSimulatedError(_:forAPI:)`).
    @available(*, deprecated, message: "use setSimulatedError(_:forAPI:)")
    public var failTransactionsEnabled: Bool {
        get { setting(\.failures)[.purchase] != nil }
        set {
            let failure = Self.failure(for: failureCode)
            change { $0.failures[.purchase] = newValue ? failure : nil }
        }
    }

    @available(*, deprecated, message: "use setSimulatedError(_:forAPI:)")
    public var failureError: SKError.Code {
        get { failureCode }
        set {
            chosenFailure.withLock { $0 = newValue }
            let failure = Self.failure(for: newValue)
            change { if $0.failures[.purchase] != nil { $0.failures[.purchase] = failure } }
        }
    }
    private var failureCode: SKError.Code { chosenFailure.withLock { $0 } }
    private let chosenFailure = Locked(SKError.Code.unknown)

    static func failure(for code: SKError.Code) -> StoreFailure {
        switch code {
        case .invalidOfferIdentifier: .purchase(.invalidOfferIdentifier)
        case .invalidSignature: .purchase(.invalidOfferSignature)
        case .missingOfferParams: .purchase(.missingOfferParameters)
        case .invalidOfferPrice: .purchase(.invalidOfferPrice)
        case .ineligibleForOffer: .purchase(.ineligibleForOffer)
        case .paymentNotAllowed: .purchase(.purchaseNotAllowed)
        case .storeProductNotAvailable: .purchase(.productUnavailable)
        case .paymentCancelled: .storeKit(.userCancelled)
        case .cloudServiceNetworkConnectionFailed: .storeKit(.networkError)
        default: .storeKit(.unknown)
        }
    }

    /// Every setting back to the configuration file's (and the session's own: dialogs, the failure error);
    /// transactions stay.
    public func resetToDefaultState() {
        dialogsDisabled.withLock { $0 = false }
        chosenFailure.withLock { $0 = .unknown }
        let (defaults, place) = (defaults, defaultPlace)
        perform { [store] in
            await store.update { $0 = defaults }
            try await store.setStorefront(place.storefront, locale: place.locale)
            _ = await store.takePurchaseIntents()  // one an earlier test left is not this test's
            try await store.setPromotionOrder([])
        }
    }

    /// Every transaction gone, as if nothing was ever bought.
    public func clearTransactions() {
        perform { [store] in try await store.clearTransactions() }
    }

    // MARK: Synchronous calls into the store

    private func setting<T: Sendable>(_ key: KeyPath<TestSettings, T> & Sendable) -> T {
        // The store's settings can always be read; `try?` only satisfies `wait`'s signature.
        (try? wait { [store] in await store.settings()[keyPath: key] }) ?? defaults[keyPath: key]
    }

    private func change(_ body: @escaping @Sendable (inout TestSettings) -> Void) {
        perform { [store] in await store.update(body) }
    }

    /// A control Apple's API cannot report failing from: a failure is written where a test run shows it.
    private func perform(_ body: @escaping @Sendable () async throws -> Void) {
        do { try wait(body) } catch { FileHandle.standardError.write(Data("SKTestSession: \(error)\n".utf8)) }
    }
}

/// Runs a call into the store to its end from synchronous code (Apple's session methods are synchronous;
/// the store is an actor). The calling thread waits, and may be one of the concurrency pool's few: the
/// call runs on a queue of its own (the store actor runs on a task's preferred executor), so a test
/// waiting on every pool thread cannot starve it.
func wait<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let done = DispatchSemaphore(value: 0)
    let outcome = Outcome<T>()
    Task.detached(executorPreference: StoreCallExecutor.shared) {
        do { outcome.set(.success(try await body())) } catch { outcome.set(.failure(SKTestError.from(error))) }
        done.signal()
    }
    done.wait()
    return try outcome.get()
}

private final class Outcome<T: Sendable>: Sendable {
    private let value = Locked<Result<T, any Error>?>(nil)
    func set(_ result: Result<T, any Error>) { value.withLock { $0 = result } }
    func get() throws -> T { try value.withLock { $0! }.get() }
}

/// The queue session calls run on, outside the concurrency pool.
private final class StoreCallExecutor: TaskExecutor {
    static let shared = StoreCallExecutor()
    private let queue = DispatchQueue(label: "SKTestSession", attributes: .concurrent)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
