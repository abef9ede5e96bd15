import Foundation
import Testing
import StoreCore
@testable import StoreClient
@testable import StoreEngine

/// Both engines fail as the ledger's kinds of failure (`LedgerError`); the app tells them apart by kind alone.
@Suite("Ledger failures by kind")
struct LedgerErrorTests {
    @Test("the app reads a full disk as StoreKit's systemError, a server out of reach as networkError, anything else as unknown")
    func theAppMapsKindsToStoreKitErrors() {
        #expect(StoreManager.failure(LedgerError.diskFull(path: "/s/wallet.sqlite", detail: "SQLite error 13")) == .storeKit(.systemError))
        #expect(StoreManager.failure(LedgerError.connectionLost(path: "postgresql://db/s", detail: "EOF")) == .storeKit(.networkError))
        #expect(StoreManager.failure(LedgerError.unreachable(path: "postgresql://db/s", detail: "refused")) == .storeKit(.networkError))
        #expect(StoreManager.failure(LedgerError.failed(path: "/s/ledger.sqlite", detail: "SQLite error 1")) == .storeKit(.unknown))
    }

    @Test("SQLite's errors are the ledger's kinds, naming the file")
    func sqliteErrorsAreLedgerKinds() throws {
        let directory = try createdTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/not-a-ledger.sqlite"
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: path))
        #expect(throws: LedgerError.self) { try SQLiteDatabase(path: path).query("SELECT 1 FROM sqlite_master") }
        do {
            _ = try SQLiteDatabase(path: path).query("SELECT 1 FROM sqlite_master")
        } catch let error as LedgerError {
            guard case .damaged(path, _) = error else { Issue.record("\(error)"); return }
        }
        let db = try SQLiteDatabase(path: directory + "/t.sqlite")
        let error = #expect(throws: LedgerError.self) { try db.query("SELECT * FROM missing") }
        #expect(error == .failed(path: directory + "/t.sqlite", detail: "SQLite error 1: no such table: missing"))
    }
}
