import Foundation

/// A value behind a lock whose waiters sleep rather than spin: for what every request of every
/// connection touches. `Mutex`'s waiters spin first, and with 64 connection threads on two cores a
/// spinning waiter burns the time the holder needs (one such lock took a fifth of the server's time).
///
/// Unchecked Sendable: `value` is read and written only inside `withLock`, under `lock`.
final class BlockingLock<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
