import Foundation
import StoreCore
import StoreSigning

/// One catch-up's work beside its single write transaction (a simulated year commits once, not per
/// renewal): the renewals' tokens, signed on another core (see `SigningPipeline`), and the
/// notifications it makes, held in order to be written before it commits.
final class CatchUpBatch {
    private let pipeline: SigningPipeline
    private var notifications: [Ledger.OutboxRow] = []
    /// When the step being processed happened (a renewal's date, a grace period's end): its
    /// notification is made then, as the App Store makes it, not at the end of a jump in time.
    var eventDate: Date?

    init(signer: JWSSigner) { pipeline = SigningPipeline(signer) }

    /// Queues a new transaction's exact JSON for signing.
    func sign(_ payload: String, for id: Int64) { pipeline.submit(payload, for: id) }

    /// Holds a notification; `renewalInfo`, when it has one, is serialized on the signing core
    /// (a simulated year makes twelve thousand).
    func hold(_ row: Ledger.OutboxRow, renewalInfo: (@Sendable () -> String)?) {
        if let renewalInfo { pipeline.render(as: notifications.count, renewalInfo) }
        notifications.append(row)
    }

    /// Waits for the signing core: each transaction's signature (or the first error), and the
    /// notifications held, in order, with their renewal info.
    func finish() throws -> (signatures: [(id: Int64, signature: String)], notifications: [Ledger.OutboxRow]) {
        let signatures = try pipeline.finish()
        let renewals = pipeline.renderedTexts()
        let rows = notifications.enumerated().map { slot, row in
            var row = row
            row.renewalPayload = renewals[slot] ?? row.renewalPayload
            return row
        }
        return (signatures, rows)
    }
}
