import Foundation
import Testing
import StoreCore
import StoreClient
import StoreSigning
@testable import StoreEngine
import StorefrontTestSupport
import StoreVerification

/// What the ledger keeps so that a refresh costs the same at any size: a completed count kept by
/// triggers, subscription records decoded once. Each must read exactly what the table holds.
@Suite("Ledger speed shortcuts")
struct LedgerSpeedTests {
    func row(_ id: Int64, _ status: LedgerEntry.Status) -> Ledger.Row {
        let date = Date(timeIntervalSince1970: 1_780_000_000)
        let payload = TransactionPayload(
            transactionID: id, originalTransactionID: id, bundleID: "com.example.app", productID: "coins", productType: .consumable,
            purchaseDate: date, originalPurchaseDate: date, quantity: 1, signedDate: date, storefront: "USA", storefrontID: "143441",
            currency: "USD", priceMilliunits: 990, appTransactionID: "1")
        return Ledger.Row(payload: payload, status: status, finished: false, jws: nil, refundRequest: nil)
    }

    func counted(_ ledger: Ledger) throws -> Int {
        Int(try ledger.db.query("SELECT COUNT(*) FROM transactions WHERE status = 'completed'").first?.first?.int ?? -1)
    }

    func record(_ originalID: Int64, group: String, expires: Date) -> SubscriptionRecord {
        SubscriptionRecord(originalID: originalID, groupID: group, productID: group + ".monthly", autoRenewProductID: group + ".monthly",
                           latestTransactionID: originalID, expirationDate: expires, state: .subscribed, recentStartDate: expires)
    }

    @Test("the completed count follows inserts, status changes, deletions and clears")
    func completedCountFollowsEveryWrite() throws {
        let ledger = try Ledger(path: nil, tokenPrefix: "")
        for id in Int64(1)...5 { try ledger.insert(row(id, id <= 3 ? .completed : .pendingApproval)) }
        #expect(try ledger.completedCount() == 3)
        try ledger.update(row(4, .completed))
        var declined = row(5, .declined)
        declined.finished = true
        try ledger.update(declined)
        try ledger.update(row(1, .completed))
        #expect(try ledger.completedCount() == 4)
        try ledger.delete(2)
        try ledger.delete(5)
        #expect(try ledger.completedCount() == 3 && counted(ledger) == 3)
        try ledger.clear()
        #expect(try ledger.completedCount() == 0 && counted(ledger) == 0)
    }

    @Test("the newest rows read again decode only changed payloads, and read as every row read whole does")
    func newestRowsReadAsWhole() throws {
        let ledger = try Ledger(path: nil, tokenPrefix: "")
        for id in Int64(1)...4 { try ledger.insert(row(id, .completed)) }
        #expect(try ledger.allRows(limit: 3).map(\.payload.transactionID) == [4, 3, 2])
        var refunded = row(3, .completed)
        refunded.payload.revocationDate = Date(timeIntervalSince1970: 1_780_000_100)
        refunded.finished = true
        try ledger.update(refunded)
        try ledger.insert(row(5, .pendingApproval))
        let newest = try ledger.allRows(limit: 3)
        #expect(newest.map(\.payload.transactionID) == [5, 4, 3])
        #expect(newest.last?.payload.revocationDate == refunded.payload.revocationDate && newest.last?.finished == true)
        #expect(newest.map(\.payload) == Array(try ledger.allRows().prefix(3)).map(\.payload))
        #expect(newest.map(\.status) == [.pendingApproval, .completed, .completed])
        // A token follows its row's stored form.
        var signed = row(4, .completed)
        signed.jws = "header.payload.first"
        try ledger.update(signed)
        #expect(try ledger.allRows(limit: 3)[1].jws == "header.payload.first")
        signed.jws = "header.payload.second"
        try ledger.update(signed)
        #expect(try ledger.allRows(limit: 3)[1].jws == "header.payload.second")
    }

    @Test("a ledger from before the completed count is counted when it is opened")
    func oldLedgerIsCountedAtOpen() throws {
        let directory = try createdTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/ledger.sqlite"
        do {
            let ledger = try Ledger(path: path, tokenPrefix: "")
            for id in Int64(1)...4 { try ledger.insert(row(id, id == 4 ? .interrupted : .completed)) }
            try ledger.db.execute("""
                DROP TRIGGER completed_inserted; DROP TRIGGER completed_deleted; DROP TRIGGER completed_changed;
                DROP TABLE completed_count;
                PRAGMA user_version = 0;
                """)
        }
        let reopened = try Ledger(path: path, tokenPrefix: "")
        #expect(try reopened.completedCount() == 3)
        try reopened.insert(row(5, .completed))
        #expect(try reopened.completedCount() == 4)
    }

    /// Each open used to add a row of 0 (an aggregate yields a row even when its filter holds for none)
    /// after scanning every transaction: 0.3 s with a million.
    @Test("opening a counted ledger again neither counts it again nor adds a counter row; extra rows are counted afresh")
    func reopeningKeepsOneCounter() throws {
        let directory = try createdTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/ledger.sqlite"
        do {
            let ledger = try Ledger(path: path, tokenPrefix: "")
            for id in Int64(1)...3 { try ledger.insert(row(id, .completed)) }
            // What opening did before (ledgers without a schema version then): a second row, which the triggers then kept updating from 0.
            try ledger.db.execute("INSERT INTO completed_count(n) VALUES (0); PRAGMA user_version = 0")
            try ledger.insert(row(4, .completed))
        }
        for _ in 0..<3 {
            let reopened = try Ledger(path: path, tokenPrefix: "")
            #expect(try reopened.db.query("SELECT n FROM completed_count") == [[.int(4)]])
        }
        // The counter is read, not recounted, at open: a count changed behind the triggers' back stays as it was.
        do { try Ledger(path: path, tokenPrefix: "").db.execute("UPDATE completed_count SET n = 40") }
        #expect(try Ledger(path: path, tokenPrefix: "").completedCount() == 40)
    }

    @Test("subscription records another process writes are read afresh, with their due dates")
    func recordsFromAnotherProcessAreRead() throws {
        let directory = try createdTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (mine, theirs) = (try Ledger(path: directory + "/ledger.sqlite", tokenPrefix: ""),
                              try Ledger(path: directory + "/ledger.sqlite", tokenPrefix: ""))
        let later = Date(timeIntervalSince1970: 1_790_000_000), sooner = Date(timeIntervalSince1970: 1_785_000_000)
        try mine.save(record(1, group: "a", expires: later))
        #expect(try mine.subscriptions().map(\.originalID) == [1] && mine.nextDueDate() == later)
        try theirs.save(record(2, group: "b", expires: sooner))
        #expect(try mine.subscriptions(group: "b").map(\.originalID) == [2])
        #expect(try mine.nextDueDate() == sooner)
        try theirs.deleteSubscription(2)
        #expect(try mine.subscriptions().map(\.originalID) == [1] && mine.nextDueDate() == later)
    }

    @Test("a subscription record this process writes is read back at once, with its due date")
    func ownWritesAreReadBack() throws {
        let ledger = try Ledger(path: nil, tokenPrefix: "")
        let later = Date(timeIntervalSince1970: 1_790_000_000), sooner = Date(timeIntervalSince1970: 1_785_000_000)
        try ledger.save(record(1, group: "a", expires: later))
        try ledger.save(record(2, group: "b", expires: later))
        #expect(try ledger.subscriptions().count == 2 && ledger.nextDueDate() == later)
        try ledger.save(record(2, group: "b", expires: sooner))
        #expect(try ledger.subscriptions(group: "b").map(\.expirationDate) == [sooner] && ledger.nextDueDate() == sooner)
        try ledger.db.transaction {
            try ledger.save(record(3, group: "a", expires: later))
            #expect(try ledger.subscriptions(group: "a").map(\.originalID) == [1, 3])
        }
        #expect(try ledger.subscriptions().map(\.originalID) == [1, 2, 3])
        try ledger.deleteSubscription(2)
        #expect(try ledger.subscriptions().map(\.originalID) == [1, 3] && ledger.nextDueDate() == later)
    }

    @Test("a subscription record written in a rolled-back transaction is never read back")
    func rolledBackRecordIsNotRead() throws {
        let ledger = try Ledger(path: nil, tokenPrefix: "")
        struct Abort: Error {}
        _ = try ledger.subscriptions()
        #expect(throws: Abort.self) {
            try ledger.db.transaction {
                try ledger.save(record(1, group: "a", expires: .now))
                #expect(try ledger.subscriptions(group: "a").count == 1)
                throw Abort()
            }
        }
        #expect(try ledger.subscriptions().isEmpty && ledger.nextDueDate() == nil)
    }

    @Test("unchanged renewal info is handed out as signed before; a change signs it again")
    func renewalInfoIsSignedAgainOnlyWhenItChanges() async throws {
        let h = try await Harness.make()
        defer { Task { await h.close() } }
        _ = await h.manager.purchase(ID.proMonthly)
        let first = try await h.store.subscriptionStatuses(groupID: ID.group)
        let again = try await h.store.subscriptionStatuses(groupID: ID.group)
        #expect(first.map(\.renewalInfo) == again.map(\.renewalInfo))
        try await h.store.setAutoRenew(productID: ID.proMonthly, enabled: false)
        let changed = try await h.store.subscriptionStatuses(groupID: ID.group)
        #expect(changed.map(\.renewalInfo) != first.map(\.renewalInfo))
        let verifier = SignedDataVerifier(trustedRoots: [h.store.certificate])
        #expect(changed.first.map { verifier.renewalInfo($0.renewalInfo).payload?.willAutoRenew } == false)
    }

    @Test("a token read for entitlements is read again for statuses only once the ledger has moved")
    func tokensAreReadAgainOnceTheLedgerMoves() async throws {
        let h = try await Harness.make()
        defer { Task { await h.close() } }
        _ = await h.manager.purchase(ID.proMonthly)
        let entitled = await h.store.currentEntitlements()
        #expect(try await h.store.subscriptionStatuses(groupID: ID.group).map(\.transaction) == entitled)
        let id = try #require(await h.entry(ID.proMonthly)).id
        try await h.store.refund(transactionID: id, prorated: false)
        let refunded = try await h.store.subscriptionStatuses(groupID: ID.group)
        let verifier = SignedDataVerifier(trustedRoots: [h.store.certificate])
        #expect(refunded.map { verifier.transaction($0.transaction).payload?.isRevoked } == [true])
        #expect(await h.store.currentEntitlements().isEmpty)
    }

    /// Records with every field set, with none of the optional ones, and with each value of each enumeration.
    func recordsOfEveryShape() -> [SubscriptionRecord] {
        var full = record(2_000_000_001, group: "g \"quoted\" ✓/", expires: Date(timeIntervalSinceReferenceDate: 852_080_291.4437038))
        (full.willAutoRenew, full.state, full.expirationReason) = (false, .inGracePeriod, .billingError)
        (full.gracePeriodEnd, full.billingRetryEnd) = (Date(timeIntervalSinceReferenceDate: 1e-5), Date(timeIntervalSinceReferenceDate: -63_114_076_800))
        (full.priceIncrease, full.increasedPriceMilliunits, full.familyShared) = (.agreed, 5990, true)
        (full.anchorDay, full.appAccountToken, full.billingPlan) = (31, UUID(), .monthly)
        full.offer = .init(type: .promotional, id: "half", period: Period(3, .month), priceMilliunits: 1490, remainingPeriods: 2)
        var records = [full, record(8, group: "h", expires: .distantPast), record(-1, group: "", expires: .distantFuture)]
        for (i, state) in SubscriptionState.allCases.enumerated() {
            var r = record(Int64(10 + i), group: "s", expires: .now)
            (r.state, r.expirationReason) = (state, RenewalInfoPayload.ExpirationReason.allCases[i % 5])
            r.priceIncrease = [.notYetResponded, .agreed, .declined][i % 3]
            r.billingPlan = BillingPlanType.allCases[i % BillingPlanType.allCases.count]
            r.offer = .init(type: OfferType.allCases[i % OfferType.allCases.count], id: nil, period: Period(1, .week), priceMilliunits: 0, remainingPeriods: i)
            records.append(r)
        }
        return records
    }

    @Test("a record reads back as JSONDecoder read it: written by json or, in rows from before, by JSONEncoder")
    func recordReadsAsJSONDecoderRead() throws {
        for record in recordsOfEveryShape() {
            let written = [record.json.compact, String(decoding: try JSONEncoder().encode(record), as: UTF8.self)]
            for text in written {
                let read = try SubscriptionRecord(json: JSONParser.parse(text))
                #expect(read == record, "\(text)")
                #expect(read == (try JSONDecoder().decode(SubscriptionRecord.self, from: Data(text.utf8))))
            }
        }
    }

    @Test("an optional key absent or null reads as nil; unknown keys are ignored, as JSONDecoder does")
    func recordOptionalsAndUnknownKeys() throws {
        let bare = record(7, group: "g", expires: Date(timeIntervalSinceReferenceDate: 0))
        guard case .object(var members) = bare.json else { Issue.record("not an object"); return }
        members += ["gracePeriodEnd", "offer", "appAccountToken", "anchorDay"].map { (key: $0, value: JSONValue.null) }
        members.append((key: "addedLater", value: ["nested": true]))
        let text = JSONValue.object(members).compact
        #expect(try SubscriptionRecord(json: JSONParser.parse(text)) == bare)
        #expect(try JSONDecoder().decode(SubscriptionRecord.self, from: Data(text.utf8)) == bare)
    }

    @Test("a record with a key missing, null or of the wrong kind is refused, naming the key, where JSONDecoder refuses it too",
          arguments: [("expirationDate", nil, "expirationDate is missing"), ("willAutoRenew", JSONValue.null, "willAutoRenew is null"),
                      ("originalID", "7", "originalID is a string, not what it should hold"),
                      ("state", "paused", "state is a string, not what it should hold"),
                      ("anchorDay", .number("1.5"), "anchorDay is a number, not what it should hold"),
                      ("offer", ["type": "code", "period": "P1X", "priceMilliunits": 0, "remainingPeriods": 1],
                       "offer.period is a string, not what it should hold")] as [(String, JSONValue?, String)])
    func badRecordIsRefused(key: String, value: JSONValue?, message: String) throws {
        guard case .object(var members) = record(7, group: "g", expires: .now).json else { Issue.record("not an object"); return }
        members.removeAll { $0.key == key }
        if let value { members.append((key: key, value: value)) }
        let text = JSONValue.object(members).compact
        #expect(throws: RecordFieldError(key: String(message.prefix { $0 != " " }), problem: String(message.drop { $0 != " " }.dropFirst()))) {
            try SubscriptionRecord(json: JSONParser.parse(text))
        }
        #expect(throws: (any Error).self) { try JSONDecoder().decode(SubscriptionRecord.self, from: Data(text.utf8)) }
    }

    @Test("a stored record that does not read is damage naming its row and key")
    func damagedRecordNamesItsKey() throws {
        let ledger = try Ledger(path: nil, tokenPrefix: "")
        try ledger.save(record(7, group: "g", expires: .now))
        try ledger.db.query("UPDATE subscriptions SET record = replace(record, '\"state\":\"subscribed\"', '\"state\":1')")
        #expect(throws: LedgerError.damagedRow(path: ":memory:", table: "subscriptions", key: "7",
                                               detail: "its record does not decode: state is a number, not what it should hold")) {
            try ledger.subscriptions(group: "g")
        }
        try ledger.db.query("UPDATE subscriptions SET record = '{'")
        #expect(throws: LedgerError.damagedRow(path: ":memory:", table: "subscriptions", key: "7", detail: "its record does not decode: it is not JSON")) {
            try ledger.subscriptions(group: "g")
        }
    }

    @Test("rows a batch signs later are inserted when it ends, with their signatures, under IDs no other row takes")
    func rowsSignedLaterAreInsertedAtTheEnd() throws {
        let ledger = try Ledger(path: nil, tokenPrefix: "prefix.")
        try ledger.insert(row(2_000_000_001, .completed))
        let ids = try ledger.batch {
            var ids: [Int64] = []
            for _ in 0..<3 {
                let id = try ledger.nextTransactionID()
                try ledger.insert(row(id, .completed), payloadJSON: row(id, .completed).payload.json.compact, signedLater: true)
                ids.append(id)
            }
            #expect(try ledger.row(ids[1])?.payload.transactionID == ids[1])
            #expect(try counted(ledger) == 1)  // not in the table until the batch ends
            for id in ids { ledger.setSignature("sig\(id)", for: id) }
            try ledger.delete(ids[2])
            return ids
        }
        #expect(ids == [2_000_000_002, 2_000_000_003, 2_000_000_004])
        #expect(try ledger.db.query("SELECT id, jws FROM transactions ORDER BY id").map { $0[1].text } == [nil, "sig2000000002", "sig2000000003"])
        let payload = row(ids[0], .completed).payload.json.compact
        #expect(try ledger.jws(ids[0]) == "prefix." + Base64URL.encode(Array(payload.utf8)) + ".sig2000000002")
        #expect(try ledger.nextTransactionID() == 2_000_000_005)  // the deleted row's ID is not used again
    }
}
