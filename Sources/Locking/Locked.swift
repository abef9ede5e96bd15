#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value behind a lock, the project's one lock. Two things set it apart from `Synchronization.Mutex`:
/// its waiters sleep rather than spin (with 64 connection threads on two cores, spinning waiters burned
/// the time the holder needed: one such lock took a fifth of the server's time), and it is a pthread
/// mutex, which ThreadSanitizer sees. TSan does not see `Mutex`'s contended path on Linux, so every
/// contended `Mutex` was reported as a data race (a correct eight-thread counter under `Mutex`: three
/// reports; under a pthread mutex: none), and the suite could not pass under `--sanitize=thread`.
///
/// Unchecked Sendable: `value` is read and written only inside `withLock`, under `mutex`; like
/// `Mutex`, what goes in and comes out is `sending`, so no reference to it stays outside.
public final class Locked<Value>: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var value: Value

    public init(_ value: consuming sending Value) {
        self.value = value
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    public func withLock<Result, E: Error>(_ body: (inout sending Value) throws(E) -> sending Result) throws(E) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
