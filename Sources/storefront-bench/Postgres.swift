import CLibPQ
import Foundation
import StoreCore
import StoreEngine
import StoreSigning

/// The ledger on PostgreSQL: purchases against bare libpq commits, how soon another machine hears of
/// one, and whether a simulated year's one write transaction costs the same per renewal at any size.
enum PostgresFigures {
    static let ids = ["postgres-purchases", "postgres-delivery", "postgres-year"]

    /// The wanted figures, on a throwaway server of their own (stopped at the end, also on failure);
    /// without one they are skipped, not missed.
    static func run(_ sizes: Sizes, wanted: (String) -> Bool) async throws -> [Result] {
        let server: PostgresServer
        do {
            server = try PostgresServer.start()
        } catch {
            return ids.filter(wanted).map {
                Result(id: $0, figure: $0, unit: "", target: "", note: "skipped: no PostgreSQL server (\(error))")
            }
        }
        defer { server.stop() }
        var results: [Result] = []
        if wanted(ids[0]) { results.append(try await purchases(sizes, server)) }
        if wanted(ids[1]) { results.append(try await delivery(sizes, server)) }
        if wanted(ids[2]) { results.append(try await year(sizes, server)) }
        return results
    }

    // MARK: postgres-purchases

    static func purchases(_ sizes: Sizes, _ server: PostgresServer) async throws -> Result {
        let store = try LocalAppStore(catalog: Repo.bundledCatalog(), stateDirectory: nil, ledger: .postgresql(try server.schema("purchases")))
        _ = try await Figures.buyCoins(store)
        let commitCopy = try rawCommitter(server)
        let signer = RawECDSABaseline(key: try StoreIdentity.ephemeral().key)
        let digest = [UInt8](repeating: 7, count: 32)
        let n = max(sizes.purchases / 10, 10)
        let samples = try await repeatUntilSteady(
            { for _ in 0..<n { _ = try await Figures.buyCoins(store) } },
            {
                for _ in 0..<n {
                    _ = try signer.sign(digest: digest)
                    try commitCopy()
                }
            })
        await store.shutdown()
        let (rate, baseline) = (Double(n) / samples[0].median, Double(n) / samples[1].median)
        return Result(id: ids[0], figure: "committed purchases, PostgreSQL ledger", measured: rate, baseline: baseline, unit: "/s",
                      ratio: rate / baseline, target: "≥ 0.50×", pass: rate >= 0.5 * baseline,
                      note: "\(n) purchases a round; baseline, as figure 2's: a raw ECDSA sign and a purchase's 3 rows (transaction, event, "
                          + "notification) copied into another ledger's tables through bare libpq, BEGIN + 3 prepared INSERTs + COMMIT, each").from(samples)
    }

    // MARK: postgres-year

    /// A simulated year of monthly renewals on a PostgreSQL ledger, per renewal, with all the subscribers
    /// and with a quarter of them: a catch-up is one write transaction, and while its cost per row grew
    /// with its rows (a counter row updated once per row), 1,000 subscribers took 1.27× as long a renewal as 250.
    static func year(_ sizes: Sizes, _ server: PostgresServer) async throws -> Result {
        let (large, small) = (sizes.subscribers, max(sizes.subscribers / 4, 1))
        var samples = [Sample(times: []), Sample(times: [])]
        var renewals = 0
        for round in 0..<Steadiness.slow.minimum {
            for (slot, subscribers) in [large, small].enumerated() {
                let year = try await perRenewal(subscribers: subscribers, on: try server.schema("year\(round)_\(slot)"))
                samples[slot].times.append(year.seconds)
                if slot == 0 { renewals = year.renewals }
            }
        }
        let (a, b) = (samples[0].median, samples[1].median)
        return Result(id: ids[2], figure: "a simulated year, PostgreSQL ledger, per renewal", measured: a * 1e3, baseline: b * 1e3, unit: "ms",
                      ratio: a / b, target: "≤ 1.2×", pass: a <= 1.2 * b,
                      note: "\(large) monthly subscribers, \(renewals) renewals in one write transaction "
                          + String(format: "(%.2f s); baseline: the same with %d subscribers", a * Double(renewals), small))
            .from(samples)
    }

    /// Seconds a renewal of a year's catch-up takes on a new ledger with `subscribers` monthly subscriptions, and how many it made.
    static func perRenewal(subscribers: Int, on ledger: PostgresLocation) async throws -> (seconds: Double, renewals: Int) {
        let catalog = try Generate.catalog(oneTime: 0, groups: subscribers, perGroup: 1)
        let store = try LocalAppStore(catalog: catalog, stateDirectory: nil, ledger: .postgresql(ledger))
        for g in 0..<subscribers { try await store.buyOutsideApp(productID: "gen.group\(g).sub0", familyShared: false) }
        let before = await store.transactionCount()
        let start = ContinuousClock.now
        try await store.advanceTime(by: Period(1, .year))
        let seconds = (ContinuousClock.now - start).seconds
        let renewals = await store.transactionCount() - before
        await store.shutdown()
        guard renewals >= 11 * subscribers else { throw BenchError("the year renewed \(renewals) of \(subscribers) subscriptions") }
        return (seconds / Double(renewals), renewals)
    }

    /// A purchase's rows, by table: its columns, the one holding the transaction's ID first, and the
    /// others that hold it too.
    static let purchaseRows: [(table: String, columns: [String], ids: Set<String>)] = [
        ("transactions", ["id", "original_id", "product_id", "product_type", "status", "finished", "revoked", "payload", "jws",
                          "refund_request"], ["id", "original_id"]),
        ("events", ["transaction_id", "kind", "origin"], ["transaction_id"]),
        ("notifications", ["transaction_id", "original_id", "type", "subtype", "product_id", "created", "environment",
                           "renewal_payload", "status", "test_token", "delivery", "next_attempt"], ["transaction_id", "original_id"]),
    ]

    /// Commits a copy of the last purchase's rows in schema `purchases`, under a new ID each time,
    /// into a ledger the store made in schema `raw` (the same tables, indexes and triggers).
    static func rawCommitter(_ server: PostgresServer) throws -> () throws -> Void {
        _ = try LocalAppStore(catalog: Repo.bundledCatalog(), stateDirectory: nil, ledger: .postgresql(try server.schema("raw")))
        let db = try RawPostgres(server.schema("raw").url)
        guard let last = try db.run("SELECT MAX(id) FROM purchases.transactions").first?.first ?? nil else { throw BenchError("no purchase to copy") }
        let rows = try purchaseRows.map { table, columns, ids in
            let values = try db.run("SELECT \(columns.joined(separator: ", ")) FROM purchases.\(table) WHERE \(columns[0]) = $1", [last])
            guard let row = values.first, values.count == 1 else { throw BenchError("purchase \(last) has \(values.count) rows in \(table)") }
            let insert = "INSERT INTO \(table)(\(columns.joined(separator: ", "))) VALUES (\(columns.indices.map { "$\($0 + 1)" }.joined(separator: ", ")))"
            return (insert, columns.map(ids.contains), row)
        }
        var next = 3_000_000_000
        return {
            next += 1
            try db.run("BEGIN")
            for (insert, isID, row) in rows { try db.run(insert, zip(isID, row).map { $0 ? String(next) : $1 }) }
            try db.run("COMMIT")
        }
    }

    // MARK: postgres-delivery

    static func delivery(_ sizes: Sizes, _ server: PostgresServer) async throws -> Result {
        let catalog = try Repo.bundledCatalog()
        let location = try server.schema("delivery")
        let postgres = try await deliveryTimes(LocalAppStore(catalog: catalog, stateDirectory: nil, ledger: .postgresql(location)),
                                               LocalAppStore(catalog: catalog, stateDirectory: nil, ledger: .postgresql(location)), count: sizes.deliveries)
        let directory = temporaryDirectory("delivery")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let polled = sizes.deliveries / 10
        let sqlite = try await deliveryTimes(LocalAppStore(catalog: catalog, stateDirectory: directory),
                                             LocalAppStore(catalog: catalog, stateDirectory: directory), count: polled)
        let p99 = percentile(postgres, 0.99)
        func ms(_ seconds: Double) -> String { String(format: "%.1f ms", seconds * 1000) }
        return Result(id: ids[1], figure: "delivery to another machine, PostgreSQL ledger, p99", measured: p99 * 1000,
                      baseline: percentile(sqlite, 0.99) * 1000, unit: "ms", ratio: nil, target: "p99 ≤ 100 ms", pass: p99 <= 0.1,
                      note: "median \(ms(percentile(postgres, 0.5))), \(postgres.count) purchases on one store until a second "
                          + "store's updates() yields each (LISTEN/NOTIFY); baseline: the same on one SQLite ledger, woken "
                          + "by inotify on its log (median \(ms(percentile(sqlite, 0.5))), \(sqlite.count) purchases)")
    }

    /// Seconds, sorted, from the start of each of `count` purchases on `seller` until `listener`'s
    /// update stream yields it; both stores are shut down after.
    static func deliveryTimes(_ seller: LocalAppStore, _ listener: LocalAppStore, count: Int) async throws -> [Double] {
        var updates = await listener.updates().makeAsyncIterator()
        // A delivery that never comes ends the stream rather than hanging the run.
        let watchdog = Task { try await Task.sleep(for: .seconds(10 + count)); await listener.shutdown() }
        defer { watchdog.cancel() }
        var times: [Double] = []
        for _ in 0..<count {
            let start = ContinuousClock.now
            let jws = try await Figures.buyCoins(seller)
            guard let delivered = await updates.next() else { throw BenchError("the second store delivered no purchase in \(10 + count) s") }
            guard delivered == jws else { throw BenchError("the second store delivered another transaction than the one bought") }
            times.append((ContinuousClock.now - start).seconds)
        }
        await seller.shutdown()
        await listener.shutdown()
        return times.sorted()
    }

    static func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }
}

/// A throwaway PostgreSQL server, made by `.ci/postgres` in a temporary directory on a free loopback port.
struct PostgresServer {
    let directory: String
    let url: String

    /// Throws why none could be started.
    static func start() throws -> PostgresServer {
        let directory = temporaryDirectory("postgres")
        do {
            let url = try script(["start", directory, String(try freePort())])
            guard url.hasPrefix("postgresql://") else { throw BenchError(".ci/postgres printed \(url)") }
            return PostgresServer(directory: directory, url: url)
        } catch {
            _ = try? script(["stop", directory])
            try? FileManager.default.removeItem(atPath: directory)  // when the script could not even run
            throw error
        }
    }

    func stop() { _ = try? Self.script(["stop", directory]) }

    /// A ledger of its own: `name`, a new schema in the server's database.
    func schema(_ name: String) throws -> PostgresLocation {
        try RawPostgres(url).run("CREATE SCHEMA IF NOT EXISTS \(name)")
        return PostgresLocation(url + "?options=-csearch_path%3D" + name)!
    }

    /// Runs `.ci/postgres`; its last line of output, or an error with it. Spawned by hand, with a log file
    /// for output (the script closes every other descriptor before it starts the server, which outlives it).
    static func script(_ arguments: [String]) throws -> String {
        let log = temporaryDirectory("postgres-script")
        defer { try? FileManager.default.removeItem(atPath: log) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, log + "/output", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = ([Repo.root + "/.ci/postgres"] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, argv[0]!, &actions, nil, argv, environ)
        guard spawned == 0 else { throw BenchError("cannot run .ci/postgres (\(String(cString: strerror(spawned))))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let output = (try? String(contentsOfFile: log + "/output", encoding: .utf8)) ?? ""
        let last = output.split(whereSeparator: \.isNewline).last.map(String.init) ?? ""
        guard status == 0 else { throw BenchError(last.isEmpty ? ".ci/postgres failed (wait status \(status))" : last) }
        return last
    }

    /// A port nothing listens on now: the one the kernel picks for a socket bound to port 0.
    static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        guard socket >= 0, bound else { throw BenchError("no free port (\(String(cString: strerror(errno))))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// A bare libpq connection, for the baseline: statements with parameters are prepared once.
final class RawPostgres {
    private let connection: OpaquePointer
    private var prepared: [String: String] = [:]

    init(_ url: String) throws {
        guard let connection = PQconnectdb(url) else { throw BenchError("libpq: out of memory") }
        self.connection = connection
        guard PQstatus(connection) == CONNECTION_OK else { throw BenchError("libpq: " + String(cString: PQerrorMessage(connection))) }
        PQsetNoticeProcessor(connection, { _, _ in }, nil)  // `IF NOT EXISTS` would print one
    }

    deinit { PQfinish(connection) }

    /// The rows `sql` returns, as text (nil: NULL).
    @discardableResult
    func run(_ sql: String, _ parameters: [String?] = []) throws -> [[String?]] {
        let result = parameters.isEmpty ? PQexec(connection, sql) : try withCStrings(parameters) {
            PQexecPrepared(connection, try statement(sql), Int32(parameters.count), $0, nil, nil, 0)
        }
        defer { PQclear(result) }
        try check(result)
        return (0..<PQntuples(result)).map { row in
            (0..<PQnfields(result)).map { PQgetisnull(result, row, $0) == 1 ? nil : String(cString: PQgetvalue(result, row, $0)) }
        }
    }

    private func statement(_ sql: String) throws -> String {
        if let name = prepared[sql] { return name }
        let name = "s\(prepared.count)"
        let result = PQprepare(connection, name, sql, 0, nil)
        defer { PQclear(result) }
        try check(result)
        prepared[sql] = name
        return name
    }

    private func check(_ result: OpaquePointer?) throws {
        let status = result.map(PQresultStatus) ?? PGRES_FATAL_ERROR
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else { throw BenchError("libpq: " + String(cString: PQerrorMessage(connection))) }
    }

    private func withCStrings<R>(_ strings: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>) throws -> R) rethrows -> R {
        let copies = strings.map { $0.map { UnsafePointer(strdup($0)!) } }
        defer { copies.forEach { free(UnsafeMutablePointer(mutating: $0)) } }
        return try copies.withUnsafeBufferPointer { try body($0.baseAddress!) }
    }
}
