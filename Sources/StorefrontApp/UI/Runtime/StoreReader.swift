import Foundation
import StoreClient
import StoreCore
import StoreEngine

/// Reads the store for the run loop: what an effect or a store event says it changed, once, and, on
/// the once-a-second look, everything only when `IdleRefresh` says something changed. It counts its
/// reads, so a test can hold a purchase to one.
@MainActor
final class StoreReader {
    let store: LocalAppStore
    let manager: StoreManager
    /// Reads of the store so far (one per change told, one per idle look that found a change).
    private(set) var reads = 0
    private var idle = IdleRefresh<Seen>()  // reads at the first look: the launch's version is not known

    /// What the idle look compares: the store's version, and how many refreshes the app has made (one
    /// that ends after the read its event caused changed the app's snapshot alone: another storefront on
    /// the state directory credited the shared wallet, and the balance stayed 0 until the next commit).
    struct Seen: Equatable, Sendable {
        var store: LocalAppStore.ChangeVersion
        var refreshes: Int
    }
    private var shownNotifications: [StoreNotification]?

    init(store: LocalAppStore, manager: StoreManager) {
        self.store = store
        self.manager = manager
    }

    /// The events that show what changed; nothing for nothing.
    func read(_ changed: StoreChanges) async -> [Event] {
        guard !changed.isEmpty else { return [] }
        reads += 1
        var events: [Event] = []
        // First: reading notifications signs those not signed yet, a write of the store's own that
        // would otherwise move the version past this read and make the next look read it all again.
        if changed.contains(.notifications) {
            let notifications = await store.recentNotifications(limit: NotificationsScreen.limit)
            if notifications != shownNotifications { shownNotifications = notifications; events.append(.notifications(notifications)) }
        }
        // Taken before the rest: a commit during them moves it again, and the next look reads that.
        let version = changed == .all ? await seen() : nil
        if changed.contains(.snapshot) {
            let snapshot = await manager.snapshot
            if changed == .all { idle.read(at: version, giving: snapshot) }
            events.append(.snapshot(snapshot))
        }
        if changed.contains(.testData) {
            events.append(.qaData(await store.settings(), await store.ledgerEntries(limit: QAPanel.ledgerLimit)))
        }
        return events
    }

    /// The once-a-second look: everything, when the store changed since the last read of it all
    /// (another process, a renewal the store's own ticks wrote); else the clock alone.
    func look() async -> [Event] {
        let (version, now) = (await seen(), await store.now())
        guard idle.isDue(version, now: now) else { return [.clock(now)] }
        await manager.refresh()
        return await read(.all)
    }

    /// nil: the store cannot say (a shared ledger out of reach), and the look reads.
    private func seen() async -> Seen? {
        guard let store = await store.changeVersion() else { return nil }
        return Seen(store: store, refreshes: await manager.refreshes)
    }
}

extension AppEvent {
    /// The answer to a call the app made whose effect already says it on the status line (a
    /// purchase, a restore, a redemption, a refund request): the event stream does not say it again.
    /// A purchase's failure or pending is a sheet there, so its event is still the status line's; and
    /// what arrives on its own (an approval, a renewal, a refund) is not an answer.
    var answersACall: Bool {
        switch self {
        case .purchased, .cancelled, .restored, .redeemed, .refundRequested: true
        case .failed(let api, _): [.appStoreSync, .refundRequest, .manageSubscriptions, .offerCodeRedeem].contains(api)
        case .pending, .transactionArrived, .renewed, .revoked, .purchaseIntent: false
        }
    }

    /// A renewal is told by the store's notification for it (see `StoreEventLog`): once, at its own
    /// time, into the product it renewed to, even when a jump makes a year of them.
    var toldByTheStore: Bool {
        if case .renewed = self { true } else { false }
    }
}
