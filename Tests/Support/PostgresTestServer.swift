import CLibPQ
import TestScratch
import Foundation
import StoreEngine
import Locking

/// The PostgreSQL server the tests run the ledger on: the one `STOREFRONT_TEST_POSTGRES` names
/// (a URL), else a throwaway cluster this test process starts with `.ci/postgres` on a free
/// loopback port and stops when it exits (should it crash, the watcher `.ci/postgres` leaves stops
/// it). Every ledger gets a schema of its own, so tests in parallel never see each other's.
public enum PostgresTestServer {
    public struct Unavailable: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    /// Whether tests that need the server run: it can be reached, or CI wants a failure that says why.
    /// Never in the fast loop, which starts no server (so `SourceKind.available` leaves PostgreSQL out).
    public static var enabled: Bool {
        !TestLoop.isFast && ((try? server.get()) != nil || ProcessInfo.processInfo.environment["CI"] == "true")
    }

    /// `STOREFRONT_TEST_ENGINE=postgresql`: the behavioural suites' stores (`Harness`) keep their ledger on PostgreSQL.
    public static var isDefaultEngine: Bool { ProcessInfo.processInfo.environment["STOREFRONT_TEST_ENGINE"] == "postgresql" }

    /// The ledger a suite's store opens: under `STOREFRONT_TEST_ENGINE=postgresql` a PostgreSQL one (a
    /// fresh one, or the state directory's own), else nil (SQLite: the directory's, or memory).
    public static func defaultLedger(for directory: String?) throws -> LedgerLocation? {
        guard isDefaultEngine else { return nil }
        return .postgresql(try directory.map(ledger(for:)) ?? freshLedger())
    }

    /// The server's URL.
    public static func url() throws -> String { try server.get() }

    /// A new, empty ledger: a fresh schema in the server's database.
    public static func freshLedger() throws -> PostgresLocation {
        let schema = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try execute("CREATE SCHEMA \(schema)")
        return PostgresLocation(try url() + "?options=-csearch_path%3D\(schema)")!
    }

    /// A ledger per state directory, so a test that reopens a directory reopens its ledger.
    public static func ledger(for directory: String) throws -> PostgresLocation {
        if let known = ledgers.withLock({ $0[directory] }) { return known }
        let fresh = try freshLedger()
        return ledgers.withLock { known in
            if known[directory] == nil { known[directory] = fresh }
            return known[directory]!
        }
    }

    private static let ledgers = Locked<[String: PostgresLocation]>([:])

    /// Runs one statement on the server's database (not a ledger) through libpq itself: StoreEngine's
    /// connection is internal to it, and this module builds without `@testable` (as `swift build -c release` does).
    private static func execute(_ statement: String) throws {
        let connection = PQconnectdb(try url())
        defer { PQfinish(connection) }
        let result = PQexec(connection, statement)
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else {
            throw Unavailable(description: "\(statement): " + String(cString: PQerrorMessage(connection)))
        }
    }

    private static let server: Result<String, Unavailable> = {
        if let url = ProcessInfo.processInfo.environment["STOREFRONT_TEST_POSTGRES"], !url.isEmpty { return .success(url) }
        // A port another test process's server may take first: try again.
        var output = ""
        for _ in 0..<3 {
            let (status, printed) = run([scriptPath, "start", directory, String(freePort()), String(getpid())])
            output = printed
            if status == 0, output.hasPrefix("postgresql://") {
                atexit { _ = PostgresTestServer.run([PostgresTestServer.scriptPath, "stop", PostgresTestServer.directory]) }
                return .success(output.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            _ = run([scriptPath, "stop", directory])
        }
        return .failure(Unavailable(description: "no PostgreSQL server could be started (.ci/postgres start: \(output))"))
    }()

    /// One per test process; beside its scratch directory rather than in it, as the server may outlive the
    /// process by the second its watcher takes, and the next process's sweep must not take it from under the server.
    private static let directory: String = {
        let base = String(cString: storefront_test_scratch_base())
        return (base.isEmpty ? NSTemporaryDirectory() : base + "/") + "storefront-test-postgres-\(getpid())-\(UUID().uuidString.prefix(8))"
    }()
    public static let scriptPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path + "/.ci/postgres"

    /// A loopback port nothing listens on now.
    public static func freePort() -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return UInt16(bigEndian: address.sin_port)
    }

    /// Runs a command; its exit status and what it printed (both streams, through a file: see `TmuxSession.run`).
    public static func run(_ arguments: [String]) -> (status: Int32, output: String) {
        let log = NSTemporaryDirectory() + "storefront-postgres-\(UUID().uuidString).log"
        defer { try? FileManager.default.removeItem(atPath: log) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, arguments[0], &actions, nil, argv, environ) == 0 else { return (-1, "cannot run \(arguments[0])") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return ((status & 0x7f) == 0 ? (status >> 8) & 0xff : -1, output)
    }
}
