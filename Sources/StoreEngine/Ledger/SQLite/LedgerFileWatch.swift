import Foundation
#if canImport(Glibc)
import Glibc
import Synchronization

/// Tells a process that a SQLite ledger's write-ahead log was written, through inotify rather than
/// polling: every commit, another process's or this one's, writes the log. On a thread of its own it
/// calls `changed` at the first write of a burst, and again a few times after it (see `followUps`).
/// The reader decides whether anything it has not seen was committed.
final class LedgerFileWatch: Sendable {
    private let stopped = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)
    private let descriptor: Int32

    /// nil when the log cannot be watched (no inotify, no log file): the reader polls alone.
    init?(ledger path: String, changed: @escaping @Sendable () -> Void) {
        let descriptor = inotify_init1(Int32(IN_CLOEXEC) | Int32(IN_NONBLOCK))
        guard descriptor >= 0 else { return nil }
        guard inotify_add_watch(descriptor, path + "-wal", UInt32(IN_MODIFY)) >= 0 else {
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
        let thread = Thread { [self] in
            watch(changed)
            done.signal()
        }
        thread.name = "storefront-ledger-watch"
        thread.start()
    }

    /// Ends the watching thread and waits for it (at most one poll interval).
    func stop() {
        guard !stopped.exchange(true, ordering: .sequentiallyConsistent) else { return }
        done.wait()
        close(descriptor)
    }

    /// After a write, when to look again (milliseconds from the last look) while no more writes come:
    /// at once, then a few times over half a second. A commit's last write to the log comes just before
    /// it updates the log's index, and a writer held up between the two (a loaded machine) makes the
    /// commit visible only later: one look 3 ms after it missed commits under CI's load.
    private static let followUps: [Int32] = [3, 20, 100, 100, 100, 100, 100]

    private func watch(_ changed: @Sendable () -> Void) {
        var next = Self.followUps.count  // no write to follow up
        while !stopped.load(ordering: .sequentiallyConsistent) {
            guard next < Self.followUps.count else {
                // A short wait, so `stop` is seen promptly.
                if written(within: 100, wholly: false) { changed(); next = 0 }
                continue
            }
            // Every moment while writes go on, not once per write: a store's own commits (a thousand
            // finishes a second) wake it too.
            let wrote = written(within: Self.followUps[next], wholly: next == 0)
            changed()
            next = wrote ? 0 : next + 1
        }
    }

    /// Whether the log was written within `window` milliseconds: at its first write, or (`wholly`) by its end,
    /// reading what was written then at once (not each write as it comes: a thousand a second).
    private func written(within window: Int32, wholly: Bool) -> Bool {
        if wholly { usleep(UInt32(window) * 1000) }
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, wholly ? 0 : window) > 0 else { return false }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while read(descriptor, &buffer, buffer.count) == buffer.count {}
        return true
    }
}
#endif
