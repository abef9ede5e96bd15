import Foundation
import StoreEngine
import Locking

/// Real time that only moves when a test says so.
public final class ManualTime: RealTimeSource {
    private let current: Locked<Date>
    public init(start: Date = Date(timeIntervalSince1970: 1_780_000_000)) { current = Locked(start) }
    public func now() -> Date { current.withLock { $0 } }
    public func advance(_ seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
}
