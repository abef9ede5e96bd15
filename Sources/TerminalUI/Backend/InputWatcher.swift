import Dispatch
import Foundation
import Locking

/// Tells the main actor when keys can be read, without touching ncurses (which is not
/// thread-safe): a dedicated thread `poll()`s the input descriptor and yields into an
/// `AsyncStream`, then waits until the keys were drained so it does not spin on unread input.
/// Polling uses a short timeout and compares the window size on each wake-up, because
/// ncurses' SIGWINCH handler may run on any thread and only sets a flag that `get_wch` reads.
/// It keeps waking the main actor until the terminal has seen the new size: the size can change
/// before the signal is handled, and a `get_wch` in between reports no resize (seen under load).
final class InputWatcher: Sendable {
    let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation
    private let inputFD: Int32
    private let outputFD: Int32
    private let state = Locked(State())
    private let drainedSignal = DispatchSemaphore(value: 0)

    private struct State {
        var waitingForDrain = false
        var stopped = false
        /// The size the terminal last laid out for.
        var seenSize: Size?
    }

    /// How long one `poll()` waits, bounding how late a resize is noticed.
    static let pollTimeoutMilliseconds: Int32 = 50

    /// Readable when a termination signal asks the run loop to end (see `TerminalRestore`); -1: none.
    private let wakeFD: Int32

    init(inputFD: Int32, outputFD: Int32, wakeFD: Int32 = -1) {
        self.inputFD = inputFD
        self.outputFD = outputFD
        self.wakeFD = wakeFD
        (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "TerminalUI input"
        thread.start()
    }

    /// Called on the main actor after draining `get_wch`; lets the thread poll again.
    func drained() {
        let wasWaiting = state.withLock { s in
            defer { s.waitingForDrain = false }
            return s.waitingForDrain
        }
        if wasWaiting { drainedSignal.signal() }
    }

    /// Called on the main actor with the size the terminal now draws at.
    func saw(_ size: Size) { state.withLock { $0.seenSize = size } }

    func stop() {
        state.withLock { $0.stopped = true }
        drainedSignal.signal()
        continuation.finish()
    }

    private func run() {
        let wake = wakeFD  // negative, ignored by poll, when there is none
        while !state.withLock({ $0.stopped }) {
            var fds = [pollfd(fd: inputFD, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, Self.pollTimeoutMilliseconds)
            if fds[1].revents & Int16(POLLIN) != 0 {
                var bytes = [UInt8](repeating: 0, count: 16)
                _ = read(wake, &bytes, bytes.count)
                continuation.yield()  // a termination signal: the run loop reads `terminationSignal`
            }
            let pfd = fds[0]
            if ready > 0 && pfd.revents != 0 {
                // A hung-up terminal reports POLLHUP, often with POLLIN too (reads then fail forever):
                // test the hang-up first, or the loop would spin.
                if pfd.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 || pfd.revents & Int16(POLLIN) == 0 {
                    // Input closed or invalid: nothing more will come.
                    continuation.yield()
                    continuation.finish()
                    return
                }
                state.withLock { $0.waitingForDrain = true }
                continuation.yield()
                // The timeout only guards against a drain that never comes.
                _ = drainedSignal.wait(timeout: .now() + .milliseconds(500))
            } else if let size = windowSize(), size != state.withLock({ $0.seenSize }) {
                continuation.yield()  // get_wch reports KEY_RESIZE once ncurses has had the signal
            }
        }
    }

    private func windowSize() -> Size? {
        var ws = winsize()
        guard ioctl(outputFD, UInt(TIOCGWINSZ), &ws) == 0 else { return nil }
        return Size(width: Int(ws.ws_col), height: Int(ws.ws_row))
    }
}
