import Foundation
import StoreCore
import StoreEngine
import StoreVerification

/// The composition root: the one place the local App Store and the app on it are put together, for
/// the TUI, the commands, scenarios, the benchmark and the tests.
public struct StoreStack: Sendable {
    public let store: LocalAppStore
    public let manager: StoreManager

    /// Opens the local App Store on a state directory (nil keeps everything in memory) and launches the app on it
    /// (`ledger`: see `LocalAppStore.init`; `historyAfterFirstFrame`: see `StoreManager.start`).
    public static func open(catalog: Catalog, stateDirectory: String?, ledger: LedgerLocation? = nil, storefront: String? = nil,
                            locale: String? = nil, time: any RealTimeSource = SystemTime(), productIDs: [String]? = nil,
                            historyAfterFirstFrame: Bool = false) async throws -> StoreStack {
        let store = try LocalAppStore(catalog: catalog, stateDirectory: stateDirectory, ledger: ledger, storefront: storefront,
                                      locale: locale, time: time)
        return StoreStack(store: store, manager: try await launchApp(on: store, stateDirectory: stateDirectory, productIDs: productIDs,
                                                                     historyAfterFirstFrame: historyAfterFirstFrame))
    }

    /// The app launching on a store: its `StoreManager` trusts the store's certificate, keeps its
    /// consumables' wallet beside the ledger, and starts listening (which redelivers unfinished transactions).
    public static func launchApp(on store: LocalAppStore, stateDirectory: String?, walletName: String = "wallet.sqlite",
                                 productIDs: [String]? = nil, historyAfterFirstFrame: Bool = false) async throws -> StoreManager {
        try await launchApp(on: store, wallet: openWallet(for: store, stateDirectory: stateDirectory, name: walletName),
                            productIDs: productIDs, historyAfterFirstFrame: historyAfterFirstFrame)
    }

    /// `beforeStart`: what hears the app from its first word (a scenario runner listening to what it reports at launch).
    public static func launchApp(on store: LocalAppStore, wallet: ConsumableWallet, productIDs: [String]? = nil,
                                 historyAfterFirstFrame: Bool = false,
                                 beforeStart: @Sendable (StoreManager) async -> Void = { _ in }) async -> StoreManager {
        let manager = StoreManager(source: store, verifier: SignedDataVerifier(trustedRoots: [store.certificate]), wallet: wallet,
                                   productIDs: productIDs, includesConsumableHistory: await store.catalog.app.includesConsumableHistory)
        await beforeStart(manager)
        await manager.start(historyAfterFirstFrame: historyAfterFirstFrame)
        return manager
    }

    /// The app's wallet `name` in the state directory (nil: in memory), once it agrees with the store's
    /// ledger: a wallet the ledger knew that is gone, or one of another ledger, is refused (see `ConsumableWallet`).
    public static func openWallet(for store: LocalAppStore, stateDirectory: String?, name: String = "wallet.sqlite") async throws
        -> ConsumableWallet {
        // The wallet stays on this machine, also when the ledger is a team's shared database.
        if let stateDirectory { try StateDirectory.create(stateDirectory) }
        let path = stateDirectory.map { $0 + "/" + name }
        if let path, !ConsumableWallet.exists(at: path), try await store.hadWallet(named: name) {
            throw StateError(ConsumableWallet.lostMessage(path))
        }
        let wallet = try ConsumableWallet(path: path)
        try await store.madeWallet(named: name)
        try await wallet.check(againstLedgerUpTo: store.highestTransactionID(), ledger: store.ledgerDescription())
        return wallet
    }

    /// The app quits, then the store closes.
    public func close() async {
        await manager.stop()
        await store.shutdown()
    }
}
