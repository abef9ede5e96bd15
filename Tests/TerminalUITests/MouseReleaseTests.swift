import Foundation
import Synchronization
import Testing
@testable import TerminalUI

extension SignalHandlerSuites {
    @Suite("Mouse release")
    struct MouseReleaseTests {
        /// A click is a press then a release. The mask asked for presses only, and ncurses, handed a
        /// release it filtered out, went back to a *blocking* read inside `wget_wch`: the run loop stood
        /// still (no spinner, no clock, no purchase result) until the next key. Run on a real ncurses
        /// over a pseudo-terminal; a watchdog types a key after a few seconds so the old code fails
        /// rather than hangs.
        @Test("A click's press and release are read without waiting for another key")
        @MainActor
        func releaseDoesNotBlock() throws {
            let pty = try InputWatcherTests.PseudoTerminal()
            defer { pty.close() }
            pty.resize(Size(width: 80, height: 24))
            let drain = PseudoTerminalDrain(master: pty.master)
            defer { drain.stop() }
            let saved = ProcessInfo.processInfo.environment["TERM"]
            setenv("TERM", "xterm-256color", 1)
            defer { if let saved { setenv("TERM", saved, 1) } else { unsetenv("TERM") } }
            guard let input = fdopen(dup(pty.slave), "r"), let output = fdopen(dup(pty.slave), "w") else { throw CocoaError(.fileReadUnknown) }
            defer { fclose(input); fclose(output) }
            let terminal = try Terminal.start(colorMode: .monochrome, mouse: true, input: input, output: output)
            defer { terminal.stop() }

            // SGR mouse at column 34, row 16: button 1 down, read; then up, as a person's click comes.
            pty.type("\u{1B}[<0;34;16M")
            usleep(200_000)
            let press = terminal.readKeys()
            pty.type("\u{1B}[<0;34;16m" + "\u{1B}[<1;34;16M\u{1B}[<1;34;16m")  // and a middle click, not used either
            usleep(200_000)
            let (readDone, watchdogDone) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
            Thread {
                if readDone.wait(timeout: .now() + 4) == .timedOut { pty.type("x") }
                watchdogDone.signal()
            }.start()
            let start = ContinuousClock.now
            let keys = terminal.readKeys()
            let waited = ContinuousClock.now - start
            readDone.signal()
            watchdogDone.wait()  // done with the pty before it closes
            #expect(waited < .seconds(2), "readKeys waited \(waited) for another key")
            #expect(press == [.mouse(Mouse(.click, x: 33, y: 15))])
            #expect(keys.isEmpty, "a release, and a button not used, are no key")
            #expect(!keys.contains(.character("x")), "the watchdog's key ended the read")
        }
    }
}

extension InputWatcherTests.PseudoTerminal {
    /// Sends bytes as if typed at the terminal.
    func type(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }
}

/// Reads (and drops) what the terminal writes, so drawing never blocks on a full pty buffer.
final class PseudoTerminalDrain: Sendable {
    private let running = Atomic(true)
    private let master: Int32

    init(master: Int32) {
        self.master = master
        let thread = Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while running.load(ordering: .relaxed) {
                var fds = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
                guard poll(&fds, 1, 50) > 0 else { continue }
                if read(master, &buffer, buffer.count) <= 0 { break }
            }
        }
        thread.start()
    }

    func stop() { running.store(false, ordering: .relaxed); usleep(100_000) }
}
