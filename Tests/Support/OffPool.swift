import Foundation

/// Runs blocking work (a socket read, a child process) on a thread of its own. On the cooperative
/// pool (as many threads as cores) a blocked read could starve the very task whose answer it waits for.
public func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { done in
        Thread { done.resume(with: Result { try body() }) }.start()
    }
}
