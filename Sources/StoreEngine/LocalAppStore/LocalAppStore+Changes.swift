import Foundation
import StoreCore

/// What changed since an app last read the store, so that its refresh after a purchase reads one
/// transaction instead of everything. The rule that keeps it exact: the store describes only
/// writes of its own that it made knowing what they changed (a new transaction, a finish), each
/// between the ledger stamps before and after it; any other write (a catch-up, a tester's control,
/// another process's commit) moves the stamp without an entry, which breaks the chain, and the app
/// reads everything again.
extension LocalAppStore {
    /// One described write: the ledger moved from `from` to `to` by it alone.
    struct JournalEntry {
        var from: ChangeStamp
        var to: ChangeStamp
        /// The new completed transaction it wrote, signed (nil: it changed only what `changes` reads anew).
        var transaction: String?
    }

    /// How many described writes are kept: an app brings its snapshot up to date after each of its own.
    static let journalLength = 64

    /// Records a described write; one another connection's commit may have joined is not recorded.
    func record(from: ChangeStamp, to: ChangeStamp, transaction: String?) {
        guard from != to, from.version == to.version else { return }
        journal.append(JournalEntry(from: from, to: to, transaction: transaction))
        if journal.count > Self.journalLength { journal.removeFirst(journal.count - Self.journalLength) }
    }

    public func changeStamp() -> ChangeStamp? {
        catchUp()  // as every read does: what fell due is part of where the store stands
        return try? ledger.stamp()
    }

    public func changes(since stamp: ChangeStamp) -> SourceChanges? {
        // All of it on one snapshot (after a catch-up's write, if one falls due): where the ledger stood at `current`.
        ledger.db.reading {
            catchUp()
            return changesNow(since: stamp)
        }
    }

    private func changesNow(since stamp: ChangeStamp) -> SourceChanges? {
        guard let current = try? ledger.stamp() else { return nil }
        var at = stamp
        var transactions: [String] = []
        var next = journal.firstIndex { $0.from == stamp } ?? journal.endIndex
        while at != current {
            guard next < journal.endIndex, journal[next].from == at else { return nil }
            at = journal[next].to
            if let jws = journal[next].transaction { transactions.append(present(jws)) }
            next += 1
        }
        return SourceChanges(stamp: current, transactions: transactions, now: now(), transactionCount: transactionCount(),
                             unfinishedCount: read(0, ledger.unfinishedCount), storefront: currentStorefront, locale: currentLocale,
                             damage: damage())
    }
}
