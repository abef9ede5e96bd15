import Foundation
import StoreCore
import Synchronization

/// Read-only connections to a SQLite ledger file, for what the App Store Server API answers without the
/// store's actor: a read that needs nothing the store computes, done on the thread that asks. Under many
/// concurrent clients, a request that waited its turn on the actor and came back cost two thread switches.
/// A few slots, each a connection opened when first needed and taken with one compare-and-swap: a
/// lock around a shared list was contended by 64 client threads on two cores, and its waiting was 7% of
/// serving them. With every slot taken, the caller asks the actor instead.
final class LedgerReaders: Sendable {
    private let location: LedgerLocation
    private let tokenPrefix: String
    private let slots: [Slot]
    static let limit = 4
    /// The tokens each reader keeps rebuilt (about 4 kB each): a backend asks again about what it was just told of.
    static let keptTokens = 512

    /// nil for a ledger that is not a SQLite file (in memory, PostgreSQL).
    init?(_ location: LedgerLocation, tokenPrefix: String) {
        guard case .sqlite = location else { return nil }
        self.location = location
        self.tokenPrefix = tokenPrefix
        slots = (0..<Self.limit).map { _ in Slot() }
    }

    /// `body` on a reader of its own; nil when every slot is taken, the reader cannot open, or `body` failed.
    /// The first free slot from the start: a quiet server opens one connection.
    func read<T>(_ body: (Ledger) throws -> T) -> T? {
        for slot in slots where slot.take() {
            defer { slot.give() }
            if slot.ledger == nil, case .sqlite(let path) = location, let db = try? SQLiteDatabase(path: path, readOnly: true) {
                let ledger = Ledger(database: db, location: location, tokenPrefix: tokenPrefix)
                ledger.rebuiltTokenLimit = Self.keptTokens
                slot.ledger = ledger
                opens.add(1, ordering: .relaxed)
            }
            guard let ledger = slot.ledger else { return nil }
            return try? body(ledger)
        }
        return nil
    }

    /// Connections opened so far.
    var opened: Int { opens.load(ordering: .relaxed) }
    private let opens = Atomic<Int>(0)

    // @unchecked: `ledger` (a class with a connection and statement cache) is touched only by the thread
    // that took the slot, between `take` (acquiring) and `give` (releasing), so it is never shared.
    private final class Slot: @unchecked Sendable {
        private let taken = Atomic<Bool>(false)
        var ledger: Ledger?

        func take() -> Bool { taken.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged }
        func give() { taken.store(false, ordering: .releasing) }
    }
}

extension Ledger {
    /// A completed transaction's token; nil when there is none by that ID, or it is not completed.
    func completedToken(_ id: Int64) throws -> String? {
        guard let columns = try db.query("SELECT jws, status FROM transactions WHERE id = ?", [.int(id)]).first,
              columns[1].text == LedgerEntry.Status.completed.rawValue, let stored = columns[0].text else { return nil }
        return try rebuiltToken(id, stored: stored)
    }
}
