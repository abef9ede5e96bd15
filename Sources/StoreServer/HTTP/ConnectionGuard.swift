import CMicroHTTPD
import Dispatch
import Foundation
import Synchronization

/// What libmicrohttpd does not bound: how long a request may take to arrive whole, and how a client
/// over the connection limits is told so. MHD's own timeout counts only silence, so a client that
/// trickles a header line every few seconds held its connection for ever, and 32 of them locked
/// every other loopback client out; MHD's own limits close the connection unanswered.
///
/// Each connection is watched from accept to close (MHD's connection notifications). One that has
/// been receiving its request for longer than `requestTimeout` is shut down (`shutdown(2)`, so MHD
/// closes it as if the client had left); one opened beyond `maximumConnectionsPerIP` or
/// `maximumConnections` is answered 429 as soon as its headers are in.
final class ConnectionGuard: Sendable {
    private struct Watched {
        let descriptor: Int32
        let client: [UInt8]
        let isOverLimit: Bool
        /// Since when its request (the first, or the next on a kept-alive connection) has been arriving;
        /// nil while the handler answers it.
        var receivingSince: ContinuousClock.Instant?
    }

    private let limits: HTTPServer.Limits
    private let watched = Mutex<[Int: Watched]>([:])
    /// Signalled to stop the watch, a thread that looks every quarter of the deadline (at most a second).
    private let stopping = DispatchSemaphore(value: 0)

    init(limits: HTTPServer.Limits) {
        self.limits = limits
        let interval = min(1, limits.requestTimeout / 4)
        Thread { [weak self, stopping] in
            while stopping.wait(timeout: .now() + interval) == .timedOut { self?.shutDownLateRequests() }
        }.start()
    }

    func stop() { stopping.signal() }

    /// How many connections MHD itself admits: the limits' own, and as many again to be answered 429
    /// (beyond that MHD closes them on accept: each is a thread).
    static func hardLimits(_ limits: HTTPServer.Limits) -> (total: Int, perIP: Int) {
        (2 * limits.maximumConnections, 2 * limits.maximumConnectionsPerIP)
    }

    func opened(_ connection: OpaquePointer) {
        let descriptor = shim_connection_fd(connection), client = Self.address(connection)
        watched.withLock { watched in
            let sameClient = watched.values.count { $0.client == client }
            let isOverLimit = sameClient >= limits.maximumConnectionsPerIP || watched.count >= limits.maximumConnections
            watched[Self.key(connection)] = Watched(descriptor: descriptor, client: client, isOverLimit: isOverLimit,
                                                    receivingSince: .now)
        }
    }

    func closed(_ connection: OpaquePointer) {
        _ = watched.withLock { $0.removeValue(forKey: Self.key(connection)) }
    }

    func isOverLimit(_ connection: OpaquePointer) -> Bool {
        watched.withLock { $0[Self.key(connection)]?.isOverLimit ?? false }
    }

    /// The request is in whole; its time to arrive stops counting.
    func received(_ connection: OpaquePointer) {
        watched.withLock { $0[Self.key(connection)]?.receivingSince = nil }
    }

    /// The answer is sent; the next request on the connection starts counting.
    func answered(_ connection: OpaquePointer) {
        watched.withLock { $0[Self.key(connection)]?.receivingSince = .now }
    }

    private func shutDownLateRequests() {
        let deadline = ContinuousClock.now - .milliseconds(Int64(limits.requestTimeout * 1000))
        // Under the lock: MHD reports a connection closed before it closes its descriptor, so every
        // descriptor here is still that connection's, never a number reused by another file.
        watched.withLock { watched in
            for (key, connection) in watched {
                guard let since = connection.receivingSince, since < deadline else { continue }
                shutdown(connection.descriptor, Int32(SHUT_RDWR))
                watched[key]?.receivingSince = nil
            }
        }
    }

    private static func key(_ connection: OpaquePointer) -> Int { Int(bitPattern: UnsafeRawPointer(connection)) }

    /// The client's IP address as bytes (its port left out: every connection of one host is one client).
    private static func address(_ connection: OpaquePointer) -> [UInt8] {
        guard let address = shim_connection_address(connection) else { return [] }
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { withUnsafeBytes(of: $0.pointee.sin_addr) { Array($0) } }
        case AF_INET6:
            return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { withUnsafeBytes(of: $0.pointee.sin6_addr) { Array($0) } }
        default:
            return []
        }
    }
}
