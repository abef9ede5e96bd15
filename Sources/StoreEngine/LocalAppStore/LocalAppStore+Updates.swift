import Foundation
import StoreCore

/// `Transaction.updates` and the ticks that renew and deliver while the program runs; the app's reads of transactions.
extension LocalAppStore {
    public func updates() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream<String>.makeStream()
        let id = delivery.add(continuation, redelivering: true)
        continuation.onTermination = { [weak self] _ in Task { await self?.unsubscribe(id) } }
        // StoreKit redelivers every unfinished transaction at launch (those there now; later ones come live, after them).
        let upTo = read(Int64.max) { try highestHandedOutID() ?? Int64.min }
        Task(priority: .background) { redeliver(after: Int64.min, upTo: upTo, to: (id, continuation)) }
        startPolling()
        return stream
    }

    /// Redelivers the unfinished transactions after ID `after` up to `upTo`, a page at a time, each page
    /// a turn of its own on the store, behind the app's calls: after years away there are thousands, and
    /// neither the app's first frame nor its other calls wait for them.
    func redeliver(after: Int64, upTo: Int64, to listener: (id: UUID, stream: AsyncStream<String>.Continuation)) {
        let pageSize = 100
        let page = read([]) { try ledger.unfinishedTokens(after: after, limit: pageSize) }
        for (id, jws) in page where id <= upTo && !jws.isEmpty {
            if case .terminated = listener.stream.yield(present(jws)) { return }
        }
        guard page.count == pageSize, let last = page.last?.id, last < upTo else { return delivery.redelivered(listener.id) }
        Task(priority: .background) { redeliver(after: last, upTo: upTo, to: listener) }
    }

    /// Ticks every `interval` from now on (tests: to see what arrives without them).
    func setTickInterval(_ interval: Duration) { tickInterval = interval }

    func unsubscribe(_ id: UUID) {
        if !delivery.remove(id) { follower.stop() }
    }

    /// Renewals happen while the program runs, and other processes' purchases arrive, without any call from the app.
    /// Other processes' commits wake the store (`LISTEN/NOTIFY` on PostgreSQL, inotify on SQLite's log;
    /// a tick follows each at once); the ticks in between renew what falls due, and find commits no wake told.
    func startPolling() {
        guard !follower.isFollowing else { return }
        let (wake, interval) = (ledger.wake { [weak self] in Task { await self?.ledgerDidChange() } }, tickInterval)
        follower.follow(wake: wake, ticks: Task { [weak self] in
            while (try? await Task.sleep(for: interval)) != nil {
                await self?.tick()
            }
        })
    }

    func ledgerDidChange() {
        guard follower.wakeMayBeNews(dataVersion: try? ledger.db.dataVersion()) else { return }
        ledger.db.othersCommitted()
        follower.feedSaidChanged()
        tick()
    }

    public func tick() {
        guard !isShutDown else { return }
        // This process's own changes were delivered as it made them (see `commit`); only others' are news.
        let changed = follower.othersCommittedSinceLastTick(dataVersion: try? ledger.db.dataVersion())
        if changed {
            adoptSharedState()
            outboxBell.ring()  // another process's commit may have left a notification to send
        }
        catchUp()  // delivers what it renews itself
        if changed { pumpEvents() }
    }

    /// What a reader compares to know whether anything the store would tell it changed since it last
    /// looked: every commit to the ledger, this process's and others', and what is wrong with it.
    /// Time moving on is not in it (see `now()`). nil: the ledger cannot say (a shared one out of reach).
    public func changeVersion() -> ChangeVersion? {
        guard let others = try? ledger.db.dataVersion() else { return nil }
        return ChangeVersion(others: others, own: ledger.db.ownChanges, damage: damage())
    }

    public struct ChangeVersion: Equatable, Sendable {
        let others: Int64
        let own: Int64
        let damage: String?
    }

    /// Delivers the events up to `seq`, one of `kind` this process has just written (see `UpdateDelivery.passOver`).
    func pumpEvents(after seq: Int64?, of kind: Ledger.EventKind) {
        if !delivery.passOver(seq, of: kind) { pumpEvents() }
    }

    /// Delivers ledger events this process hasn't seen: its own updates, and everything another process did.
    func pumpEvents() {
        // With no one to deliver to, the events are passed over unread (a simulated year makes twelve thousand).
        guard delivery.hasListeners else {
            delivery.passOver(upTo: read(delivery.lastSeenEvent) { try ledger.lastEventSeq() })
            return
        }
        let seen = delivery.lastSeenEvent
        let events = read([]) { try ledger.events(after: seen) }
        delivery.deliver(events) { id in (try? ledger.jws(id)).map(present) }
    }

    /// Stops renewing and delivering, and waits for a tick in progress: nothing the store does outlives
    /// its shutdown (a ledger write cut off by the program's exit would be rolled back).
    public func shutdown() async {
        isShutDown = true
        let ticks = follower.ticks
        ticks?.cancel()
        await ticks?.value
        follower.stop()
        ledger.integrityCheck?.stop()
        delivery.finish()
    }

    // MARK: Transaction queries

    public func currentEntitlements() -> [String] {
        catchUp()
        let oneTime = read([], ledger.ownedOneTimeRows).compactMap(\.jws)
        let active = read([]) { try ledger.subscriptions() }.compactMap { $0.state.grantsAccess ? $0.latestTransactionID : nil }
        let tokens = read([:]) { try self.tokens(active) }
        let subscriptions = active.compactMap { tokens[$0] }
        return (oneTime + subscriptions).map(present)
    }

    public func allTransactions(limit: Int?) -> [String] {
        catchUp()
        return ((try? ledger.completedJWS(limit: limit)) ?? []).map(present)
    }

    public func unfinishedTransactions() -> [String] {
        read([], ledger.unfinishedRows).compactMap(\.jws).map(present)
    }

    public func finish(transactionID: Int64) {
        finish(transactionIDs: [transactionID])
    }

    /// One write for all of them: a launch finishing hundreds of redelivered renewals commits once per batch.
    public func finish(transactionIDs: [Int64]) {
        guard !transactionIDs.isEmpty else { return }
        // Described to the app: only the unfinished count changes, which `changes(since:)` carries.
        // Stamped in the same write, as `commit` is: one lock for all the statements, and a commit
        // other processes hear of (their apps' unfinished counts change too).
        let stamps = try? ledger.db.transaction { () throws -> (ChangeStamp, ChangeStamp, Int) in
            let from = try ledger.stamp()
            var counted = 0
            for id in transactionIDs where try ledger.setFinished(id) { counted += 1 }
            return (from, try ledger.stamp(), counted)
        }
        if let (from, to, counted) = stamps { record(from: from, to: to, transaction: nil, unfinishedChange: -counted) }
    }

    public func sync() async throws {
        try await simulateNetwork(.appStoreSync, delay: true)
        catchUp()
    }
}
