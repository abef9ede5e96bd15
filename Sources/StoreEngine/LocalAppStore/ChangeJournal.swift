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
    }

    /// How many described writes are kept: an app brings its snapshot up to date after each of its own.
    static let length = 64

    private(set) var entries: [Entry] = []

    /// Records a described write; one another connection's commit may have joined is not recorded.
    mutating func record(from: ChangeStamp, to: ChangeStamp, transaction: String?) {
        guard from != to, from.version == to.version else { return }
        entries.append(Entry(from: from, to: to, transaction: transaction))
        if entries.count > Self.length { entries.removeFirst(entries.count - Self.length) }
    }

    /// The transactions written from `stamp` to `current`, oldest first, as stored (not yet presented);
    /// nil when the chain of described writes between them is broken.
    func transactions(from stamp: ChangeStamp, to current: ChangeStamp) -> [String]? {
        var at = stamp
        var transactions: [String] = []
        var next = entries.firstIndex { $0.from == stamp } ?? entries.endIndex
        while at != current {
            guard next < entries.endIndex, entries[next].from == at else { return nil }
            at = entries[next].to
            if let jws = entries[next].transaction { transactions.append(jws) }
            next += 1
        }
        return transactions
    }
}
