import Foundation
import StoreCore

/// Every kind of signed data the store hands out, as full JWS, for a backend's own verifier:
/// `storefront export`, the History's "write token", and the scenario step `export FILE`.
public struct SignedDataExport: Sendable, Equatable {
    /// Every completed transaction, oldest first.
    public var transactions: [String]
    /// The current renewal info of every subscription (one per subscription group, plus family-shared ones).
    public var renewalInfo: [String]
    public var appTransaction: String
    /// Each completed transaction's order ID (what Look Up Order ID takes), by transaction ID, oldest first.
    public var orders: [(transactionID: Int64, orderID: String)]

    public init(transactions: [String], renewalInfo: [String], appTransaction: String, orders: [(transactionID: Int64, orderID: String)] = []) {
        self.transactions = transactions
        self.renewalInfo = renewalInfo
        self.appTransaction = appTransaction
        self.orders = orders
    }

    public static func == (a: SignedDataExport, b: SignedDataExport) -> Bool { a.json == b.json }

    /// `{"transactions": [...], "renewalInfo": [...], "appTransaction": "...", "orders": {"TRANSACTION_ID": "ORDER_ID"}}`
    public var json: JSONValue {
        .object([(key: "transactions", value: .array(transactions.map(JSONValue.string))),
                 (key: "renewalInfo", value: .array(renewalInfo.map(JSONValue.string))),
                 (key: "appTransaction", value: .string(appTransaction)),
                 (key: "orders", value: .object(orders.map { (key: String($0.transactionID), value: .string($0.orderID)) }))])
    }

    /// Writes `json` to `path` (replacing the file atomically).
    public func write(to path: String) throws {
        do {
            try Data((json.serialized() + "\n").utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw TestControlError("\(path): cannot write the signed data (\((error as NSError).localizedDescription))")
        }
    }
}

extension LocalAppStore {
    /// The signed data as the store made it: injected verification failures (QA settings) do not apply,
    /// and renewal info and the AppTransaction are signed now, at the store's time.
    public func exportSignedData() throws -> SignedDataExport {
        catchUp()
        let transactions = try ledger.completedJWS(limit: nil).reversed()
        let renewals = try ledger.subscriptions().map { try sign(renewalInfo($0).json) }
        let ids = try ledger.db.query("SELECT id FROM transactions WHERE status = 'completed' ORDER BY id").compactMap { $0[0].int }
        return SignedDataExport(transactions: Array(transactions), renewalInfo: renewals,
                                appTransaction: try sign(appTransactionPayload().json),
                                orders: ids.map { ($0, OrderID.of(transactionID: $0)) })
    }

    /// Builds the export and writes it as JSON to `path` (the scenario step `export FILE`).
    public func exportSignedData(to path: String) throws {
        try exportSignedData().write(to: path)
    }
}
