import StoreCore

/// What changed since an app last read the store, so that its refresh after a purchase reads one
/// transaction instead of everything. The rule that keeps it exact: the store describes only
/// writes of its own that it made knowing what they changed (a new transaction, a finish), each
/// between the ledger stamps before and after it; any other write (a catch-up, a tester's control,
/// another process's commit) moves the stamp without an entry, which breaks the chain, and the app
/// reads everything again.
struct ChangeJournal {
    /// One described write: the ledger moved from `from` to `to` by it alone.
    struct Entry {
        var from: ChangeStamp
        var to: ChangeStamp
        /// The new completed transaction it wrote, signed (nil: it changed only what `changes` reads anew).
        var transaction: String?

        /// Whether `stamp` lies inside this entry: one that stands for a run of writes that changed only
        /// what `changes` reads anew (finishes) holds the stamps between them, which this connection
        /// alone wrote (the same version) and which count the rows it wrote.
        func holds(_ stamp: ChangeStamp) -> Bool {
            transaction == nil && stamp.version == from.version && from.written < stamp.written && stamp.written < to.written
        }
    }

    /// How many described writes are kept: an app brings its snapshot up to date after each of its own.
    static let length = 64

    private(set) var entries: [Entry] = []

    /// The counts an app's snapshot shows: completed transactions, and those unfinished.
    struct Counts: Equatable {
        var completed: Int
        var unfinished: Int
    }

    /// The counts at a stamp, carried along the described writes (each says how it changed them):
    /// counting the unfinished in the ledger at every refresh was a launch's quadratic cost when
    /// thousands were unfinished, and each count is a round trip on PostgreSQL.
    private var counted: (stamp: ChangeStamp, counts: Counts)?

    /// The counts at `stamp`, when they were counted there or carried to it.
    func counts(at stamp: ChangeStamp) -> Counts? {
        counted.flatMap { $0.stamp == stamp ? $0.counts : nil }
    }

    mutating func counted(_ counts: Counts, at stamp: ChangeStamp) { counted = (stamp, counts) }

    /// Records a described write that changed the unfinished count by `unfinishedChange` (its
    /// transaction, if any, is a new completed one); one another connection's commit may have joined
    /// is not recorded.
    mutating func record(from: ChangeStamp, to: ChangeStamp, transaction: String?, unfinishedChange: Int = 0) {
        if let known = counted, known.stamp == from, from.version == to.version {
            counted = (to, Counts(completed: known.counts.completed + (transaction == nil ? 0 : 1),
                                  unfinished: known.counts.unfinished + unfinishedChange))
        }
        guard from != to, from.version == to.version else { return }
        // A run of finishes is one entry: an app launching onto thousands of unfinished transactions
        // finishes them faster than it refreshes, and the chain must outlast the run.
        if transaction == nil, let last = entries.last, last.transaction == nil, last.to == from {
            entries[entries.count - 1].to = to
            return
        }
        entries.append(Entry(from: from, to: to, transaction: transaction))
        if entries.count > Self.length { entries.removeFirst(entries.count - Self.length) }
    }

    /// The transactions written from `stamp` to `current`, oldest first, as stored (not yet presented);
    /// nil when the chain of described writes between them is broken.
    func transactions(from stamp: ChangeStamp, to current: ChangeStamp) -> [String]? {
        var at = stamp
        var transactions: [String] = []
        var next = entries.firstIndex { $0.from == stamp || $0.holds(stamp) } ?? entries.endIndex
        while at != current {
            guard next < entries.endIndex, entries[next].from == at || entries[next].holds(at) else { return nil }
            at = entries[next].to
            if let jws = entries[next].transaction { transactions.append(jws) }
            next += 1
        }
        return transactions
    }
}
