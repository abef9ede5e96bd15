import Foundation
#if canImport(Glibc)
import Glibc
import Synchronization

/// Tells a process that a SQLite ledger's write-ahead log was written, through inotify rather than
/// polling: every commit, another process's or this one's, writes the log. On a thread of its own it
/// calls `changed` after each burst of writes, and once more a moment later: a commit's last write
/// to the log comes just before it updates the log's index, so a reader woken by that write may not
/// see the commit yet. The reader decides whether anything it has not seen was committed.
final class LedgerFileWatch: Sendable {
    private let stopped = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)
    private let descriptor: Int32

    /// nil when the log cannot be watched (no inotify, no log file): the reader polls alone.
    init?(ledger path: String, changed: @escaping @Sendable () -> Void) {
        let descriptor = inotify_init1(Int32(IN_CLOEXEC))
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

    private func watch(_ changed: @Sendable () -> Void) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        var lookAgain = false
        while !stopped.load(ordering: .sequentiallyConsistent) {
            // A short poll, so `stop` is seen promptly; a short one after a burst, to look again.
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, lookAgain ? 3 : 100) > 0 else {
                if lookAgain { changed() }
                lookAgain = false
                continue
            }
            guard read(descriptor, &buffer, buffer.count) > 0 else { continue }
            changed()
            lookAgain = true
        }
    }
}
#endif
