import CMicroHTTPD
import Dispatch
import Foundation
import Locking
import Synchronization

/// What libmicrohttpd does not bound: how long a request may take to arrive whole, and how a client
/// over the connection limits is told so. MHD's own timeout counts only silence, so a client that
/// trickles a header line every few seconds held its connection for ever, and 32 of them locked
/// every other loopback client out; MHD's own limits close the connection unanswered.
///
/// Each connection is watched from accept to close (MHD's connection notifications), through a
/// `WatchedConnection` kept in MHD's socket context, so a request touches no lock shared with other
/// connections (one shared lock taken three times a request held 64 clients to a tenth of MHD's own
/// rate: its waiters spun on two cores). One that has
/// been receiving its request for longer than `requestTimeout` is shut down (`shutdown(2)`, so MHD
/// closes it as if the client had left); one opened beyond `maximumConnectionsPerIP` or
/// `maximumConnections` is answered 429 as soon as its headers are in.
final class ConnectionGuard: Sendable {
    private let limits: HTTPServer.Limits
    /// Every open connection, by its `WatchedConnection`'s identity: taken on open, close and the watch's look.
    private let watched = Locked<[ObjectIdentifier: WatchedConnection]>([:])
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

    /// A new connection: what it is kept as, for MHD's socket context (retained until `closed`).
    func opened(_ connection: OpaquePointer) -> UnsafeMutableRawPointer {
        let client = Self.address(connection)
        let entry = watched.withLock { watched in
            // One the watch has shut down is gone for its client, though MHD closes it a moment later.
            let open = watched.values.lazy.filter { !$0.isCutOff.load(ordering: .relaxed) }
            let sameClient = open.count { $0.client == client }
            let isOverLimit = sameClient >= limits.maximumConnectionsPerIP || open.count >= limits.maximumConnections
            let entry = WatchedConnection(descriptor: shim_connection_fd(connection), client: client, isOverLimit: isOverLimit)
            watched[ObjectIdentifier(entry)] = entry
            return entry
        }
        return Unmanaged.passRetained(entry).toOpaque()
    }

    func closed(_ context: UnsafeMutableRawPointer) {
        let entry = Unmanaged<WatchedConnection>.fromOpaque(context).takeRetainedValue()
        _ = watched.withLock { $0.removeValue(forKey: ObjectIdentifier(entry)) }
    }

    /// The connection's entry, while MHD holds it open (nil for a connection opened before the guard saw it).
    static func entry(_ connection: OpaquePointer) -> WatchedConnection? {
        shim_connection_context(connection).map { Unmanaged<WatchedConnection>.fromOpaque($0).takeUnretainedValue() }
    }

    private func shutDownLateRequests() {
        let deadline = DispatchTime.now().uptimeNanoseconds &- UInt64(limits.requestTimeout * 1e9)
        // Under the lock: MHD reports a connection closed before it closes its descriptor, so every
        // descriptor here is still that connection's, never a number reused by another file.
        watched.withLock { watched in
            for connection in watched.values {
                let since = connection.receivingSince.load(ordering: .relaxed)
                guard since != 0, since < deadline,
                      connection.receivingSince.compareExchange(expected: since, desired: 0, ordering: .relaxed).exchanged else { continue }
                connection.isCutOff.store(true, ordering: .relaxed)  // before its client can see it closed
                shutdown(connection.descriptor, Int32(SHUT_RDWR))
            }
        }
    }

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

/// One connection as the guard watches it.
final class WatchedConnection: Sendable {
    let descriptor: Int32
    let client: [UInt8]
    /// Opened beyond a limit: its requests are answered 429.
    let isOverLimit: Bool
    /// Since when (`DispatchTime` nanoseconds) its request (the first, or the next on a kept-alive
    /// connection) has been arriving; 0 while the handler answers it.
    let receivingSince: Atomic<UInt64>
    /// Shut down by the watch (its request took too long); it no longer counts toward the limits.
    let isCutOff = Atomic<Bool>(false)

    init(descriptor: Int32, client: [UInt8], isOverLimit: Bool) {
        (self.descriptor, self.client, self.isOverLimit) = (descriptor, client, isOverLimit)
        receivingSince = Atomic(DispatchTime.now().uptimeNanoseconds)
    }

    /// The request is in whole; its time to arrive stops counting.
    func received() { receivingSince.store(0, ordering: .relaxed) }

    /// The answer is sent; the next request on the connection starts counting.
    func answered() { receivingSince.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed) }
}
