import Foundation
import StoreCore
import StoreEngine

/// The real `storefront` binary on a pseudo-terminal, opening a returning user's state directory:
/// how soon its first frame appears, and how much CPU it uses sitting idle, with a huge ledger
/// against an empty one.
enum LaunchFigures {
    static let ids = ["first-frame-1m", "idle-cpu-1m"]

    /// A catalog file and two state directories on it, each launched once already (a returning
    /// user's: the unfinished transactions the builder left were delivered and finished then).
    struct Ledgers {
        var catalog: String
        var empty: String
        var huge: String
        var transactions: Int
        var label: String { transactions >= 1_000_000 ? "\(transactions / 1_000_000)M" : "\(transactions / 1000)k" }
    }

    static func prepare(_ sizes: Sizes, in work: String) async throws -> Ledgers {
        let catalog = try Generate.catalog(oneTime: 90, groups: 2, perGroup: 5)
        let ledgers = Ledgers(catalog: work + "/catalog.json", empty: work + "/empty", huge: work + "/huge", transactions: sizes.hugeLedger)
        try Generate.catalogData(catalog).write(to: URL(fileURLWithPath: ledgers.catalog))
        await (try LocalAppStore(catalog: catalog, stateDirectory: ledgers.empty)).shutdown()
        try await Figures.buildLedger(directory: ledgers.huge, catalog: catalog, total: sizes.hugeLedger)
        for state in [ledgers.empty, ledgers.huge] {
            let app = try LaunchedStorefront(catalog: ledgers.catalog, state: state)
            defer { app.stop() }
            guard app.waitForFirstFrame() != nil else { throw BenchError("storefront never drew its store screen: \(app.failure)") }
            usleep(3_000_000)  // what the builder left unfinished is delivered and finished
        }
        return ledgers
    }

    static func run(_ sizes: Sizes, wanted: (String) -> Bool) async throws -> [Result] {
        guard FileManager.default.isExecutableFile(atPath: TerminalFigures.binary) else {
            return ids.filter(wanted).map {
                Result(id: $0, figure: $0, unit: "", target: "", note: "not measured: no \(TerminalFigures.binary) (swift build -c release)")
            }
        }
        let work = temporaryDirectory("launch")
        defer { try? FileManager.default.removeItem(atPath: work) }
        let ledgers = try await prepare(sizes, in: work)
        var results: [Result] = []
        if wanted(ids[0]) { results.append(try await firstFrame(ledgers)) }
        if wanted(ids[1]) { results.append(try idleCPU(ledgers)) }
        return results
    }

    // MARK: first-frame-1m

    /// Process start until the store screen is on the terminal, both state directories in turn each round.
    static func firstFrame(_ ledgers: Ledgers) async throws -> Result {
        var failure: String?
        func launch(_ state: String) -> () async throws -> Void {
            {
                let app = try LaunchedStorefront(catalog: ledgers.catalog, state: state)
                defer { app.stop() }
                if app.waitForFirstFrame() == nil { failure = app.failure }
            }
        }
        let samples = try await repeatUntilSteady(all: [launch(ledgers.empty), launch(ledgers.huge)])
        if let failure { throw BenchError("storefront never drew its store screen: \(failure)") }
        let (a, b) = (samples[0].median, samples[1].median)
        return Result(id: ids[0], figure: "first frame, \(ledgers.label)-transaction ledger", measured: b * 1000, baseline: a * 1000, unit: "ms",
                      ratio: b / a, target: "≤ 1.5×", pass: b <= 1.5 * a,
                      note: "storefront --state on a pty until the store screen; baseline: an empty ledger, "
                          + "same catalog (\(ledgers.label) ledger's products)").from(samples)
    }

    // MARK: idle-cpu-1m

    /// CPU time of the idle storefront over `window` seconds, after its launch's work has settled.
    static func idleCPU(_ ledgers: Ledgers, window: Double = 10) throws -> Result {
        var shares: [[Double]] = [[], []]
        let steadiness = Steadiness.slow
        for round in 1...steadiness.maximum {
            for (side, state) in [ledgers.empty, ledgers.huge].enumerated() {
                let app = try LaunchedStorefront(catalog: ledgers.catalog, state: state)
                defer { app.stop() }
                guard app.waitForFirstFrame() != nil else { throw BenchError("storefront never drew its store screen: \(app.failure)") }
                Thread.sleep(forTimeInterval: 3)  // the launch's work: history, the first refreshes
                let start = app.cpuSeconds
                Thread.sleep(forTimeInterval: window)
                shares[side].append((app.cpuSeconds - start) / window)
            }
            let samples = shares.map(Sample.init)
            // CPU time comes in clock ticks (10 ms): a spread of a tick or two is steady enough.
            if round >= steadiness.minimum, samples.allSatisfy({ $0.spread <= steadiness.tolerance || $0.quantile(0.75) - $0.quantile(0.25) <= 0.002 }) { break }
        }
        let samples = shares.map(Sample.init)
        let (a, b) = (samples[0].median * 100, samples[1].median * 100)
        return Result(id: ids[1], figure: "idle CPU, \(ledgers.label)-transaction ledger", measured: b, baseline: a, unit: "%",
                      ratio: a > 0 ? b / a : nil, target: "≤ 2% of a core", pass: b <= 2,
                      note: "storefront --state on a pty, utime+stime over \(Int(window)) s after the first frame + 3 s; "
                          + "baseline: an empty ledger").from(samples)
    }
}

/// The release `storefront` on a pseudo-terminal of its own.
final class LaunchedStorefront {
    let pty: PseudoTerminal
    private let process = Process()
    private let start: ContinuousClock.Instant

    convenience init(catalog: String, state: String) throws {
        try self.init(["--catalog", catalog, "--state", state])
    }

    init(_ arguments: [String]) throws {
        pty = try PseudoTerminal(width: 120, height: 40)
        process.executableURL = URL(fileURLWithPath: TerminalFigures.binary)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: Repo.root)
        let handle = FileHandle(fileDescriptor: pty.slave, closeOnDealloc: false)
        (process.standardInput, process.standardOutput, process.standardError) = (handle, handle, handle)
        var environment = ProcessInfo.processInfo.environment
        environment["TERM"] = environment["TERM"].flatMap { $0.isEmpty || $0 == "dumb" ? nil : $0 } ?? "xterm-256color"
        process.environment = environment
        start = ContinuousClock.now
        try process.run()
    }

    /// Seconds from launch until `marker` is on the terminal; nil: it was not there when the process
    /// ended, or `limit` passed first. A marker on a screen holds no space: ncurses may move the cursor
    /// over a blank that is already on the screen rather than write it.
    func waitFor(_ marker: String, within limit: Duration = .seconds(20)) -> Double? {
        while ContinuousClock.now - start < limit {
            if pty.text.contains(marker) { return (ContinuousClock.now - start).seconds }
            if !process.isRunning {
                _ = pty.settle()  // what it wrote before it ended may still be on its way (a loaded machine took over 20 ms)
                return pty.text.contains(marker) ? (ContinuousClock.now - start).seconds : nil
            }
            usleep(200)
        }
        return nil
    }

    /// Seconds until the store screen's header is on the terminal.
    func waitForFirstFrame() -> Double? { waitFor("Lumen") }

    /// What went wrong, for a figure that could not be measured: how the process ended, and the text it wrote.
    var failure: String {
        let ended = process.isRunning ? "still running after 20 s" : "exited with status \(process.terminationStatus)"
        let text = pty.text.replacingOccurrences(of: "\u{1B}\\[[0-9;?]*[A-Za-z]", with: " ", options: .regularExpression)
        return ended + ", having written: " + String(text.split(whereSeparator: \.isWhitespace).joined(separator: " ").suffix(300))
    }

    /// User plus system CPU time so far, from /proc/PID/stat.
    var cpuSeconds: Double {
        let stat = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8)) ?? ""
        // Fields after the command name (which may hold spaces): state is the 3rd field, utime the 14th, stime the 15th.
        let fields = stat[(stat.lastIndex(of: ")").map { stat.index(after: $0) } ?? stat.startIndex)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        pty.close()
    }
}
