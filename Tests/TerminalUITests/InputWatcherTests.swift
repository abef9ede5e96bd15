import Foundation
import Locking
import Testing
@testable import TerminalUI

@Suite("Input watcher")
struct InputWatcherTests {
    /// A pseudo-terminal pair (posix_openpt and friends need _XOPEN_SOURCE, which Glibc's module lacks).
    struct PseudoTerminal {
        let master: Int32, slave: Int32

        init() throws {
            master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
            var unlock: Int32 = 0, number: UInt32 = 0
            let (TIOCSPTLCK, TIOCGPTN): (UInt, UInt) = (0x4004_5431, 0x8004_5430)
            guard master >= 0, ioctl(master, TIOCSPTLCK, &unlock) == 0, ioctl(master, TIOCGPTN, &number) == 0 else {
                throw CocoaError(.fileReadUnknown)
            }
            slave = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
        }

        func resize(_ size: Size) {
            var ws = winsize(ws_row: UInt16(size.height), ws_col: UInt16(size.width), ws_xpixel: 0, ws_ypixel: 0)
            _ = ioctl(master, UInt(TIOCSWINSZ), &ws)
        }

        func close() { Glibc.close(slave); Glibc.close(master) }
    }

    @Test("A new window size wakes the main actor until the terminal has laid out for it, not once", .timeLimit(.minutes(1)))
    func resizeWakesUntilSeen() async throws {
        // The size can change before ncurses has handled SIGWINCH; a get_wch in between reports no
        // resize, so a single wake-up could leave the screen at the old size (seen under load).
        let pty = try PseudoTerminal()
        defer { pty.close() }
        pty.resize(Size(width: 80, height: 24))
        let watcher = InputWatcher(inputFD: pty.slave, outputFD: pty.slave)
        watcher.saw(Size(width: 80, height: 24))
        let wakes = Locked(0)
        let counter = Task { for await _ in watcher.stream { wakes.withLock { $0 += 1 } } }
        watcher.start()
        defer { watcher.stop(); counter.cancel() }
        try await Task.sleep(for: .milliseconds(200))
        #expect(wakes.withLock { $0 } == 0, "nothing changed yet")

        pty.resize(Size(width: 100, height: 30))
        // Waited for without a deadline of its own: with the whole suite running, the two threads of
        // the task pool were once busy for 20 s, so a timed wait failed with the counting task unrun.
        // A single wake-up (the bug) never reaches two, and the time limit fails the test.
        while wakes.withLock({ $0 }) < 2 { try await Task.sleep(for: .milliseconds(20)) }

        watcher.saw(Size(width: 100, height: 30))
        try await Task.sleep(for: .milliseconds(300))
        let settled = wakes.withLock { $0 }
        try await Task.sleep(for: .seconds(1))
        // At most the one wake that was kept for a counting task that had not run yet; not twenty a second.
        #expect(wakes.withLock { $0 } <= settled + 1, "quiet once the terminal has seen it")
    }
}
