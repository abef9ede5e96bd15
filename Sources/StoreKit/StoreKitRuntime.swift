import Foundation
import StoreVerification
import StoreCore
import StoreEngine
import Locking

/// The store the app talks to and the root it trusts: what StoreKit's daemon is on a device.
/// Every signed token the API hands out is verified here first, as StoreKit does.
@_spi(Storefront) public struct StoreConnection: Sendable {
    public let source: any TransactionSource
    let verifier: SignedDataVerifier
    let close: @Sendable () async -> Void
    /// The app's `SKIncludeConsumableInAppPurchaseHistory`: whether `Transaction.all` keeps finished consumables.
    let includesConsumableHistory: Bool
    /// `AppStore.ageRatingCode`: the catalog's app's, nil when it gives none.
    let ageRatingCode: Int?
    /// The subscription statuses the app last read: where `Product.SubscriptionInfo.Status.updates` starts.
    let seenStatuses = SeenStatuses()
    /// `finish()` calls made while one is written, written together.
    let finishes: FinishQueue
    /// What `currentEntitlements` verified: an app reads them again and again, and they rarely change.
    let entitlementsVerified = EntitlementVerifications()

    /// The app on a local App Store: it trusts that store's certificate, as a device trusts Apple's root.
    /// `closesStore`: replacing the connection shuts the store down (false: the store's owner does, as the
    /// test environment does, which keeps its store across sessions).
    public init(store: LocalAppStore, closesStore: Bool = true) {
        self.init(source: store, verifier: SignedDataVerifier(trustedRoots: [store.certificate]),
                  includesConsumableHistory: store.catalog.app.includesConsumableHistory,
                  ageRatingCode: store.catalog.app.ageRatingCode) { if closesStore { await store.shutdown() } }
    }

    public init(source: any TransactionSource, verifier: SignedDataVerifier, includesConsumableHistory: Bool = false,
                ageRatingCode: Int? = nil, close: @escaping @Sendable () async -> Void = {}) {
        self.ageRatingCode = ageRatingCode
        self.source = source
        self.verifier = verifier
        self.includesConsumableHistory = includesConsumableHistory
        self.close = close
        finishes = FinishQueue { ids in
            if ids.count == 1 { await source.finish(transactionID: ids[0]) } else { await source.finish(transactionIDs: ids) }
        }
    }

    /// Whether both talk to one store object (a class or an actor; a value type never matches).
    func isOnSameStore(as other: StoreConnection) -> Bool {
        guard type(of: source) is AnyClass, type(of: other.source) is AnyClass else { return false }
        return (source as AnyObject) === (other.source as AnyObject)
    }

    /// The same connection, or another to the same store: a listener on one is on the other.
    func isOnSameStoreOrConnection(as other: StoreConnection) -> Bool { finishes === other.finishes || isOnSameStore(as: other) }

    /// A transaction as StoreKit hands it out; nil for a token whose payload cannot be read at all
    /// (StoreKit has no transaction to show for one).
    @_spi(Storefront) public func transaction(_ jws: String) -> VerificationResult<Transaction>? {
        transaction(jws, verified: verifier.transaction(jws))
    }

    /// `transaction(_:)` through the entitlements' cache (see `entitlementsVerified`).
    func entitlement(_ jws: String) -> VerificationResult<Transaction>? {
        transaction(jws, verified: entitlementsVerified.result(jws, verifier))
    }

    private func transaction(_ jws: String, verified: Verification<TransactionPayload>) -> VerificationResult<Transaction>? {
        VerificationResult(verified, jws: jws) { Transaction(payload: $0, jws: jws, store: self) }
    }

    func renewalInfo(_ jws: String) -> VerificationResult<Product.SubscriptionInfo.RenewalInfo>? {
        VerificationResult(verifier.renewalInfo(jws), jws: jws) { Product.SubscriptionInfo.RenewalInfo(payload: $0, jws: jws) }
    }

    func appTransaction(_ jws: String) -> VerificationResult<AppTransaction>? {
        VerificationResult(verifier.appTransaction(jws), jws: jws) { AppTransaction(payload: $0, jws: jws) }
    }
}

/// One StoreKit per process, as on a device: `SKTestSession` installs its store here, and the API reads it.
@_spi(Storefront) public enum StoreKitRuntime {
    private struct Installation {
        var connection: StoreConnection?
        /// Listeners waiting for a store (see `listening(after:)`), by ticket.
        var waiting: [Int: CheckedContinuation<StoreConnection?, Never>] = [:]
        var nextTicket = 0
        /// Whether the store the environment names has been put in place (see `current`).
        var environmentTaken = false
    }
    private static let installed = Locked(Installation())

    /// Makes `connection` the store the app talks to; the one before closes (its listeners move to this one),
    /// unless it is a connection to the same store (another `SKTestSession` on the one test environment).
    public static func install(_ connection: StoreConnection?) {
        let previous = put(connection)
        if let previous, !(connection.map { $0.isOnSameStore(as: previous) } ?? false) { Task { await previous.close() } }
    }

    /// Puts `connection` in place, if `when` says so (it may note the change), and wakes the listeners
    /// waiting for a store; the connection it replaced.
    @discardableResult
    private static func put(_ connection: StoreConnection?, when: (inout Installation) -> Bool = { _ in true }) -> StoreConnection? {
        let (previous, waiting) = installed.withLock { state -> (StoreConnection?, [CheckedContinuation<StoreConnection?, Never>]) in
            guard when(&state) else { return (nil, []) }
            defer {
                state.connection = connection
                if connection != nil { state.waiting = [:] }
            }
            return (state.connection, connection == nil ? [] : Array(state.waiting.values))
        }
        for listener in waiting { listener.resume(returning: connection) }
        return previous
    }

    /// A store for one task and the tasks it starts, over the installed one: several apps (devices) on
    /// one store in one process, each on its own connection (`withConnection`).
    @TaskLocal static var taskConnection: StoreConnection?

    /// Runs `body` with the API talking to `connection` (and the tasks it starts, not detached ones).
    nonisolated(nonsending) public static func withConnection<T: Sendable>(_ connection: StoreConnection, _ body: nonisolated(nonsending) () async throws -> T) async rethrows -> T {
        try await $taskConnection.withValue(connection, operation: body)
    }

    /// The task's store, else the installed one; without one, the store `STOREFRONT_CATALOG` (and `STOREFRONT_STATE`) name,
    /// opened once; nil when there is none (no products, nothing bought, as StoreKit with no configuration).
    static var current: StoreConnection? {
        if let connection = taskConnection ?? installed.withLock({ $0.connection }) { return connection }
        // Put in place the first time only, if nothing was installed meanwhile: once a session's store has
        // replaced it, it is closed.
        if let environment = environmentConnection {
            put(environment) { state in
                defer { state.environmentTaken = true }
                return !state.environmentTaken && state.connection == nil
            }
        }
        return installed.withLock { $0.connection }
    }

    /// The store the environment names, opened the first time it is asked for (callers meanwhile wait for it).
    private static let environmentConnection: StoreConnection? = fromEnvironment()

    /// How many listeners wait for a store now (a test's way to know one has begun waiting).
    public static var waitingListeners: Int { installed.withLock { $0.waiting.count } }

    /// The store a sequence that lasts the app's life (`Transaction.updates`, `Status.updates`…) listens on, the
    /// one it had (`previous`) having ended: the task's own store, once; else the installed store, waiting for one
    /// while there is none or it is still `previous`'s. An app starts listening at launch, and a test's session
    /// gives it its store after, or replaces it with another, and the listener hears each in turn, as on a device.
    /// Nil when the task is cancelled (or its own store ended).
    static func listening(after previous: StoreConnection? = nil) async -> StoreConnection? {
        if let own = taskConnection { return previous == nil ? own : nil }
        func isNew(_ connection: StoreConnection) -> Bool { previous.map { !connection.isOnSameStoreOrConnection(as: $0) } ?? true }
        if previous == nil, let connection = current { return connection }
        let ticket = installed.withLock { state in defer { state.nextTicket += 1 }; return state.nextTicket }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (listener: CheckedContinuation<StoreConnection?, Never>) in
                let ready: StoreConnection?? = installed.withLock { state in
                    if Task.isCancelled { return .some(nil) }
                    if let connection = state.connection, isNew(connection) { return connection }
                    state.waiting[ticket] = listener
                    return nil
                }
                if let ready { listener.resume(returning: ready) }
            }
        } onCancel: {
            installed.withLock { $0.waiting.removeValue(forKey: ticket) }?.resume(returning: nil)
        }
    }

    private static func fromEnvironment() -> StoreConnection? {
        let environment = ProcessInfo.processInfo.environment
        guard let path = environment["STOREFRONT_CATALOG"] else { return nil }
        do {
            let store = try LocalAppStore(catalog: CatalogLoader.load(path: path), stateDirectory: environment["STOREFRONT_STATE"])
            return StoreConnection(store: store)
        } catch {
            FileHandle.standardError.write(Data("StoreKit: cannot open the store STOREFRONT_CATALOG names (\(path)): \(error)\n".utf8))
            return nil
        }
    }
}

extension StoreConnection {
    /// The error StoreKit throws for one the store raised.
    @_spi(Storefront) public static func storeKitError(_ error: any Error) -> any Error {
        switch error {
        case let failure as StoreFailure:
            switch failure {
            case .storeKit(let e): return StoreKitError(e)
            case .purchase(let e): return Product.PurchaseError(rawValue: e.rawValue) ?? StoreKitError.unknown
            case .refund(let e): return Transaction.RefundRequestError(rawValue: e.rawValue) ?? StoreKitError.unknown
            case .verification, .offerCode: return StoreKitError.unknown
            }
        case is TestControlError: return StoreKitError.unsupported
        case let error as LedgerError where error.isOutOfReach: return StoreKitError.networkError(URLError(.notConnectedToInternet))
        case is LedgerError: return StoreKitError.systemError(error)
        default: return error
        }
    }

    /// Runs a store call, throwing what StoreKit throws.
    nonisolated(nonsending) func call<T: Sendable>(_ body: nonisolated(nonsending) (any TransactionSource) async throws -> T) async throws -> T {
        do { return try await body(source) } catch { throw Self.storeKitError(error) }
    }
}

/// `finish()` calls that arrive while a finish is being written are written together, in one call: an app
/// finishing a burst of updates at once (a launch onto thousands of unfinished renewals) costs the store a
/// write a burst rather than one a transaction. Each call returns once its own finish is written. A call
/// that finds nothing being written writes at once, on its caller's executor (a lock, no hop).
final class FinishQueue: Sendable {
    private struct State {
        var isWriting = false
        /// Finishes waiting for the write in progress to end, and who to tell once they are written.
        var waiting: [(id: Int64, written: CheckedContinuation<Bool, Never>)] = []
    }
    private let state = Locked(State())
    private let write: nonisolated(nonsending) @Sendable ([Int64]) async -> Void

    /// `write`: finishes these transactions in the store, in one call.
    init(write: nonisolated(nonsending) @escaping @Sendable ([Int64]) async -> Void) { self.write = write }

    nonisolated(nonsending) func finish(_ transactionID: Int64) async {
        // Either this call writes (nothing else is), or it waits to be written by the call that is: asked
        // again under the lock it registers under, so a write that ended meanwhile is never waited for.
        func writesNow(_ waiter: CheckedContinuation<Bool, Never>?) -> Bool {
            state.withLock { state in
                guard state.isWriting else {
                    state.isWriting = true
                    return true
                }
                if let waiter { state.waiting.append((transactionID, waiter)) }
                return false
            }
        }
        // Alone, as almost always, it writes at once: no continuation, so no suspension.
        if !writesNow(nil) {
            let writes = await withCheckedContinuation { (turn: CheckedContinuation<Bool, Never>) in
                if writesNow(turn) { turn.resume(returning: true) }
            }
            guard writes else { return }
        }
        var batch = [transactionID], written: [CheckedContinuation<Bool, Never>] = []
        while !batch.isEmpty {
            await write(batch)
            for waiter in written { waiter.resume(returning: false) }
            (batch, written) = state.withLock { state in
                let next = state.waiting
                state.waiting = []
                state.isWriting = !next.isEmpty
                return (next.map(\.id), next.map(\.written))
            }
        }
    }
}

/// The verification cache behind `Transaction.currentEntitlements`: each listing is a refresh of it
/// (see `VerificationCache`), so what stopped entitling is forgotten.
final class EntitlementVerifications: Sendable {
    // Verifies under the lock: listings run one after another in practice (an app refreshing), and a
    // second waits for the first's results rather than verifying the same tokens again.
    private let cache = Locked(VerificationCache<TransactionPayload>())

    func startListing() { cache.withLock { $0.startRefresh() } }

    func result(_ jws: String, _ verifier: SignedDataVerifier) -> Verification<TransactionPayload> {
        cache.withLock { $0.result(jws, verifier.transaction) }
    }
}
