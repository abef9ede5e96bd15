import Foundation
import StoreClient
import StoreCore
import StoreEngine
import TerminalUI

/// Everything that can change the state: input, time, and what the store tells us.
enum Event: Sendable {
    /// Keys may be waiting: the loop reads them on the main actor and feeds `.key`s.
    case inputReady
    case key(Key)
    case resize(Size)
    case tick
    /// The store clock, about once a second, when nothing else changed (see `IdleRefresh`).
    case clock(Date)
    case snapshot(StoreSnapshot)
    case appEvent(AppEvent)
    case qaData(TestSettings, [LedgerEntry])
    case notifications([StoreNotification])
    /// An effect's answer, for the status line or a result sheet.
    case finished(CommandOutcome)
    /// An effect that could not be done, and why.
    case failed(String)
    /// An effect's answer and what it changed have been read: keys typed meanwhile may act on them.
    case storeSettled
}

/// What an effect changed in the store: what the run loop reads again, once, after its event.
struct StoreChanges: OptionSet, Sendable {
    let rawValue: Int
    /// The app's side: products, entitlements, history.
    static let snapshot = StoreChanges(rawValue: 1 << 0)
    /// The tester's side: the settings and the QA panel's ledger.
    static let testData = StoreChanges(rawValue: 1 << 1)
    /// App Store Server Notifications (screen 6).
    static let notifications = StoreChanges(rawValue: 1 << 2)
    static let all: StoreChanges = [.snapshot, .testData, .notifications]
}

/// An effect's own event and what it changed (bubbletea's `Cmd → Msg`, gitui's `NeedsUpdate`).
struct Reply: Sendable {
    var event: Event
    var changed: StoreChanges

    init(_ event: Event, changed: StoreChanges = []) {
        self.event = event
        self.changed = changed
    }
}

/// Work for the effect runner: the only way the reducer reaches the store.
enum Effect: Sendable, Equatable {
    /// What the customer or the tester does, carried out by the one `CommandPerformer`.
    case command(StoreCommand)
    /// Saves text the person asked for (a transaction's signed token) in the current directory.
    case writeFile(path: String, contents: String)
    /// Writes the session so far as a scenario (`--record-scenario FILE`).
    case saveScenario
    case quit
}
