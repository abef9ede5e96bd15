import Foundation
import Locking
import Testing
@testable import TerminalUI

extension SignalHandlerSuites {
    @Suite("Termination signals")
    struct TerminationSignalTests {
        /// The handler used to restore the terminal and `_exit` at once, while the UI thread could be
        /// drawing: the drawing took the terminal again, and the program ended with it raw (seen under
        /// ThreadSanitizer). Now the handler records the signal and wakes the loop, which ends itself.
        /// (Before, this test's own process ended with status 143 at `kill`.)
        @Test("SIGTERM asks the run loop to end and wakes it, rather than ending the process in the handler")
        func terminationIsHandedToTheRunLoop() async throws {
            let pty = try InputWatcherTests.PseudoTerminal()
            defer { pty.close() }
            await MainActor.run { TerminalRestore.install() }
            let watcher = InputWatcher(inputFD: pty.slave, outputFD: pty.slave, wakeFD: TerminalRestore.wakeDescriptors.read)
            let wakes = Locked(0)
            let counter = Task { for await _ in watcher.stream { wakes.withLock { $0 += 1 } } }
            watcher.start()
            defer { watcher.stop(); counter.cancel() }

            kill(getpid(), SIGTERM)  // to the process: Dispatch's threads, this one too, block most signals
            // Waited for, not timed: a loaded machine runs the counting task seldom.
            let deadline = ContinuousClock.now + .seconds(20)
            while wakes.withLock({ $0 }) == 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            #expect(TerminalRestore.pendingTermination.load(ordering: .sequentiallyConsistent) == SIGTERM)
            #expect(wakes.withLock { $0 } >= 1, "the input watcher woke the run loop")
            await MainActor.run { TerminalRestore.uninstall() }
        }
    }
}
