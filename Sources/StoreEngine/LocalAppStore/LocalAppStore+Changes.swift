import Foundation
import StoreCore

/// What changed since an app last read the store (see `ChangeJournal`).
extension LocalAppStore {
    /// Records a write of its own the store can describe to an app.
    func record(from: ChangeStamp, to: ChangeStamp, transaction: String?, unfinishedChange: Int) {
        journal.record(from: from, to: to, transaction: transaction, unfinishedChange: unfinishedChange)
    }

    /// How many transactions are unfinished, and how many completed: carried along this store's own
    /// described writes where they can be (see `ChangeJournal.counts`), else counted in the ledger.
    func counts() -> ChangeJournal.Counts {
        let stamp = try? ledger.stamp()
        if let stamp, let known = journal.counts(at: stamp) { return known }
        guard let completed = try? ledger.completedCount(), let unfinished = try? ledger.unfinishedCount() else {
            return ChangeJournal.Counts(completed: read(0, ledger.completedCount), unfinished: read(0, ledger.unfinishedCount))
        }
        let counts = ChangeJournal.Counts(completed: completed, unfinished: unfinished)
        if let stamp { journal.counted(counts, at: stamp) }
        return counts
    }

    public func unfinishedCount() -> Int { counts().unfinished }
    public func transactionCount() -> Int { counts().completed }

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
        guard let current = try? ledger.stamp(), let transactions = journal.transactions(from: stamp, to: current) else { return nil }
        let counts = counts()
        return SourceChanges(stamp: current, transactions: transactions.map(present), now: now(), transactionCount: counts.completed,
                             unfinishedCount: counts.unfinished, storefront: currentStorefront, locale: currentLocale,
                             damage: damage())
    }
}
