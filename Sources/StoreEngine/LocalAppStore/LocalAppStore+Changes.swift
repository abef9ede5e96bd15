import Foundation
import StoreCore

/// What changed since an app last read the store (see `ChangeJournal`).
extension LocalAppStore {
    /// Records a write of its own the store can describe to an app.
    func record(from: ChangeStamp, to: ChangeStamp, transaction: String?, unfinishedChange: Int) {
        journal.record(from: from, to: to, transaction: transaction, unfinishedChange: unfinishedChange)
    }

    /// How many transactions are unfinished, carried along this store's own described writes where it
    /// can be (see `ChangeJournal.unfinishedCount`), else counted in the ledger.
    public func unfinishedCount() -> Int {
        guard let stamp = try? ledger.stamp() else { return read(0, ledger.unfinishedCount) }
        if let known = journal.unfinishedCount(at: stamp) { return known }
        guard let count = try? ledger.unfinishedCount() else { return read(0, ledger.unfinishedCount) }
        journal.counted(unfinished: count, at: stamp)
        return count
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
        guard let current = try? ledger.stamp(), let transactions = journal.transactions(from: stamp, to: current) else { return nil }
        return SourceChanges(stamp: current, transactions: transactions.map(present), now: now(), transactionCount: transactionCount(),
                             unfinishedCount: unfinishedCount(), storefront: currentStorefront, locale: currentLocale,
                             damage: damage())
    }
}
