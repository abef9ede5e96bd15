import Foundation

/// The scenario library as QA runs it (`storefront run Tests/Scenarios/*.scenario`): its time per
/// step, so a library that grows shows whether each step stays as cheap.
enum ScenarioFigures {
    static func library() async throws -> Result {
        let binary = TerminalFigures.binary
        let directory = Repo.root + "/Tests/Scenarios"
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".scenario") }.sorted().map { directory + "/" + $0 }
        guard FileManager.default.isExecutableFile(atPath: binary), !files.isEmpty else {
            return Result(id: "scenarios", figure: "scenario library, time a step", unit: "ms", target: "≤ 10 ms", note: "not measured: no \(binary) or no scenarios")
        }
        let report = temporaryDirectory("scenarios") + "/report.md"
        defer { try? FileManager.default.removeItem(atPath: (report as NSString).deletingLastPathComponent) }
        var cpu = Sample(times: [])
        let wall = try await repeatUntilSteady(all: [{
            cpu.times.append(try childCPUSeconds { try run(binary, ["run"] + files + ["--report", report]) })
        }], .slow)[0]
        // Every step is a row of the report's tables: "| 12 | `buy …` | ✓ | … |".
        let steps = try String(contentsOfFile: report, encoding: .utf8).split(separator: "\n")
            .filter { $0.hasPrefix("| ") && $0.dropFirst(2).first?.isNumber == true }.count
        guard steps > 0 else { throw BenchError("the scenario report lists no steps") }
        let perStep = wall.median / Double(steps)
        return Result(id: "scenarios", figure: "scenario library, time a step", measured: perStep * 1000, baseline: nil, unit: "ms", ratio: nil,
                      target: "≤ 10 ms", pass: perStep <= 0.010,
                      note: "\(files.count) scenarios, \(steps) steps, \(String(format: "%.2f", wall.median)) s; CPU "
                          + String(format: "%.2f ms a step", cpu.median / Double(steps) * 1000)).from([wall])
    }

    /// Runs `binary` to the end; fails when it does.
    static func run(_ binary: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: Repo.root)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchError("storefront \(arguments.prefix(1).joined()) exited \(process.terminationStatus)") }
    }

    /// CPU seconds of the child processes this process waited for while `body` ran.
    static func childCPUSeconds(_ body: () throws -> Void) rethrows -> Double {
        func now() -> Double {
            var usage = rusage()
            getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
            return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6
        }
        let start = now()
        try body()
        return now() - start
    }
}
