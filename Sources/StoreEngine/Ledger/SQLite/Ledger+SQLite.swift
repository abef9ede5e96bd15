import Foundation

/// The ledger in a SQLite file (or in memory): checked for damage as it opens, its schema version
/// in SQLite's `user_version`.
extension Ledger {
    /// Opens the ledger at `path` (nil: in memory). A damaged ledger is refused, and so is a
    /// missing or empty one where the app's wallet shows one existed: starting afresh would
    /// hide every purchase in it. A file larger than `checkedAtOpen` is checked beside the store
    /// instead (`integrityCheck`): what it finds is reported as damage, and the ledger turns read-only.
    /// `checkStarted` (tests) sees the check beside the store as soon as it starts.
    convenience init(path: String?, tokenPrefix: String, checkedAtOpen: Int = Ledger.checkedAtOpen,
                     checkStarted: (IntegrityCheck) -> Void = { _ in }) throws {
        if let path { try LedgerError.checkNotLost(path) }
        let db = try SQLiteDatabase(path: path)
        self.init(database: db, location: path.map { .sqlite(path: $0) } ?? .inMemory, tokenPrefix: tokenPrefix)
        let checkedBeside = try path != nil && Self.fileSize(db) > checkedAtOpen
        if !checkedBeside, let damage = try Self.quickCheck(db, path: path ?? ":memory:") {
            throw damage
        }
        // One write transaction: a second process opening the ledger meanwhile sees all of it or none.
        // Inside the check: the counter's first count reads every row, and may meet damage quick_check missed.
        // Before a check beside the store starts: damage it found first would refuse this write,
        // and the open would fail with "attempt to write a readonly database" (seen under load).
        try db.transaction { try migrate() }
        if checkedBeside, let path {
            let check = IntegrityCheck(path: path)
            integrityCheck = check
            db.integrityCheck = check
            checkStarted(check)
        }
    }

    /// The largest file checked before it opens: `PRAGMA quick_check` reads every page, about 1 ms a
    /// megabyte here (8 MB is some 10,000 transactions), and took 0.6 s of a 1M-transaction launch.
    static let checkedAtOpen = 8 << 20

    /// SQLite's quick check of the whole file: nil when it passes, else the damage it names.
    static func quickCheck(_ db: SQLiteDatabase, path: String) throws -> LedgerError? {
        let check = try db.query("PRAGMA quick_check")
        guard check != [[.text("ok")]] else { return nil }
        return .damaged(path: path, detail: check.prefix(3).compactMap { $0.first?.text }.joined(separator: "; "))
    }

    private static func fileSize(_ db: SQLiteDatabase) throws -> Int {
        let pages = try db.query("PRAGMA page_count").first?.first?.int ?? 0
        let size = try db.query("PRAGMA page_size").first?.first?.int ?? 0
        return Int(pages * size)
    }
}

extension SQLiteDatabase {
    /// `user_version`: 0 also for a ledger from before it was kept, whose first migration completes it.
    func appliedMigrations() throws -> Int {
        Int(try query("PRAGMA user_version").first?.first?.int ?? 0)
    }

    func recordAppliedMigrations(_ count: Int) throws {
        try execute("PRAGMA user_version = \(count)")
    }
}
