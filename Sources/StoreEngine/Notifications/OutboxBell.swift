import Locking
import Synchronization

/// Rung when a notification may have become due: this store wrote one to the outbox (or queued one
/// again), or another process committed to the ledger. A sender waits on it rather than polling, so
/// a notification leaves as soon as its event is committed. Rung inside the write, before the commit:
/// a sender that wakes asks the store, whose actor finishes the commit first.
public final class OutboxBell: Sendable {
    private let listeners = Locked<[Int: AsyncStream<Void>.Continuation]>([:])
    private let nextID = Atomic<Int>(0)

    public init() {}

    /// Wakes every listener; wakes that come while a listener is busy fold into one.
    public func ring() {
        listeners.withLock { for continuation in $0.values { continuation.yield() } }
    }

    /// A stream of wake-ups (at most one waiting), ended by `onTermination` of the stream.
    public func wakes() -> (stream: AsyncStream<Void>, continuation: AsyncStream<Void>.Continuation) {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = nextID.add(1, ordering: .relaxed).newValue
        listeners.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in _ = self?.listeners.withLock { $0.removeValue(forKey: id) } }
        return (stream, continuation)
    }
}
