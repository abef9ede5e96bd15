import CSQLite
import Foundation
import Locking

/// SQLite's `PRAGMA quick_check` of a ledger file, on a read-only connection and a thread of its own:
/// it reads every page, about a second for a million transactions, so a ledger too large to check
/// before it opens is checked beside the store instead (see `Ledger.checkedAtOpen`).
final class IntegrityCheck: Sendable {
    enum Outcome: Equatable, Sendable {
        case running, passed, stopped
        case damaged(LedgerError)
    }

    private let state = Locked<(outcome: Outcome, connection: Interrupter?)>((.running, nil))
    private let done = DispatchSemaphore(value: 0)

    init(path: String) {
        let thread = Thread { [self] in
            // Niced (Linux's nice is per thread): the store's own work, a launch's first frame above all, comes first.
            setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
            run(path: path)
            done.signal()
        }
        thread.name = "storefront-ledger-check"
        thread.start()
    }

    /// The check's outcome so far.
    var outcome: Outcome { state.withLock { $0.outcome } }

    /// The damage the check found, once it has.
    var damage: LedgerError? {
        if case .damaged(let error) = outcome { error } else { nil }
    }

    /// Waits for the check to end (tests).
    func wait() {
        done.wait()
        done.signal()
    }

    /// Ends a check still running and waits for its thread (a process exiting mid-check must not leave it reading).
    func stop() {
        state.withLock {
            guard $0.outcome == .running else { return }
            $0.outcome = .stopped
            // Under the lock: the connection is open until `finish` has cleared it (see `run`).
            $0.connection?.interrupt()
        }
        done.wait()
        done.signal()  // a second stop (deinit after shutdown) returns at once
    }

    /// The check on a connection of its own, its outcome recorded while the connection is still open.
    private func run(path: String) {
        let db: SQLiteDatabase
        do {
            db = try SQLiteDatabase(path: path, readOnly: true)
        } catch {
            return finish(Self.outcome(of: error))
        }
        let started = state.withLock {
            guard $0.outcome == .running else { return false }
            $0.connection = Interrupter(handle: db.handle)
            return true
        }
        guard started else { return }
        // The connection stays open until the outcome is recorded (and `stop` can no longer interrupt it).
        withExtendedLifetime(db) {
            do {
                finish(try Ledger.quickCheck(db, path: path).map(Outcome.damaged) ?? .passed)
            } catch {
                finish(Self.outcome(of: error))
            }
        }
    }

    private func finish(_ outcome: Outcome) {
        state.withLock { $0 = ($0.outcome == .stopped ? .stopped : outcome, nil) }
    }

    /// A file SQLite calls malformed is damaged (`SQLiteDatabase` names it); anything else (interrupted, unreadable) is left to the store's own reads.
    private static func outcome(of error: any Error) -> Outcome {
        guard let damage = error as? LedgerError, case .damaged = damage else { return .stopped }
        return .damaged(damage)
    }

    /// `sqlite3_interrupt` of a connection another thread is using, which SQLite allows while the
    /// connection is open. @unchecked Sendable: `IntegrityCheck` calls it only under its lock, while
    /// its thread has not yet finished (and so has not closed the connection).
    private struct Interrupter: @unchecked Sendable {
        let handle: OpaquePointer
        func interrupt() { sqlite3_interrupt(handle) }
    }
}
