import Foundation

/// What the store knows of the app's wallets (`ConsumableWallet`): the wallet credits each transaction
/// ID once, so a wallet and a ledger that disagree lose purchases without a word. The app checks
/// both at launch (`StoreStack.launchApp`).
extension LocalAppStore {
    /// The highest transaction ID this ledger has handed out (also of rows since deleted); 0 for none.
    public func highestTransactionID() throws -> Int64 { try highestHandedOutID() ?? 0 }

    /// The highest transaction ID this ledger has handed out; nil for none (Xcode's numbering starts at 0).
    func highestHandedOutID() throws -> Int64? {
        try ledger.db.query("""
            SELECT MAX(id) FROM transactions UNION ALL SELECT CAST(value AS BIGINT) FROM meta WHERE key = 'highestDeletedID'
            """).compactMap { $0.first?.int }.max()
    }

    /// Whether the app's wallet `name` was made beside this ledger before. Kept only in a ledger of the
    /// state directory's (a shared ledger's wallets are on many machines); false otherwise.
    public func hadWallet(named name: String) throws -> Bool {
        guard case .sqlite = ledger.location else { return false }
        return try ledger.meta(Self.walletKey(name)) != nil
    }

    /// Notes that the app's wallet `name` now exists beside this ledger (see `hadWallet`).
    public func madeWallet(named name: String) throws {
        guard case .sqlite = ledger.location, try !hadWallet(named: name) else { return }
        try ledger.setMeta(Self.walletKey(name), "1")
    }

    /// The ledger's file or database, for messages.
    public func ledgerDescription() -> String { ledger.path ?? "in memory" }

    private static func walletKey(_ name: String) -> String { "wallet:" + name }
}
