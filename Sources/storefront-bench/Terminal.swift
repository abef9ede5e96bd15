import Foundation
import Locking
import TerminalUI

/// A pseudo-terminal whose output is read (and counted) by a thread of its own, so writers never block.
final class PseudoTerminal: Sendable {
    let master: Int32
    let slave: Int32
    private let output = Locked<Output>(Output())
    /// What arrived, and when each piece did: a marker's instant is its last byte's arrival, read on
    /// the reader thread, not when a waiting thread woke to look (a wake-up more, 0.1 ms here).
    private struct Output {
        var bytes: [UInt8] = []
        var arrivals: [(end: Int, at: ContinuousClock.Instant)] = []
    }
    /// Signalled whenever output arrives, so a wait wakes at once rather than on a poll's tick.
    private let arrived = DispatchSemaphore(value: 0)

    init(width: Int, height: Int) throws {
        // posix_openpt and friends need _XOPEN_SOURCE, which Glibc's module lacks: do what they do on Linux.
        master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        var unlock: Int32 = 0, number: UInt32 = 0
        let (TIOCSPTLCK, TIOCGPTN): (UInt, UInt) = (0x4004_5431, 0x8004_5430)  // _IOW('T', 0x31, int), _IOR('T', 0x30, unsigned)
        guard master >= 0, ioctl(master, TIOCSPTLCK, &unlock) == 0, ioctl(master, TIOCGPTN, &number) == 0 else {
            throw BenchError("cannot open a pseudo-terminal")
        }
        var size = winsize(ws_row: UInt16(height), ws_col: UInt16(width), ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)
        slave = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
        guard slave >= 0 else { throw BenchError("cannot open /dev/pts/\(number)") }
        let reader = Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = read(master, &buffer, buffer.count)
                if count <= 0 { break }
                let now = ContinuousClock.now
                output.withLock {
                    $0.bytes.append(contentsOf: buffer[0..<count])
                    $0.arrivals.append(($0.bytes.count, now))
                }
                arrived.signal()
            }
        }
        reader.start()
    }

    var bytes: Int { output.withLock { $0.bytes.count } }
    var text: String { output.withLock { String(decoding: $0.bytes, as: UTF8.self) } }

    /// The instant `marker` arrived whole in what came after byte `offset`; nil when `limit` passed first.
    func waitFor(_ marker: String, after offset: Int, within limit: Duration = .seconds(20)) -> ContinuousClock.Instant? {
        let (needle, deadline) = (Array(marker.utf8), ContinuousClock.now + limit)
        guard !needle.isEmpty else { return .now }
        while true {
            let seen = output.withLock { output -> ContinuousClock.Instant? in
                guard let found = output.bytes[min(offset, output.bytes.count)...].firstRange(of: needle) else { return nil }
                var piece = output.arrivals.count - 1  // the piece that completed it: from the newest back
                while piece > 0, output.arrivals[piece - 1].end >= found.upperBound { piece -= 1 }
                return output.arrivals[piece].at
            }
            if let seen { return seen }
            guard ContinuousClock.now < deadline else { return nil }
            _ = arrived.wait(timeout: .now() + .milliseconds(50))
        }
    }

    /// Types on the terminal, as a person at its keyboard.
    func type(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }

    /// Waits until nothing more arrives for 50 ms; returns the byte count.
    func settle() -> Int {
        var last = -1
        while true {
            let now = bytes
            if now == last { return now }
            last = now
            usleep(50_000)
        }
    }

    func close() {
        Glibc.close(slave)
        Glibc.close(master)
    }
}

enum TerminalFigures {
    /// A store-like screen: a header, a list of products with one row highlighted, a footer.
    static func screen(width: Int, height: Int, selected: Int) -> Canvas {
        var canvas = Canvas(width: width, height: height)
        _ = canvas.put(" Lumen Quest · Store · USA · en_US", at: 0, 0, style: .bold)
        for row in 0..<(height - 3) {
            let text = "gen.item\(row)".padding(toLength: 30, withPad: " ", startingAt: 0)
                + "Item \(row) — a generated product for the benchmark".padding(toLength: 120, withPad: " ", startingAt: 0) + "$\(row % 50).99"
            _ = canvas.put(text, at: 1, row + 2, maxWidth: width - 2, style: row == selected ? .selected : .plain)
        }
        _ = canvas.put(" ↑↓ move  Enter buy  / search  q quit", at: 0, height - 1, style: .dim)
        return canvas
    }

    /// Figure 5b: bytes the ncurses backend writes for a one-row selection move, against the first full draw.
    @MainActor
    static func backendBytes() throws -> Result {
        let (width, height) = (200, 60)
        let pty = try PseudoTerminal(width: width, height: height)
        defer { pty.close() }
        if ProcessInfo.processInfo.environment["TERM"].map({ $0.isEmpty || $0 == "dumb" }) ?? true { setenv("TERM", "xterm-256color", 1) }
        guard let input = fdopen(dup(pty.slave), "r"), let output = fdopen(dup(pty.slave), "w") else { throw BenchError("fdopen") }
        let terminal = try Terminal.start(colorMode: .color, input: input, output: output)
        let start = pty.settle()
        terminal.draw(screen(width: width, height: height, selected: 5))
        let full = pty.settle() - start
        terminal.draw(screen(width: width, height: height, selected: 6))
        let move = pty.settle() - start - full
        terminal.stop()
        fclose(input); fclose(output)
        let ratio = Double(move) / Double(full)
        return Result(id: "5b", figure: "5b backend bytes, row move", measured: Double(move), baseline: Double(full), unit: "B", ratio: ratio,
                      target: "≤ 0.10×", pass: ratio <= 0.1, note: "synthetic canvases on a \(terminal.size.width)×\(terminal.size.height) pty, TERM=\(ProcessInfo.processInfo.environment["TERM"] ?? "")")
    }

    /// The release `storefront` beside this bench.
    static let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("storefront").path

    /// What a launch showed: the seconds until the marker appeared, or why it never did.
    enum Launch {
        case shown(Double)
        case missing(String)

        var whyNot: String? {
            guard case .missing(let why) = self else { return nil }
            return why
        }
    }

    /// Launches `storefront` on a pseudo-terminal until its output contains `marker` (at most 10 s).
    static func launch(_ arguments: [String], until marker: String) throws -> Launch {
        guard FileManager.default.isExecutableFile(atPath: binary) else { return .missing("no \(binary) (swift build -c release)") }
        let app = try LaunchedStorefront(arguments)
        defer { app.stop() }
        guard let seconds = app.waitFor(marker, within: .seconds(10)) else { return .missing("\(marker) never appeared: \(app.failure)") }
        return .shown(seconds)
    }

    /// Figure 6: process start to the first store frame, against `storefront --version`.
    static func startup(rounds: Int) throws -> Result {
        var (version, frame) = (Double.infinity, Double.infinity)
        for _ in 0..<rounds {
            let (v, f) = (try launch(["--version"], until: "storefront "), try launch(["--ephemeral"], until: "Lumen"))
            guard case .shown(let v) = v, case .shown(let f) = f else {
                return Result(id: "6", figure: "6 start-up to first frame", measured: nil, baseline: nil, unit: "ms", ratio: nil, target: "≤ 3×", pass: nil,
                              note: "not measured: \(v.whyNot ?? f.whyNot ?? "")")
            }
            (version, frame) = (min(version, v), min(frame, f))
        }
        return Result(id: "6", figure: "6 start-up to first frame", measured: frame * 1000, baseline: version * 1000, unit: "ms", ratio: frame / version,
                      target: "≤ 3×", pass: frame <= 3 * version, note: "bundled catalog, --ephemeral; baseline: storefront --version")
    }
}
