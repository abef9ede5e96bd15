import Foundation
import StoreCore

/// Following other processes' writes to the same ledger (a tester moving time in the storefront while
/// `serve` answers a backend, or a second storefront): whether another process committed since the last
/// tick, and the clock and settings it saved, so that there is one store, one clock, one set of switches.
struct LedgerFollower {
    /// What wakes this process when the ledger may have changed, beside the ticks: `LISTEN` on
    /// PostgreSQL, inotify on SQLite's log (nil: the ticks alone find other processes' commits).
    private(set) var wake: (any LedgerWake)?
    /// The ticks that renew what falls due and deliver what others did, while anyone listens.
    private(set) var ticks: Task<Void, Never>?
    /// Set by a feed; with one, a tick reads the shared state and events only when it is.
    private var feedSignalled = true
    /// Without a feed (SQLite), the ledger's version at the last tick: a tick reads the shared state
    /// and events only when another process has committed since.
    private var tickedDataVersion: Int64?
    /// The clock and settings as this process last wrote or read them in the ledger.
    private(set) var sharedClock: String?
    private(set) var sharedSettings: String?

    init(clock: String?, settings: String?) {
        (sharedClock, sharedSettings) = (clock, settings)
    }

    var isFollowing: Bool { ticks != nil }

    mutating func follow(wake: (any LedgerWake)?, ticks: Task<Void, Never>) {
        (self.wake, self.ticks) = (wake, ticks)
    }

    mutating func stop() {
        ticks?.cancel()
        ticks = nil
        wake?.stop()
        wake = nil
    }

    /// The feed said another process committed.
    mutating func feedSaidChanged() { feedSignalled = true }

    /// Whether a wake may bring news: a feed's always does; a watched file's only when the ledger's
    /// data version moved since the last tick (the write may have been this process's own).
    func wakeMayBeNews(dataVersion: @autoclosure () -> Int64?) -> Bool {
        guard let wake, !wake.meansOthersCommitted else { return true }
        return dataVersion() != tickedDataVersion
    }

    /// Whether another process committed since the last tick asked: the feed says, else the ledger's
    /// data version does (yes when it cannot say).
    mutating func othersCommittedSinceLastTick(dataVersion: @autoclosure () -> Int64?) -> Bool {
        defer { feedSignalled = false }
        if let wake, wake.meansOthersCommitted { return feedSignalled }
        guard let version = dataVersion() else { return true }
        defer { tickedDataVersion = version }
        return version != tickedDataVersion
    }

    /// This process saved the clock or the settings (nil settings: back to the catalog's).
    mutating func wrote(clock text: String) { sharedClock = text }
    mutating func wrote(settings text: String?) { sharedSettings = text }

    /// The clock saved in the ledger, when another process moved it since this one last wrote or read it.
    mutating func movedClock(_ text: String?) -> StoreClock? {
        guard let text, text != sharedClock, let clock = try? JSONDecoder().decode(StoreClock.self, from: Data(text.utf8)) else { return nil }
        sharedClock = text
        return clock
    }

    /// Whether the settings saved in the ledger changed since this process last wrote or read them.
    mutating func settingsChanged(_ text: String?) -> Bool {
        guard text != sharedSettings else { return false }
        sharedSettings = text
        return true
    }
}

/// What wakes a store when its ledger may have changed (see `LedgerFollower.wake`).
protocol LedgerWake: AnyObject, Sendable {
    /// Whether a wake means another connection committed; else the store asks the ledger's data version.
    var meansOthersCommitted: Bool { get }
    func stop()
}

extension LedgerChangeFeed: LedgerWake {
    var meansOthersCommitted: Bool { true }
}

#if canImport(Glibc)
extension LedgerFileWatch: LedgerWake {
    var meansOthersCommitted: Bool { false }
}
#endif
