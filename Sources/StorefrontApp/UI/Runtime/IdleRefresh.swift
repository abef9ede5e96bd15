import Foundation
import StoreClient

/// When the storefront's once-a-second look at the store reads it again: after any commit to the
/// ledger, by this process or another (its change version moved), when the store clock reaches the
/// time the snapshot goes out of date by itself (a non-renewing subscription ending), or when the
/// store cannot say. Otherwise nothing is read and only the clock on the status line moves: re-reading
/// the snapshot, the QA panel's ledger and the notifications every second was what an idle storefront did.
/// Renewals falling due are the store's own ticks' to write, which moves the version.
struct IdleRefresh<Version: Equatable & Sendable>: Sendable {
    private var seen: Version?
    private var staleAt: Date?
    private var hasRead = false

    /// Whether the store must be read again, at store time `now`, its version being `version` (nil: unknown).
    func isDue(_ version: Version?, now: Date) -> Bool {
        guard hasRead, let version, version == seen else { return true }
        return staleAt.map { now >= $0 } ?? false
    }

    /// The store was read at `version` (taken before the reads), giving `snapshot`.
    mutating func read(at version: Version?, giving snapshot: StoreSnapshot) {
        (seen, staleAt, hasRead) = (version, snapshot.nextTimedChange, true)
    }
}
