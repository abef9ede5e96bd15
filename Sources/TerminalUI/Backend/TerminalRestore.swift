import CNcursesW
import Foundation
import Synchronization

/// Whether curses owns the terminal. Atomic, because signal handlers read it: whoever flips
/// it to false calls `endwin`, so `endwin` runs exactly once whichever exit path comes first.
let cursesActive = Atomic<Bool>(false)

/// Gives the terminal back to the shell if curses still owns it. Safe to call repeatedly.
func restoreTerminal() {
    if cursesActive.exchange(false, ordering: .sequentiallyConsistent) {
        endwin()
    }
}

/// Signal handlers that restore the terminal on every exit path.
enum TerminalRestore {
    /// Polite termination: the run loop is asked to end (`Terminal.terminationSignal`), and exits
    /// with 128 + signal (130 for SIGINT, 143 for SIGTERM) once it has given the terminal back.
    /// The handler itself must not call `endwin`: the UI thread may be drawing, and would take the
    /// terminal again before the exit (seen under ThreadSanitizer, whose `_exit` is slow). A second
    /// signal while the first waits restores and exits at once, for a loop that no longer answers.
    static let terminationSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP]
    /// Crashes: restore, then let the signal take its previous action (the default, or the
    /// Swift runtime's backtracer when it installed one), so core dumps and backtraces still happen.
    static let fatalSignals: [Int32] = [SIGSEGV, SIGILL, SIGTRAP, SIGABRT, SIGBUS]

    /// Actions in place before ours, indexed by signal number. Written only by `install()`
    /// on the main actor before any handler is set, afterwards only read (also from handlers),
    /// which is why the unsynchronised globals are safe; the flags are touched on the main actor only.
    nonisolated(unsafe) private static let previous = UnsafeMutablePointer<sigaction>.allocate(capacity: 65)
    nonisolated(unsafe) private static var installed = false
    /// The termination signal waiting for the run loop, or 0.
    static let pendingTermination = Atomic<Int32>(0)
    /// The pipe a termination handler writes a byte to, waking `InputWatcher`'s poll: made by
    /// `install()` before any handler is set and never closed, so handlers and the watcher read
    /// the descriptors unsynchronised, as `previous`.
    nonisolated(unsafe) private(set) static var wakeDescriptors: (read: Int32, write: Int32) = (-1, -1)
    nonisolated(unsafe) private static var atexitRegistered = false

    @MainActor
    static func install() {
        guard !installed else { return }
        installed = true
        pendingTermination.store(0, ordering: .sequentiallyConsistent)
        if wakeDescriptors.read < 0 {
            var fds: [Int32] = [-1, -1]
            if pipe(&fds) == 0 {  // pipe2 needs _GNU_SOURCE, which Glibc's module lacks
                for fd in fds {
                    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                }
                wakeDescriptors = (fds[0], fds[1])
            }
        }
        for sig in terminationSignals + fatalSignals {
            var action = sigaction()
            sigemptyset(&action.sa_mask)
            if fatalSignals.contains(sig) {
                action.__sigaction_handler.sa_handler = { sig in
                    restoreTerminal()
                    var old = TerminalRestore.previous[Int(sig)]
                    sigaction(sig, &old, nil)
                    raise(sig)  // blocked until this handler returns, then takes the old action
                }
            } else {
                action.__sigaction_handler.sa_handler = { sig in
                    if TerminalRestore.pendingTermination.compareExchange(expected: 0, desired: sig, ordering: .sequentiallyConsistent).exchanged {
                        var byte: UInt8 = 1
                        _ = write(TerminalRestore.wakeDescriptors.write, &byte, 1)
                    } else {
                        restoreTerminal()
                        _exit(128 + sig)
                    }
                }
            }
            sigaction(sig, &action, previous + Int(sig))
        }
        if !atexitRegistered {
            atexitRegistered = true
            atexit { restoreTerminal() }  // also when the app calls exit() without stopping
        }
    }

    /// Puts the previous actions back once the terminal is stopped.
    @MainActor
    static func uninstall() {
        guard installed else { return }
        installed = false
        for sig in terminationSignals + fatalSignals { sigaction(sig, previous + Int(sig), nil) }
    }
}
