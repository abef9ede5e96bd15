import Foundation
import Testing
import StoreCore
@testable import StoreEngine

/// Get Transaction History reads a page through an index of completed transactions in the order
/// it lists them (`signedDate`, then ID; schema 4), so a page costs the same whatever the ledger holds.
@Suite("The history's index")
struct HistoryIndexTests {
    func row(_ id: Int64, signed seconds: Double, _ status: LedgerEntry.Status = .completed) -> Ledger.Row {
        let date = Date(timeIntervalSince1970: 1_780_000_000)
        let payload = TransactionPayload(
            transactionID: id, originalTransactionID: id, bundleID: "com.example.app", productID: "coins", productType: .consumable,
            purchaseDate: date, originalPurchaseDate: date, quantity: 1, signedDate: date.addingTimeInterval(seconds), storefront: "USA",
            storefrontID: "143441", currency: "USD", priceMilliunits: 990, appTransactionID: "1")
        return Ledger.Row(payload: payload, status: status, finished: true, jws: "header.payload.signature\(id)", refundRequest: nil)
    }

    @Test("a page is read through the history's index, in both orders (not a scan of every transaction)")
    func pageUsesTheIndex() throws {
        let ledger = try Ledger(path: nil, tokenPrefix: "")
        for ascending in [true, false] {
            let plan = try ledger.db.query("EXPLAIN QUERY PLAN " + Ledger.historySQL(.sqlite, ascending: ascending), [.int(0), .int(0), .int(21)])
                .compactMap { $0.last?.text }.joined(separator: "; ")
            #expect(plan.contains("USING INDEX transactions_history"), "\(plan)")
            #expect(!plan.contains("TEMP B-TREE"), "sorted by the index, not afterwards: \(plan)")
        }
    }

    @Test("rows come by signedDate then ID, completed ones only, after the position given")
    func rowsComeInTheHistorysOrder() throws {
        let ledger = try Ledger(path: nil, tokenPrefix: "")
        // 3 was signed again last (a refund re-signs it); 4 is pending and not in the history.
        for row in [row(1, signed: 0), row(2, signed: 10), row(3, signed: 20), row(4, signed: 5, .pendingApproval), row(5, signed: 10)] {
            try ledger.insert(row)
        }
        func ids(after date: Int64, _ id: Int64, ascending: Bool = true) throws -> [Int64] {
            try ledger.historyRows(after: date, id, ascending: ascending, limit: 10).map(\.payload.transactionID)
        }
        #expect(try ids(after: .min, .min) == [1, 2, 5, 3])
        #expect(try ids(after: .max, .max, ascending: false) == [3, 5, 2, 1])
        let second = Int64(1_780_000_010_000)
        #expect(try ids(after: second, 2) == [5, 3])
        #expect(try ids(after: second, 5, ascending: false) == [2, 1])
    }
}
