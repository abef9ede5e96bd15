import Foundation
import StoreCore

/// The store's clock: real time plus explicit jumps ("advance by P1M"). A time rate does not make it
/// run fast (Xcode keeps wall-clock dates and compresses durations: see `TimeRate.duration`); it is
/// kept here so every process on the ledger follows the same rate. Kept as an anchor pair so that
/// after a restart the store catches up on all the time that passed.
struct StoreClock: Codable, Equatable {
    var rate: TimeRate
    var realAnchor: Date
    var storeAnchor: Date

    /// Stops at the last supported date rather than run past it.
    func now(real: Date) -> Date {
        min(storeAnchor.addingTimeInterval(real.timeIntervalSince(realAnchor)), SupportedDates.latest)
    }

    mutating func setRate(_ newRate: TimeRate, real: Date) {
        storeAnchor = now(real: real)
        realAnchor = real
        rate = newRate
    }

    mutating func advance(to date: Date, real: Date) {
        storeAnchor = date
        realAnchor = real
    }
}

extension StoreClock {
    /// The clock as the ledger's `meta` row saves it; nil when the text is not one.
    init?(text: String) {
        guard let clock = try? JSONDecoder().decode(StoreClock.self, from: Data(text.utf8)) else { return nil }
        self = clock
    }
}

/// Where real time comes from; tests pass a manual one.
public protocol RealTimeSource: Sendable {
    func now() -> Date
}

public struct SystemTime: RealTimeSource {
    public init() {}
    public func now() -> Date { Date() }
}

