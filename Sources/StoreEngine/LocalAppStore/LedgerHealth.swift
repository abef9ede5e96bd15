import StoreCore

/// What went wrong reading the ledger, behind the store's non-throwing reads: a damaged row cannot
/// be shown, so it is kept and reported rather than silently left out; a shared ledger out of reach
/// is reported the same way until a read succeeds again.
struct LedgerHealth {
    /// The first damaged ledger row a read met.
    private(set) var damage: LedgerError?
    /// Why the last read of a shared ledger failed, until one succeeds.
    private(set) var outOfReach: LedgerError?

    mutating func readSucceeded() { outOfReach = nil }

    /// Takes note of a failed read of the ledger. Damage includes a page SQLite finds malformed (one
    /// the open's check has not reached yet, on a large ledger): the engines name it as the ledger's.
    mutating func readFailed(_ error: any Error) {
        guard let error = error as? LedgerError else { return }
        if !error.isDamage { outOfReach = error } else if damage == nil { damage = error }
    }

    /// Damage the ledger's background integrity check found, when no read met any first.
    mutating func checked(_ found: @autoclosure () -> LedgerError?) {
        if damage == nil { damage = found() }
    }

    /// What to tell the customer; nil when nothing is wrong.
    var description: String? { damage?.description ?? outOfReach?.description }
}
