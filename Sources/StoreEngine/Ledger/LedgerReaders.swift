import Foundation
import StoreCore
import Synchronization

/// Read-only connections to a SQLite ledger file, for what the App Store Server API answers without the
/// store's actor: a read that needs nothing the store computes, done on the thread that asks. Under many
/// concurrent clients, a request that waited its turn on the actor and came back cost two thread switches.
/// Opened as they are first needed, a few at most; with none free, the caller asks the actor instead.
final class LedgerReaders: Sendable {
    private let location: LedgerLocation
    private let tokenPrefix: String
    private static let limit = 4
    /// The readers not in use, and how many are open.
    private let pool = Mutex<(idle: [Reader], open: Int)>(([], 0))

    /// nil for a ledger that is not a SQLite file (in memory, PostgreSQL).
    init?(_ location: LedgerLocation, tokenPrefix: String) {
        guard case .sqlite = location else { return nil }
        self.location = location
        self.tokenPrefix = tokenPrefix
    }

    /// `body` on a reader of its own; nil when none is free and no more may open, or `body` failed.
    func read<T>(_ body: (Ledger) throws -> T) -> T? {
        guard let reader = take() else { return nil }
        defer { pool.withLock { $0.idle.append(reader) } }
        return try? body(reader.ledger)
    }

    private func take() -> Reader? {
        enum Next { case reader(Reader), open, none }
        let next: Next = pool.withLock { pool in
            if let reader = pool.idle.popLast() { return .reader(reader) }
            guard pool.open < Self.limit else { return .none }
            pool.open += 1
            return .open
        }
        switch next {
        case .reader(let reader): return reader
        case .none: return nil
        case .open:
            guard case .sqlite(let path) = location, let db = try? SQLiteDatabase(path: path, readOnly: true) else {
                pool.withLock { $0.open -= 1 }
                return nil
            }
            return Reader(Ledger(database: db, location: location, tokenPrefix: tokenPrefix))
        }
    }

    // @unchecked: a reader is used by one thread at a time, taken out of the pool under its lock and put
    // back when done, so its ledger (a class with a connection and statement cache) is never shared.
    private final class Reader: @unchecked Sendable {
        let ledger: Ledger
        init(_ ledger: Ledger) { self.ledger = ledger }
    }
}

extension Ledger {
    /// A completed transaction's token; nil when there is none by that ID, or it is not completed.
    func completedToken(_ id: Int64) throws -> String? {
        guard let columns = try db.query("SELECT jws, payload, status FROM transactions WHERE id = ?", [.int(id)]).first,
              columns[2].text == LedgerEntry.Status.completed.rawValue, let stored = columns[0].text else { return nil }
        return token(stored, payload: columns[1].text ?? "")
    }
}
