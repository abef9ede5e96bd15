import CSQLite
import Dispatch
import Locking
import Synchronization

/// Copies a database's write-ahead log back into its file on a thread and a connection of its own, so
/// that no commit waits for the copying. SQLite's automatic checkpoint runs inside the commit that
/// leaves the log `pages` long, syncing the log and the file: on a small ledger one purchase in about
/// 125 met one and took 0.2–4.6 ms more (SQLite's documentation suggests this for applications that
/// cannot wait).
///
/// The log starts over only at a transaction that begins once all of it is copied back. When commits
/// came while a checkpoint ran, the first commit after it copies what they wrote, on its own
/// connection: usually a few pages (more when the checkpoint was slow), and two syncs (0.4 ms each at
/// the median here). Without that, the log of commits that never pause for a whole checkpoint grows
/// without end; with them paused (a person buying), the checkpoint copies everything and no commit waits.
final class Checkpointer: Sendable {
    /// SQLite's default: a commit that leaves the write-ahead log this many pages long asks for a checkpoint.
    static let pages: Int32 = 1000

    private let path: String
    private let queue = DispatchQueue(label: "storefront-ledger-checkpoint", qos: .utility)
    private let requested = Atomic<Bool>(false)
    /// Set by a checkpoint beside the commits once it ran: the next commit copies what it left.
    private let leftSome = Atomic<Bool>(false)
    /// How many of the log's pages the last checkpoint copied back: the log that still holds them asks
    /// for none more until it is that much longer. 0 again once a commit finds the log shorter: the
    /// commit after a whole checkpoint writes it from its start.
    private let copied = Atomic<Int32>(0)
    /// Opened on the first checkpoint; used on `queue` only, so its lock is never waited for.
    private let connection = Locked<OpaquePointer?>(nil)
    private let count = Atomic<Int>(0)
    private let commitCount = Atomic<Int>(0)
    private let restartCount = Atomic<Int>(0)

    init(path: String) { self.path = path }

    /// Checkpoints that ran so far (tests).
    var checkpoints: Int { count.load(ordering: .acquiring) }
    /// Checkpoints a commit ran itself, for the rest of one beside it (tests).
    var checkpointsInCommits: Int { commitCount.load(ordering: .acquiring) }
    /// Commits that found the log started over since the last checkpoint (tests).
    var restarts: Int { restartCount.load(ordering: .acquiring) }

    /// After `writer`'s commit that left the log `pages` long: a checkpoint when it is long enough, one
    /// at a time (a commit meanwhile asks for none more); the rest of one that ran, if the log did not
    /// start over since.
    func committed(pages: Int32, writer: OpaquePointer) {
        var uncopied = pages - copied.load(ordering: .relaxed)
        if uncopied < 0 {
            restartCount.add(1, ordering: .releasing)
            copied.store(0, ordering: .relaxed)
            leftSome.store(false, ordering: .relaxed)
            uncopied = pages
        } else if leftSome.exchange(false, ordering: .acquiringAndReleasing) {
            var (log, done): (Int32, Int32) = (0, 0)
            if sqlite3_wal_checkpoint_v2(writer, nil, SQLITE_CHECKPOINT_PASSIVE, &log, &done) == SQLITE_OK {
                copied.store(done, ordering: .relaxed)
                commitCount.add(1, ordering: .releasing)
            }
            return
        }
        guard uncopied >= Self.pages, !requested.exchange(true, ordering: .acquiringAndReleasing) else { return }
        queue.async { [self] in
            requested.store(false, ordering: .releasing)
            checkpoint()
        }
    }

    /// A checkpoint that waits for no one: what readers still need stays in the log for the next one,
    /// and one that fails (the disk full, say) leaves the log as it was, for the next commit to ask again.
    private func checkpoint() {
        connection.withLock { handle in
            if handle == nil {
                var opened: OpaquePointer?
                guard sqlite3_open_v2(path, &opened, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK else {
                    sqlite3_close(opened)
                    return
                }
                // A connection reads the file lazily: until it has, it does not know the file is in WAL
                // mode, and a checkpoint on it does nothing.
                sqlite3_exec(opened, "PRAGMA schema_version", nil, nil, nil)
                handle = opened
            }
            var (log, done): (Int32, Int32) = (0, 0)
            if sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, &log, &done) == SQLITE_OK {
                copied.store(done, ordering: .relaxed)
                leftSome.store(true, ordering: .releasing)
                count.add(1, ordering: .releasing)
            }
        }
    }

    /// Waits for a checkpoint under way, then closes the connection: before the writer closes its own,
    /// so that the writer's is the last, which checkpoints the whole log and removes it.
    func close() {
        queue.sync {
            connection.withLock { handle in
                sqlite3_close(handle)
                handle = nil
            }
        }
    }
}
