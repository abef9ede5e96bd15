import Foundation
import Testing
@testable import StoreEngine
import StorefrontTestSupport

/// A PostgreSQL ledger that cannot be used stops every command that would open it: exit 2, one
/// message naming the URL without its password and what to do, and nothing written anywhere.
@Suite("A ledger URL that cannot be used", .tags(.slow), .notInFastLoop)
struct BadLedgerURLTests {
    static let unreachable = "postgresql://qa:s3cret@127.0.0.1:1/store"

    @Test("an unreachable database exits 2 naming the URL without the password, and leaves no state directory",
          arguments: [["export"], ["notifications"], ["serve", "--port", "0"], ["cert"], ["run", "Tests/Scenarios/restore.scenario"]])
    func unreachableDatabase(command: [String]) throws {
        let state = temporaryDirectory("bad-ledger") + "/state"
        let run = try storefront(command + ["--ledger", Self.unreachable, "--state", state, "--catalog", Repo.catalogPath])
        #expect(run.status == 2, "\(run.output)")
        #expect(run.output.contains("postgresql://qa@127.0.0.1:1/store: cannot open the ledger's database"), "\(run.output)")
        #expect(!run.output.contains("s3cret"))
        #expect(!FileManager.default.fileExists(atPath: state), "\(command[0]) made \(state)")
    }

    @Test("STOREFRONT_LEDGER is the ledger of the commands on the saved store, checked the same way")
    func environmentVariable() throws {
        let state = temporaryDirectory("bad-ledger-env") + "/state"
        var environment = ProcessInfo.processInfo.environment
        environment["STOREFRONT_LEDGER"] = Self.unreachable
        let run = try storefront(["export", "--state", state, "--catalog", Repo.catalogPath], environment: environment)
        #expect(run.status == 2)
        #expect(run.output.contains("postgresql://qa@127.0.0.1:1/store: cannot open"), "\(run.output)")
        environment["STOREFRONT_LEDGER"] = "ledger.db"
        let wrong = try storefront(["export", "--state", state, "--catalog", Repo.catalogPath], environment: environment)
        #expect(wrong.status == 2)
        #expect(wrong.output.contains("STOREFRONT_LEDGER needs a PostgreSQL URL"), "\(wrong.output)")
        #expect(!FileManager.default.fileExists(atPath: state))
    }

    @Test("--ledger that is not a PostgreSQL URL is a usage error")
    func notAPostgresURL() throws {
        let run = try storefront(["export", "--ledger", "sqlite:///tmp/x"])
        #expect(run.status == 2)
        #expect(run.output.contains("--ledger needs a PostgreSQL URL"), "\(run.output)")
    }

    @Test("a database of another application exits 2 and is left as it was",
          .tags(.postgres), .enabled(if: PostgresTestServer.enabled, "needs a PostgreSQL server (set CI to fail instead of skipping)"))
    func foreignDatabase() throws {
        let ledger = try PostgresTestServer.freshLedger()
        let schema = String(ledger.url.split(separator: "%3D").last!)
        try PostgresTestServer.admin { try $0.execute("CREATE TABLE \(schema).orders(id INT)") }
        let state = temporaryDirectory("foreign-ledger") + "/state"
        let run = try storefront(["export", "--ledger", ledger.url, "--state", state, "--catalog", Repo.catalogPath])
        #expect(run.status == 2)
        #expect(run.output.contains("holds tables that are not a Storefront ledger (orders)"), "\(run.output)")
        #expect(!run.output.contains(":storefront@"), "the password is not repeated")
        let tables = try PostgresTestServer.admin {
            try $0.query("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = ?", [.text(schema)])
        }
        #expect(tables == [[.int(1)]])
        #expect(!FileManager.default.fileExists(atPath: state))
    }
}
