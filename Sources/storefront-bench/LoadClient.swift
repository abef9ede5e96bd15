import Foundation
import Locking

/// Keep-alive HTTP/1.1 clients, one thread and one blocking socket each, sending one request after
/// another to a loopback port: light enough that the server, not the client, is what is measured.
enum LoadClient {
    struct Tally {
        /// Answers by status.
        var statuses: [Int: Int] = [:]
        /// Connections closed or reset before a request's answer was read whole.
        var dropped = 0
        var answered: Int { statuses.values.reduce(0, +) }
        var ok: Int { statuses[200] ?? 0 }

        mutating func add(_ other: Tally) {
            statuses.merge(other.statuses, uniquingKeysWith: +)
            dropped += other.dropped
        }
    }

    /// `clients` connections at once, each sending `request` until `seconds` have passed (with `once`,
    /// each sends one request and leaves).
    static func run(port: UInt16, request: String, clients: Int, seconds: Double, once: Bool = false) -> Tally {
        let total = Locked(Tally())
        let started = DispatchSemaphore(value: 0), go = DispatchGroup(), done = DispatchGroup()
        go.enter()
        let bytes = Array(request.utf8)
        for _ in 0..<clients {
            done.enter()
            let thread = Thread {
                started.signal()
                go.wait()
                let tally = client(port: port, request: bytes, until: .now + .milliseconds(Int64(seconds * 1000)), once: once)
                total.withLock { $0.add(tally) }
                done.leave()
            }
            thread.stackSize = 256 << 10
            thread.start()
        }
        for _ in 0..<clients { started.wait() }
        go.leave()
        done.wait()
        return total.withLock { $0 }
    }

    /// One client: connects, sends, reads each answer whole (by its Content-Length), again until the
    /// deadline; a connection the server closes is counted dropped unless its last answer said close.
    private static func client(port: UInt16, request: [UInt8], until deadline: ContinuousClock.Instant, once: Bool) -> Tally {
        var tally = Tally()
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while ContinuousClock.now < deadline {
            let socket = connect(port)
            guard socket >= 0 else { tally.dropped += 1; continue }
            defer { close(socket) }
            var open = true
            while open && ContinuousClock.now < deadline {
                guard send(socket, request), let answer = readAnswer(socket, &buffer) else { tally.dropped += 1; break }
                tally.statuses[answer.status, default: 0] += 1
                open = !answer.closes
                if once { return tally }
            }
        }
        return tally
    }

    private static func connect(_ port: UInt16) -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return -1 }
        var yes: Int32 = 1
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if connected != 0 { close(socket); return -1 }
        return socket
    }

    private static func send(_ socket: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { return false }
            sent += n
        }
        return true
    }

    /// The status of one whole answer, and whether it closes the connection; nil when the connection ends first.
    private static func readAnswer(_ socket: Int32, _ buffer: inout [UInt8]) -> (status: Int, closes: Bool)? {
        var count = 0
        var headerEnd: Int?
        while headerEnd == nil {
            guard count < buffer.count else { return nil }
            let n = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress! + count, $0.count - count, 0) }
            guard n > 0 else { return nil }
            count += n
            headerEnd = find([13, 10, 13, 10], in: buffer, upTo: count).map { $0 + 4 }
        }
        let head = String(decoding: buffer[..<headerEnd!], as: UTF8.self).lowercased()
        let lines = head.split(separator: "\r\n")
        guard let statusLine = lines.first, let status = statusLine.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return nil }
        let length = lines.first { $0.hasPrefix("content-length:") }.flatMap { Int($0.dropFirst(15).trimmingCharacters(in: .whitespaces)) } ?? 0
        var remaining = headerEnd! + length - count
        while remaining > 0 {
            let n = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress!, min($0.count, remaining), 0) }
            guard n > 0 else { return nil }
            remaining -= n
        }
        return (status, lines.contains { $0.hasPrefix("connection:") && $0.contains("close") })
    }

    private static func find(_ needle: [UInt8], in buffer: [UInt8], upTo end: Int) -> Int? {
        guard end >= needle.count else { return nil }
        return (0...(end - needle.count)).first { start in needle.indices.allSatisfy { buffer[start + $0] == needle[$0] } }
    }
}
