import Foundation
import StoreCore
@testable import StoreEngine
import StorefrontTestSupport

/// Long parts run only with STOREFRONT_LONG_TESTS=1 (CI).
let longTests = ProcessInfo.processInfo.environment["STOREFRONT_LONG_TESTS"] == "1"

extension PostgresTestServer {
    /// Runs `body` on a connection to the server's database (not a ledger).
    /// Here rather than in StorefrontTestSupport: the connection is internal to StoreEngine.
    static func admin<T>(_ body: (PostgresDatabase) throws -> T) throws -> T {
        try body(try PostgresDatabase(PostgresLocation(try url())!))
    }
}

/// The seed of a seeded test: STOREFRONT_SEED when set (to reproduce a run), else a fresh one. Printed either way.
func testSeed(_ name: String) -> UInt64 {
    let seed = ProcessInfo.processInfo.environment["STOREFRONT_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64(UInt32.max))
    print("[\(name)] seed \(seed) (reproduce with STOREFRONT_SEED=\(seed))")
    return seed
}


func temporaryDirectory(_ name: String) -> String {
    let path = NSTemporaryDirectory() + "storefront-reliability-\(name)-\(UUID().uuidString.prefix(8))"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

struct WorkerError: Error, CustomStringConvertible { var description: String }

/// One `storefront-crash-worker` process (Tests/CrashWorker), its output going to a log file.
final class WorkerProcess {
    let process = Process()
    let log: String

    init(state: String, ledger: PostgresLocation? = nil, seed: UInt64, count: Int? = nil, nonConsumables: Int? = nil) throws {
        guard FileManager.default.isExecutableFile(atPath: Repo.crashWorkerBinary) else {
            throw WorkerError(description: "\(Repo.crashWorkerBinary) is missing: run `swift build` before `swift test`")
        }
        log = state + "/worker-\(seed)-\(UUID().uuidString.prefix(6)).log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let output = FileHandle(forWritingAtPath: log)!
        process.executableURL = URL(fileURLWithPath: Repo.crashWorkerBinary)
        var arguments = ["--state", state, "--seed", String(seed)]
        if let count { arguments += ["--count", String(count)] }
        if let nonConsumables { arguments += ["--non-consumables", String(nonConsumables)] }
        if let ledger { arguments += ["--ledger", ledger.url] }
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = output
        try process.run()
        try output.close()
    }

    func kill() async throws {
        try await killAndAwaitExit(process)
    }

    /// `ok` lines: (transaction ID, product ID, quantity); every other line.
    func output() -> (purchases: [(id: Int64, product: String, quantity: Int)], other: [String]) {
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        var purchases: [(Int64, String, Int)] = [], other: [String] = []
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            // A line cut by the kill has no newline after it but may still be whole; only complete fields count.
            if fields.count == 4, fields[0] == "ok", let id = Int64(fields[1]), let quantity = Int(fields[3]) {
                purchases.append((id, String(fields[2]), quantity))
            } else {
                other.append(String(line))
            }
        }
        return (purchases, other)
    }
}

/// A finished run of the `storefront` binary.
struct Run {
    var status: Int32
    var reason: Process.TerminationReason
    var output: String
}

/// Runs `storefront` with `arguments`, stdout and stderr into a file (not a terminal), stdin from `stdin` (a path) or closed.
/// `deadline` is a safety net for a binary that would hang: it is killed then (and the run reports the signal).
@discardableResult
func storefront(_ arguments: [String], stdin: String? = "/dev/null", environment: [String: String]? = nil,
                deadline: Duration = .seconds(600)) throws -> Run {
    let run = try startStorefront(arguments, stdin: stdin, environment: environment)
    let end = ContinuousClock.now + deadline
    while run.process.isRunning && ContinuousClock.now < end { usleep(20_000) }
    if run.process.isRunning { kill(run.process.processIdentifier, SIGKILL) }
    run.process.waitUntilExit()
    return Run(status: run.process.terminationStatus, reason: run.process.terminationReason, output: run.output())
}

/// A `/bin/sh -c` command line, its stdout and stderr together.
func shell(_ command: String) throws -> Run {
    let process = Process()
    let pipe = Pipe()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", command]
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Run(status: process.terminationStatus, reason: process.terminationReason, output: String(decoding: output, as: UTF8.self))
}

/// SIGKILLs `process` and waits for its end without holding a thread of the tests' pool: Foundation's
/// `waitUntilExit` there once hung the whole suite after a kill. Dead is gone or a zombie (the kernel's
/// word, whether or not Foundation has reaped it yet); a process still alive after 30 s is an error.
func killAndAwaitExit(_ process: Process) async throws {
    let pid = process.processIdentifier
    if process.isRunning { kill(pid, SIGKILL) }
    let end = ContinuousClock.now + .seconds(30)
    while process.isRunning, !isZombie(pid) {
        guard ContinuousClock.now < end else { throw WorkerError(description: "process \(pid) still runs 30 s after SIGKILL") }
        try await Task.sleep(for: .milliseconds(5))
    }
}

private func isZombie(_ pid: pid_t) -> Bool {
    // /proc/PID/stat: "PID (name) STATE …"; the name may hold spaces and parentheses, the state follows the last ")".
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return true }
    return stat[close...].dropFirst().trimmingCharacters(in: .whitespaces).hasPrefix("Z")
}

final class StorefrontProcess {
    let process = Process()
    let log = NSTemporaryDirectory() + "storefront-run-\(UUID().uuidString.prefix(8)).log"

    func output() -> String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
    deinit { try? FileManager.default.removeItem(atPath: log) }
}

func startStorefront(_ arguments: [String], stdin: String? = "/dev/null", environment: [String: String]? = nil) throws -> StorefrontProcess {
    guard FileManager.default.isExecutableFile(atPath: Repo.storefrontBinary) else {
        throw WorkerError(description: "\(Repo.storefrontBinary) is missing: run `swift build` before `swift test`")
    }
    let run = StorefrontProcess()
    _ = FileManager.default.createFile(atPath: run.log, contents: nil)
    let output = FileHandle(forWritingAtPath: run.log)!
    run.process.executableURL = URL(fileURLWithPath: Repo.storefrontBinary)
    run.process.arguments = arguments
    run.process.standardOutput = output
    run.process.standardError = output
    if let stdin { run.process.standardInput = FileHandle(forReadingAtPath: stdin) }
    if let environment { run.process.environment = environment }
    try run.process.run()
    try output.close()
    return run
}
