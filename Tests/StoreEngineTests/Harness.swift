import Foundation
import Testing
import StoreCore
@testable import StoreEngine
import StoreClient
import StorefrontTestSupport

/// A store and the app's StoreManager on it, as a test sees them.
struct Harness {
    let store: LocalAppStore
    let manager: StoreManager
    let time: ManualTime
    let directory: String?

    static func make(directory: String? = nil, time: ManualTime = ManualTime(), catalog: Catalog = Repo.catalog,
                     settings: (inout TestSettings) -> Void = { _ in }) async throws -> Harness {
        var catalog = catalog
        catalog.settings.networkDelay = 0
        catalog.settings.gracePeriod = false
        settings(&catalog.settings)
        let stack = try await StoreStack.open(catalog: catalog, stateDirectory: directory, ledger: ledger(for: directory), time: time)
        return Harness(store: stack.store, manager: stack.manager, time: time, directory: directory)
    }

    /// Under STOREFRONT_TEST_ENGINE=postgresql the same tests run on a PostgreSQL ledger.
    static func ledger(for directory: String?) throws -> LedgerLocation? { try PostgresTestServer.defaultLedger(for: directory) }

    func snapshot() async -> StoreSnapshot { await manager.snapshot }

    func entitled(_ id: String) async -> Bool { await manager.snapshot.entitlements.contains(id) }

    func balance(_ id: String) async -> Int { await manager.snapshot.balances[id] ?? 0 }

    /// The membership group's renewal info, as the app reads it after a refresh.
    func renewal() async throws -> RenewalInfoPayload {
        await manager.refresh()
        return try #require(await manager.snapshot.effectiveStatus(group: ID.group)?.renewalInfo.payload)
    }

    func entry(_ productID: String) async -> LedgerEntry? {
        await store.ledgerEntries().first { $0.payload.productID == productID }
    }

    func close() async {
        await manager.stop()
        await store.shutdown()
    }
}

extension PostgresTestServer {
    /// Runs `body` on a connection to the server's database (not a ledger), e.g. to drop a backend.
    /// Here rather than in StorefrontTestSupport: the connection is internal to StoreEngine.
    static func admin<T>(_ body: (PostgresDatabase) throws -> T) throws -> T {
        try body(try PostgresDatabase(PostgresLocation(try url())!))
    }
}

func temporaryDirectory() -> String {
    let path = NSTemporaryDirectory() + "storefront-test-" + UUID().uuidString
    return path
}

/// A new, empty temporary directory (remove it when done).
func createdTemporaryDirectory() throws -> String {
    let directory = temporaryDirectory()
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    return directory
}

extension PurchaseResult {
    var transaction: TransactionPayload? { if case .success(.verified(let t)) = self { t } else { nil } }
}
