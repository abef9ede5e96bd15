import Foundation
import StoreCore

extension Ledger {
    // MARK: Subscriptions

    func batch<T>(_ body: () throws -> T) throws -> T {
        guard batchRecords == nil else { return try body() }
        batchRecords = [:]
        batchRows = [:]
        defer { (batchRecords, batchRows, unsignedRows, signatures, batchHighestID) = (nil, nil, [], [:], nil) }
        return try db.transaction {
            let result = try body()
            try insertSignedRows()
            for record in batchRecords!.values.sorted(by: { $0.originalID < $1.originalID }) { try write(record) }
            return result
        }
    }

    func subscription(_ originalID: Int64) throws -> SubscriptionRecord? {
        if let record = batchRecords?[originalID] { return record }
        return try db.query("SELECT record, original_id FROM subscriptions WHERE original_id = ?", [.int(originalID)]).first.map(record)
    }

    private func record(_ columns: [SQLValue]) throws -> SubscriptionRecord {
        guard let text = columns[0].text, let json = try? JSONParser.parse(text) else {
            throw damagedRow("subscriptions", key: columns[1].int, "its record does not decode: it is not JSON")
        }
        do {
            return try SubscriptionRecord(json: json)
        } catch {
            throw damagedRow("subscriptions", key: columns[1].int, "its record does not decode: \(error)")
        }
    }

    /// Every subscription record, decoded once: a refresh reads them for each group (status,
    /// eligibility, catch-up), and decoding all of them once per group made it quadratic.
    /// `stale`: groups this connection wrote since, read again (alone) at the next read outside a write.
    /// `nextDue`: the earliest date one of them falls due (see `RenewalSchedule.dueDate`).
    struct DecodedRecords {
        var version: Int64
        var byGroup: [String: [SubscriptionRecord]]
        var stale: Set<String> = []
        /// All of them by original ID, sorted when first asked for (a purchase needs only its group).
        var all: [SubscriptionRecord]?
        var nextDue: Date?

        init(version: Int64, byGroup: [String: [SubscriptionRecord]]) {
            self.version = version
            self.byGroup = byGroup
            summarize()
        }

        mutating func summarize() {
            all = nil
            nextDue = byGroup.values.lazy.flatMap { $0 }.compactMap(RenewalSchedule.dueDate).min()
        }
    }

    private func decodedSubscriptions() throws -> DecodedRecords {
        let version = try db.dataVersion()
        if var decoded = decodedRecords, decoded.version == version {
            guard !decoded.stale.isEmpty else { return decoded }
            for group in decoded.stale { decoded.byGroup[group] = try storedSubscriptions(group: group) }
            decoded.stale = []
            decoded.summarize()
            if !db.isInTransaction { decodedRecords = decoded }
            return decoded
        }
        let all = try db.query("SELECT record, original_id FROM subscriptions ORDER BY original_id").map(record)
        var decoded = DecodedRecords(version: version, byGroup: Dictionary(grouping: all, by: \.groupID))
        decoded.all = all
        if !db.isInTransaction { decodedRecords = decoded }
        return decoded
    }

    private func allSubscriptions() throws -> [SubscriptionRecord] {
        let decoded = try decodedSubscriptions()
        if let all = decoded.all { return all }
        let all = decoded.byGroup.values.flatMap { $0 }.sorted { $0.originalID < $1.originalID }
        if !db.isInTransaction { decodedRecords?.all = all }
        return all
    }

    private func storedSubscriptions(group: String) throws -> [SubscriptionRecord] {
        try db.query("SELECT record, original_id FROM subscriptions WHERE group_id = ? ORDER BY original_id", [.text(group)]).map(record)
    }

    /// The earliest date a subscription falls due; nil when none will until a record changes.
    func nextDueDate() throws -> Date? {
        guard let pending = batchRecords, !pending.isEmpty else { return try decodedSubscriptions().nextDue }
        return try subscriptions().compactMap(RenewalSchedule.dueDate).min()
    }

    func subscriptions(group: String? = nil) throws -> [SubscriptionRecord] {
        // Inside a write (a purchase), a group written in it is read alone rather than decoding every record.
        var records = if let group, db.isInTransaction, decodedRecords?.stale.contains(group) ?? true {
            try storedSubscriptions(group: group)
        } else {
            try group.map { try decodedSubscriptions().byGroup[$0] ?? [] } ?? allSubscriptions()
        }
        guard let pending = batchRecords, !pending.isEmpty else { return records }
        records = records.map { pending[$0.originalID] ?? $0 }
        let known = Set(records.map(\.originalID))
        records += pending.values.filter { !known.contains($0.originalID) && (group == nil || $0.groupID == group) }
        return records.sorted { $0.originalID < $1.originalID }
    }

    /// Every subscription record by group, each group's as `subscriptions(group:)` reads it, without
    /// grouping all of them again (a thousand groups' at every refresh).
    func subscriptionsByGroup() throws -> [String: [SubscriptionRecord]] {
        guard let pending = batchRecords, !pending.isEmpty else { return try decodedSubscriptions().byGroup }
        return Dictionary(grouping: try subscriptions(), by: \.groupID)
    }

    func save(_ record: SubscriptionRecord) throws {
        if batchRecords != nil { batchRecords![record.originalID] = record } else { try write(record) }
    }

    /// In a write transaction (joined when one is open): on PostgreSQL only those count as changes
    /// that other processes' cached records must see (`dataVersion`).
    private func write(_ record: SubscriptionRecord) throws {
        decodedRecords?.stale.insert(record.groupID)
        let text = record.json.compact
        _ = try db.transaction {
            try db.queue("""
                INSERT INTO subscriptions(original_id, group_id, record) VALUES (?, ?, ?)
                ON CONFLICT(original_id) DO UPDATE SET record = excluded.record, group_id = excluded.group_id
                """, [.int(record.originalID), .text(record.groupID), .text(text)])
        }
    }

    func deleteSubscription(_ originalID: Int64) throws {
        decodedRecords = nil
        batchRecords?[originalID] = nil
        _ = try db.transaction { try db.query("DELETE FROM subscriptions WHERE original_id = ?", [.int(originalID)]) }
    }
}
