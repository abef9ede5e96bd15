import Foundation
import StoreCore
import StoreSigning

/// One catch-up's work beside its single write transaction (a simulated year commits once, not per
/// renewal): the renewals' tokens, signed on another core (see `SigningPipeline`), and the
/// notifications it makes, held in order until they are written (`take`), a few hundred renewals at
/// a time, within the transaction.
final class CatchUpBatch {
    private let pipeline: SigningPipeline
    private var notifications: [Ledger.OutboxRow] = []
    /// Transactions queued for signing since the last `take`.
    private(set) var queued = 0
    /// When the step being processed happened (a renewal's date, a grace period's end): its
    /// notification is made then, as the App Store makes it, not at the end of a jump in time.
    var eventDate: Date?

    /// How many renewals are held before they are written: all of a year held to its end was 90 MB
    /// for a thousand subscribers, and five years five times that.
    static let chunk = 500

    init(signer: JWSSigner) { pipeline = SigningPipeline(signer) }

    /// Queues a new transaction's exact JSON for signing.
    func sign(_ payload: String, for id: Int64) {
        pipeline.submit(payload, for: id)
        queued += 1
    }

    /// Holds a notification; `renewalInfo`, when it has one, is serialized on the signing core
    /// (a simulated year makes twelve thousand).
    func hold(_ row: Ledger.OutboxRow, renewalInfo: (@Sendable () -> String)?) {
        if let renewalInfo { pipeline.render(as: notifications.count, renewalInfo) }
        notifications.append(row)
    }

    /// Waits for the signing core: each transaction queued since the last call with its signature (or
    /// the first error), and the notifications held since, in order, with their renewal info.
    func take() throws -> (signatures: [(id: Int64, signature: String)], notifications: [Ledger.OutboxRow]) {
        let (signatures, renewals) = try pipeline.take()
        let rows = notifications.enumerated().map { slot, row in
            var row = row
            row.renewalPayload = renewals[slot] ?? row.renewalPayload
            return row
        }
        notifications = []
        queued = 0
        return (signatures, rows)
    }
}
