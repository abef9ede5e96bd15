import Foundation
import Testing
import StoreClient
import StoreCore
@testable import StoreEngine
import StorefrontApp
import StorefrontTestSupport

/// What the ledger holds and what the app's wallet beside it holds must agree, or purchases are lost
/// without a word: each test here failed before the fix it names.
@Suite("The ledger and the wallet agree", .tags(.slow), .notInFastLoop, .serialized)
struct LedgerAgreementTests {
    /// A damaged meta row was read as missing: the clock went back to now, the settings to the catalog's.
    @Test("A damaged meta row is reported as damage, naming the row", arguments: [
        ("clock", "{\"rate\": "), ("settings", "not json"), ("appTransactionID", "12ab"),
    ])
    func damagedMetaRow(_ key: String, _ value: String) async throws {
        let state = try await DamagedLedgerTests.stateWithPurchases()
        defer { try? FileManager.default.removeItem(atPath: state) }
        try SQLiteDatabase(path: state + "/ledger.sqlite").query("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", [.text(key), .text(value)])
        #expect {
            _ = try LocalAppStore(catalog: Repo.testCatalog, stateDirectory: state)
        } throws: { error in
            guard case LedgerError.damagedRow(_, "meta", key, _)? = error as? LedgerError else { return false }
            return "\(error)".contains("row \(key) of meta is damaged") && "\(error)".contains(".recover")
        }
    }

    /// Its token was rebuilt over `{}` and exported as if it were a transaction.
    @Test("A transaction whose payload is {} makes the export fail, naming the row")
    func emptyPayloadIsNotExported() async throws {
        let state = try await DamagedLedgerTests.stateWithPurchases()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let db = try SQLiteDatabase(path: state + "/ledger.sqlite")
        let id = try #require(try db.query("SELECT MIN(id) FROM transactions").first?.first?.int)
        try db.query("UPDATE transactions SET payload = '{}' WHERE id = ?", [.int(id)])
        let store = try LocalAppStore(catalog: Repo.testCatalog, stateDirectory: state)
        await #expect {
            _ = try await store.exportSignedData()
        } throws: { error in
            "\(error)".contains("row \(id) of transactions is damaged (its payload is not a transaction)")
        }
        await store.shutdown()
    }

    /// It opened with an empty wallet: every consumable balance was zero, and nothing said why.
    @Test("A deleted wallet beside a ledger that had one is refused, saying what to do")
    func deletedWalletIsRefused() async throws {
        let state = try await DamagedLedgerTests.stateWithPurchases()
        defer { try? FileManager.default.removeItem(atPath: state) }
        for file in ["wallet.sqlite", "wallet.sqlite-wal", "wallet.sqlite-shm"] { try? FileManager.default.removeItem(atPath: state + "/" + file) }
        await #expect {
            _ = try await App(state: state)
        } throws: { error in
            let text = "\(error)"
            return text.hasPrefix(state + "/wallet.sqlite is missing or empty") && text.contains("Restore \(state)/wallet.sqlite from a backup")
        }
        // Nothing was made in its place.
        #expect(!FileManager.default.fileExists(atPath: state + "/wallet.sqlite"))
    }

    /// A PostgreSQL ledger on a state directory used with SQLite started again at 2000000001, IDs the
    /// wallet had credited: the next purchase was charged, never credited, and stayed unfinished.
    @Test("A wallet of another ledger is refused before a purchase could reuse its IDs",
          .tags(.postgres), .enabled(if: PostgresTestServer.enabled, "needs a PostgreSQL server (set CI to fail instead of skipping)"))
    func walletOfAnotherLedgerIsRefused() async throws {
        let state = try await DamagedLedgerTests.stateWithPurchases()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let other = LedgerLocation.postgresql(try PostgresTestServer.freshLedger())
        await #expect {
            _ = try await StoreStack.open(catalog: Repo.testCatalog, stateDirectory: state, ledger: other)
        } throws: { error in
            let text = "\(error)"
            return text.contains("\(state)/wallet.sqlite credited transaction 2000000004, which the ledger postgresql://")
                && text.contains("never made (its highest is 0)") && text.contains("Use a state directory of its own")
        }
        // The wallet's own ledger still opens, with its balance.
        let app = try await App(state: state)
        #expect(await app.gems() == 10)
        await app.close()
    }

    /// Purchases showed `failed systemError` with a ✓, and the run passed; the disk was never mentioned.
    @Test("A purchase on a full disk fails the scenario step, naming the file and the full disk")
    func purchaseOnFullDisk() async throws {
        let directory = temporaryDirectory("full-disk")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/full.scenario"
        let steps = Array(repeating: "buy com.lumenquest.gems.500", count: 40).joined(separator: "\n")
        try "catalog \(Repo.catalogPath)\n\(steps)\n".write(toFile: file, atomically: true, encoding: .utf8)
        let state = directory + "/state"
        // The ledger may not grow past what it holds at open: the real purchase path meets SQLITE_FULL.
        let runner = ScenarioRunner(scenario: try ScenarioParser.parse(file: file), catalog: Repo.catalog, stateDirectory: state) { store in
            try await store.withLedgerDatabase { db in
                let pages = try db.query("PRAGMA page_count").first?.first?.int ?? 0
                try db.execute("PRAGMA max_page_count = \(pages)")
            }
        }
        let result = await runner.run()
        #expect(!result.passed)
        let failed = try #require(result.steps.first { $0.outcome == .failed })
        #expect(failed.note?.hasPrefix(state + "/ledger.sqlite: the disk is full; free some space") == true, "\(failed.note ?? "no note")")
        #expect(result.steps.last?.outcome == .skipped)
    }
}

@Suite("Messages that name the thing and what to do", .tags(.slow), .notInFastLoop)
struct BrokenFileMessageTests {
    /// It said "SQLite error 14: unable to open database file".
    @Test("A ledger that is a directory is named as one, with what to do")
    func ledgerIsADirectory() async throws {
        let state = try await DamagedLedgerTests.stateWithPurchases()
        defer { try? FileManager.default.removeItem(atPath: state) }
        for file in ["ledger.sqlite", "ledger.sqlite-wal", "ledger.sqlite-shm"] { try? FileManager.default.moveItem(atPath: state + "/" + file, toPath: state + "/kept-" + file) }
        try FileManager.default.createDirectory(atPath: state + "/ledger.sqlite", withIntermediateDirectories: false)
        #expect {
            _ = try LocalAppStore(catalog: Repo.testCatalog, stateDirectory: state)
        } throws: { error in
            "\(error)".hasPrefix(state + "/ledger.sqlite: it is a directory, not a database file: move it away")
        }
    }

    /// It said "the ledger is damaged" and told how to recover ledger.sqlite, not the wallet.
    @Test("A wallet that is not a database is named as the app's wallet, with how to recover it")
    func damagedWallet() async throws {
        let state = try await DamagedLedgerTests.stateWithPurchases()
        defer { try? FileManager.default.removeItem(atPath: state) }
        for file in ["wallet.sqlite-wal", "wallet.sqlite-shm"] { try? FileManager.default.removeItem(atPath: state + "/" + file) }
        try String(repeating: "not a database ", count: 20).write(toFile: state + "/wallet.sqlite", atomically: true, encoding: .utf8)
        await #expect {
            _ = try await App(state: state)
        } throws: { error in
            let text = "\(error)"
            return text.hasPrefix(state + "/wallet.sqlite: the app's wallet is damaged") && text.contains("sqlite3 \(state)/wallet.sqlite .recover")
        }
    }
}
