import CLibPQ
import Foundation
import Synchronization

/// Tells a process that another one committed to a PostgreSQL ledger, through `LISTEN/NOTIFY`
/// rather than polling: a connection of its own listens on the ledger's channel, on a thread of its
/// own, and calls `changed` after each burst of commits, and after reconnecting (commits made while
/// it was not listening would otherwise go unnoticed until the next one). The notices of `own`
/// connection's commits are not news: its store delivered them as it made them.
final class LedgerChangeFeed: Sendable {
    private let stopped = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)

    init(location: PostgresLocation, channel: String, own: PostgresBackend, changed: @escaping @Sendable () -> Void) {
        let thread = Thread { [self] in
            listen(location: location, channel: channel, own: own, changed: changed)
            done.signal()
        }
        thread.name = "storefront-ledger-feed"
        thread.start()
    }

    /// Ends the listening thread and waits for it (at most one poll interval).
    func stop() {
        guard !stopped.exchange(true, ordering: .sequentiallyConsistent) else { return }
        done.wait()
    }

    private var isStopped: Bool { stopped.load(ordering: .sequentiallyConsistent) }

    private func listen(location: PostgresLocation, channel: String, own: PostgresBackend, changed: @Sendable () -> Void) {
        var connection: OpaquePointer?
        defer { if let connection { PQfinish(connection) } }
        while !isStopped {
            guard let listening = connection, PQstatus(listening) == CONNECTION_OK else {
                if let connection { PQfinish(connection) }
                connection = Self.listeningConnection(location, channel)
                if connection != nil { changed() } else { pause(seconds: 0.5) }
                continue
            }
            // A short poll, so `stop` is seen promptly.
            var descriptor = pollfd(fd: PQsocket(listening), events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 100) > 0 else { continue }
            guard PQconsumeInput(listening) == 1 else {
                PQfinish(listening)
                connection = nil
                continue
            }
            var arrived = false
            while let notification = PQnotifies(listening) {
                if notification.pointee.be_pid != own.pid { arrived = true }
                PQfreemem(notification)
            }
            if arrived { changed() }
        }
    }

    private static func listeningConnection(_ location: PostgresLocation, _ channel: String) -> OpaquePointer? {
        guard let connection = try? PostgresDatabase.connect(location) else { return nil }
        let result = PQexec(connection, "LISTEN \"\(channel.replacingOccurrences(of: "\"", with: "\"\""))\"")
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else {
            PQfinish(connection)
            return nil
        }
        return connection
    }

    private func pause(seconds: Double) {
        let end = Date().addingTimeInterval(seconds)
        while !isStopped && Date() < end { Thread.sleep(forTimeInterval: 0.05) }
    }
}
