import Foundation
import StoreCore
import StoreEngine
@_spi(Storefront) import StoreKit
import StoreVerification

/// What `Transaction.updates` brings the app: delivered, finished together, then reported, in order.
extension StoreManager {
    /// How far verification may run ahead of delivery: a launch onto thousands of unfinished
    /// renewals holds at most twice this many at once (a batch being delivered, and this many waiting).
    static let batchLimit = 256

    /// The app dies before `finish()`: nothing more is delivered until it launches again.
    func crash() {
        crashesBeforeFinish = false
        hasCrashed = true
        stopListening()  // not `stop()`: this may run on the listener itself, which must not wait for itself
    }

    /// Returns once the updates in hand (if any) have been delivered, finished and reported.
    public func finishDelivering() async { await delivering?.value }

    /// QA: the next transaction is delivered and then the app dies before `finish()`; relaunching redelivers it.
    public func crashBeforeNextFinish() { crashesBeforeFinish = true }

    func handleUpdate(_ update: VerificationResult<Transaction>) async {
        // Delivered and finished beside the next updates' verification (the store finishes on a core of
        // its own), in order; what arrives meanwhile is finished together.
        undelivered.append(update)
        startDelivering()
        while undelivered.count >= Self.batchLimit, let running = delivering { await running.value }
    }

    func startDelivering() {
        guard isLaunched, delivering == nil, !undelivered.isEmpty else { return }
        delivering = Task {
            while !undelivered.isEmpty {
                let batch = undelivered
                undelivered = []
                await deliver(batch)
            }
            delivering = nil
        }
    }

    /// Delivers a batch, finishes what was delivered, then reports each in order.
    private func deliver(_ batch: [VerificationResult<Transaction>]) async {
        var handled: [Verification<TransactionPayload>] = [], finished: [Transaction] = [], crashes = false
        for update in batch {
            guard !hasCrashed else { break }  // the app died (a purchase's delivery may end it meanwhile)
            let verification = update.verification(\.payload)
            let delivered = await deliver(verification)
            handled.append(verification)
            if delivered, crashesBeforeFinish { crashes = true; break }  // delivered, never finished
            if delivered { finished.append(update.unsafePayloadValue) }
        }
        // Finished at once: StoreKit writes the finishes that arrive together in one go.
        await withTaskGroup(of: Void.self) { group in
            for transaction in finished { group.addTask { await transaction.finish() } }
        }
        // What was delivered is reported before the app dies, in order, as one at a time did.
        for (update, verification) in zip(batch, handled) { report(update.unsafePayloadValue.payload, failed: verification.error) }
        refreshAfterUpdates()
        if crashes { crash() }
    }

    /// What an update tells the app: a renewal, a revocation, an arrival, or a failed verification.
    private func report(_ transaction: TransactionPayload, failed error: VerificationError?) {
        if let error {
            emit(.failed(.verification, .verification(error)))
        } else if transaction.isRevoked {
            emit(.revoked(productID: transaction.productID, refund: refund(transaction)))
        } else if transaction.reason == .renewal {
            emit(.renewed(productID: transaction.productID))
        } else {
            emit(.transactionArrived(productID: transaction.productID, offer: transaction.offerType,
                                     familyShared: transaction.ownership == .familyShared))
        }
    }

    /// A refresh after the updates handled so far: one queued at a time, so a burst of updates (a
    /// launch onto thousands of unfinished renewals, a refresh each was most of its time) is refreshed
    /// for once per refresh it takes, and the last update is always followed by one.
    func refreshAfterUpdates() {
        guard !updatesRefreshQueued else { return }
        updatesRefreshQueued = true
        updatesRefresh = Task {
            await Task.yield()  // the updates already waiting go first
            updatesRefreshQueued = false
            await refresh()
        }
    }

    /// What a refund gave back, in the transaction's currency (nil: Family Sharing was revoked, nothing refunded).
    private func refund(_ t: TransactionPayload) -> String? {
        guard t.revocationType != .familyRevoke else { return nil }
        // revocationPercentage is in thousandths of a percent, as Apple's (100_000: all of it).
        let share = Decimal(t.revocationPercentage ?? 100_000) / 100_000
        let amount = PriceFormatter.displayPrice(t.price * share, currency: t.currency, locale: snapshot.locale)
        return share == 1 ? amount : "\(amount) (prorated)"
    }
}
