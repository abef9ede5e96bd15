import Foundation
import Testing
import StoreEngine
import StorefrontTestSupport

/// Runs `command` in a detached tmux session (a real terminal) and returns what it wrote to stderr and its exit status.
func inTerminal(_ command: String) async throws -> String {
    let result = temporaryDirectory("tty") + "/result"
    defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: result).deletingLastPathComponent().path) }
    let session = "reliability-\(UUID().uuidString.prefix(8))"
    let tmux = Process()
    tmux.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    tmux.arguments = ["tmux", "new-session", "-d", "-s", session, "-x", "100", "-y", "30",
                      "\(command) 2> \(result).err; echo \"exit $?\" >> \(result).err; mv \(result).err \(result); sleep 1"]
    try tmux.run()
    tmux.waitUntilExit()
    defer {
        let kill = Process()
        kill.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        kill.arguments = ["tmux", "kill-session", "-t", session]
        try? kill.run()
        kill.waitUntilExit()
    }
    for _ in 0..<600 where !FileManager.default.fileExists(atPath: result) { try await Task.sleep(for: .milliseconds(50)) }
    return (try? String(contentsOfFile: result, encoding: .utf8)) ?? "(no result: the storefront did not exit within 30 s)"
}

@Suite("Hostile input: devices, FIFOs, closed streams, no terminal", .tags(.slow), .notInFastLoop, .serialized)
struct HostileInputTests {
    static let catalog = Repo.catalogPath

    /// Each of these hung reading forever with unbounded memory, or (a FIFO) waited forever for a writer.
    @Test("A device or a FIFO named as a catalog, scenario, token or root certificate is refused at once", arguments: [
        (["catalog", "/dev/zero"], "/dev/zero: is a character device, not a regular file"),
        (["catalog", "FIFO"], "FIFO: is a FIFO (named pipe), not a regular file"),
        (["run", "/dev/urandom"], "urandom: is a character device, not a regular file"),
        (["verify", "/dev/zero"], "/dev/zero: is a character device, not a regular file"),
        (["verify", "-", "--root", "FIFO", "--state", "STATE"], "FIFO: is a FIFO (named pipe), not a regular file"),
    ])
    func devicesAndFIFOs(_ arguments: [String], message: String) throws {
        let directory = temporaryDirectory("hostile")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fifo = directory + "/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        let run = try storefront(arguments.map { $0 == "FIFO" ? fifo : $0 == "STATE" ? directory + "/state" : $0 },
                                 stdin: Repo.root.path + "/Package.swift", deadline: .seconds(30))
        #expect(run.status == 2 && run.output.contains(message.replacingOccurrences(of: "FIFO:", with: fifo + ":")),
                "\(arguments): exit \(run.status): \(run.output.prefix(300))")
    }

    @Test("Standard input is read up to 64 MB and the error says so")
    func standardInputLimit() throws {
        let run = try storefront(["catalog", "/dev/stdin"], stdin: "/dev/zero", deadline: .seconds(60))
        #expect(run.status == 2 && run.output.contains("/dev/stdin: the file is larger than 64 MB"), "exit \(run.status): \(run.output.prefix(300))")
    }

    /// `verify -` trapped in FileHandle.readDataToEndOfFile.
    @Test("verify - with standard input a directory or closed says so", arguments: [
        ("< /tmp", "storefront: standard input is a directory, not a file"),
        ("<&-", "storefront: cannot read standard input: is it closed?"),
    ])
    func verifyStandardInput(_ redirection: String, message: String) throws {
        let run = try shell("\(Repo.storefrontBinary) verify - --ephemeral \(redirection)")
        #expect(run.status == 2 && run.output == message + "\n", "exit \(run.status): \(run.output.prefix(300))")
    }

    /// Seen in CI: with standard input closed, the descriptor was taken by libdispatch's eventfd, which
    /// never becomes readable, and `verify -` waited on it for ever. An anonymous inode is no input.
    /// An inotify descriptor watching nothing stands in for it: an anonymous inode, never readable.
    @Test func verifyOnAStandardInputThatIsAnAnonymousInodeSaysItCannotReadItRatherThanWaitForEver() throws {
        let eventFD = inotify_init1(Int32(IN_NONBLOCK))
        try #require(eventFD >= 0)
        defer { close(eventFD) }
        let process = Process(), pipe = Pipe()
        process.executableURL = URL(fileURLWithPath: Repo.storefrontBinary)
        process.arguments = ["verify", "-", "--ephemeral"]
        process.standardInput = FileHandle(fileDescriptor: eventFD, closeOnDealloc: false)
        (process.standardOutput, process.standardError) = (pipe, pipe)
        try process.run()
        let end = ContinuousClock.now + .seconds(60)
        while process.isRunning && ContinuousClock.now < end { usleep(20_000) }
        let hung = process.isRunning
        if hung { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(!hung && process.terminationStatus == 2 && output == "storefront: cannot read standard input: is it closed?\n",
                "hung: \(hung), exit \(process.terminationStatus): \(output.prefix(300))")
    }

    /// `arithmetic overflow` in the price reader killed catalog, run and serve with SIGILL (exit 132).
    @Test("A price of 20 digits in catalog.json or a .storekit file is exit 2 naming the file, the field and the limit")
    func hugePrices() throws {
        let directory = temporaryDirectory("prices")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let catalog = try String(contentsOfFile: Self.catalog, encoding: .utf8)
            .replacingOccurrences(of: #""USA": "0.99""#, with: #""USA": "99999999999999999999""#)
        try catalog.write(toFile: directory + "/big.json", atomically: true, encoding: .utf8)
        let storekit = #"{"identifier": "X", "products": [{"displayPrice": "123456789012345678901.99", "familyShareable": false, "internalID": "1", "#
            + #""localizations": [{"description": "d", "displayName": "n", "locale": "en_US"}], "productID": "p", "referenceName": "p", "type": "Consumable"}], "#
            + #""settings": {}, "subscriptionGroups": [], "version": {"major": 4, "minor": 0}}"#
        try storekit.write(toFile: directory + "/Big.storekit", atomically: true, encoding: .utf8)
        for (file, field) in [("big.json", "prices.USA"), ("Big.storekit", "displayPrice")] {
            let run = try storefront(["catalog", directory + "/" + file], deadline: .seconds(60))
            #expect(run.status == 2 && run.output.contains(file + ": ") && run.output.contains(field) && run.output.contains("1–12 digits"),
                    "\(file): exit \(run.status): \(run.output.prefix(300))")
        }
    }

    /// `wait 9223372036854775807s` overflowed before the 10-minute limit was checked (exit 132).
    @Test("A wait or an advance past its limit is exit 2 with file:line and the limit", arguments: [
        ("wait 9223372036854775807s", "longer than 10m"), ("wait 99999999999999999999ms", "longer than 10m"),
        ("advance P5000Y", "9999-12-31"),
    ])
    func hugeScenarioNumbers(_ line: String, limit: String) throws {
        let directory = temporaryDirectory("waits")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "catalog \(Self.catalog)\n\(line)\n".write(toFile: directory + "/long.scenario", atomically: true, encoding: .utf8)
        let run = try storefront(["run", directory + "/long.scenario"], deadline: .seconds(60))
        #expect(run.status == 2 && run.output.contains("long.scenario:2: ") && run.output.contains(limit), "exit \(run.status): \(run.output.prefix(300))")
    }

    /// `-` was "no such file".
    @Test("catalog - and run - read standard input")
    func dashIsStandardInput() throws {
        let catalog = try storefront(["catalog", "-"], stdin: Self.catalog, deadline: .seconds(60))
        #expect(catalog.status == 0 && catalog.output.contains("com.lumenquest.coins.100"), "exit \(catalog.status): \(catalog.output.prefix(300))")
        let directory = temporaryDirectory("stdin")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "catalog \(Self.catalog)\nbuy com.lumenquest.coins.100\nexpect result purchased\n".write(toFile: directory + "/s", atomically: true, encoding: .utf8)
        let run = try storefront(["run", "-", "--state", directory + "/state"], stdin: directory + "/s", deadline: .seconds(60))
        #expect(run.status == 0 && run.output.contains("passed"), "exit \(run.status): \(run.output.prefix(400))")
        let broken = try storefront(["run", "-"], stdin: Self.catalog, deadline: .seconds(60))
        #expect(broken.status == 2 && broken.output.contains("standard input:1: "), "exit \(broken.status): \(broken.output.prefix(300))")
    }

    /// It spun at 100% CPU writing escape sequences into /dev/null.
    @Test("The storefront without a terminal on standard input exits 2 with a message")
    func noTerminal() throws {
        let run = try storefront(["--ephemeral", "--catalog", Self.catalog], stdin: "/dev/null", deadline: .seconds(30))
        #expect(run.status == 2 && run.output.contains("the storefront needs a terminal, and standard input is not one"),
                "exit \(run.status): \(run.output.prefix(300))")
    }

    @Test("TERM unset or unknown: exit 2 with one line saying what to set")
    func terminalType() async throws {
        let binary = "\(Repo.storefrontBinary) --ephemeral --catalog \(Self.catalog)"
        #expect(try await inTerminal("env -u TERM \(binary)") == "storefront: TERM is not set: set it to your terminal's type, e.g. TERM=xterm-256color\nexit 2\n")
        #expect(try await inTerminal("TERM=nosuchterm \(binary)")
                == "storefront: unknown terminal type 'nosuchterm' (TERM has no terminfo entry here): try TERM=xterm-256color\nexit 2\n")
    }
}

@Suite("Store dates", .tags(.slow), .notInFastLoop)
struct StoreDateTests {
    /// Past ~500,000 years calendar arithmetic fails, a renewal ended where it began, and catching up looped forever.
    @Test("The store clock stops at 9999-12-31 and says so; a subscription bought near it still renews")
    func clockIsBounded() throws {
        let directory = temporaryDirectory("far")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let scenario = directory + "/far.scenario"
        try (["catalog \(Repo.catalogPath)", "advance P1000Y", "advance P1000Y", "advance P1000Y", "advance P1000Y",
              "advance P1000Y", "advance P1000Y", "advance P1000Y", "advance P900Y", "buy com.lumenquest.plus.monthly",
              "advance P1Y", "expect ledger 13"]
             + Array(repeating: "advance P1000Y", count: 600) + ["buy com.lumenquest.plus.monthly"])
            .joined(separator: "\n").write(toFile: scenario, atomically: true, encoding: .utf8)
        let run = try storefront(["run", scenario], deadline: .seconds(120))
        #expect(run.reason == .exit && run.status == 1, "exit \(run.status): \(run.output.suffix(600))")
        #expect(run.output.contains("✓ 12  expect ledger 13"), "\(run.output.prefix(1200))")
        #expect(run.output.contains("✗ 13  advance P1000Y\n        error: the store clock cannot go past 9999-12-31 (advancing 1000 years from 9927-"),
                "\(run.output.prefix(1500))")
    }
}

@Suite("Clear errors for report paths and full disks", .tags(.slow), .notInFastLoop)
struct OutputErrorTests {
    /// A bad --junit path failed only after every scenario had run.
    @Test("A report path that cannot be written is an error naming it, before anything runs", arguments: [
        (["--junit", "/nonexistent-dir/junit.xml"], "storefront: --junit /nonexistent-dir/junit.xml: the directory /nonexistent-dir does not exist\n"),
        (["--report", "/tmp"], "storefront: --report /tmp: is a directory; name a file to write\n"),
        (["--report", "/etc/hostname/r.md"], "storefront: --report /etc/hostname/r.md: /etc/hostname is not a directory\n"),
    ])
    func reportPaths(_ options: [String], message: String) throws {
        let run = try storefront(["run", Repo.root.path + "/Tests/Scenarios/purchase-types.scenario"] + options)
        #expect(run.status == 2 && run.output == message, "exit \(run.status): \(run.output.prefix(300))")
    }
}

@Suite("A full disk", .tags(.slow), .notInFastLoop)
struct DiskFullTests {
    /// A ledger that may not grow (SQLite's max_page_count) fails as a full disk does, with SQLITE_FULL.
    /// By hand, on a 700 KB tmpfs: `storefront run many-purchases.scenario --state /mnt/tiny/s` ends with
    /// "cannot open the store: /mnt/tiny/s/ledger.sqlite: the disk is full; free some space and try again".
    @Test("A full disk is reported as a full disk, naming the file")
    func diskFull() throws {
        let directory = temporaryDirectory("full")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/ledger.sqlite"
        let db = try SQLiteDatabase(path: path)
        try db.execute("CREATE TABLE t(x TEXT); PRAGMA max_page_count = 8")
        #expect {
            for _ in 0..<100 { try db.query("INSERT INTO t VALUES (?)", [.text(String(repeating: "x", count: 4000))]) }
        } throws: { error in
            let description = "\(error)"
            guard case LedgerError.diskFull? = error as? LedgerError else { return false }
            return description.hasPrefix(path + ": the disk is full; free some space and try again")
        }
    }
}
