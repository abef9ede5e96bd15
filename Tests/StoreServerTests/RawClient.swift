import Foundation
import StorefrontTestSupport

/// A client that writes exactly the bytes a test gives it, over a plain POSIX socket: what no
/// well-behaved HTTP library would send.
struct RawClient {
    let fd: Int32

    /// Connects to `127.0.0.1:port` (or `::1` when `ipv6`); reads give up after `timeout` seconds.
    init(port: UInt16, ipv6: Bool = false, timeout: Int = 10) throws {
        fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        let connected: Int32
        if ipv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            address.sin6_addr = in6addr_loopback
            connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        guard connected == 0 else { _ = Glibc.close(fd); throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    func close() { _ = Glibc.close(fd) }

    /// Sends everything; false once the server has closed the connection.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    @discardableResult
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Everything until the server closes the connection (or the read timeout passes).
    func readToEnd() -> String {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            received += buffer[..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// One whole response of a kept-alive connection: headers, then Content-Length bytes of body.
    func readResponse() -> String {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let text = String(decoding: received, as: UTF8.self)
            if let end = text.range(of: "\r\n\r\n") {
                let head = text[..<end.lowerBound].lowercased()
                let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                if received.count >= text[..<end.upperBound].utf8.count + length { return text }
            }
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { return text }
            received += buffer[..<count]
        }
    }

    /// One request on a fresh connection; the whole answer.
    static func exchange(_ request: String, port: UInt16) throws -> String {
        let client = try RawClient(port: port)
        defer { client.close() }
        client.send(request)
        return client.readResponse()
    }
}

extension String {
    /// The status code of an HTTP response's first line, or nil when there is none.
    var statusCode: Int? {
        let parts = prefix { $0 != "\r" }.split(separator: " ")
        return parts.count >= 2 && parts[0].hasPrefix("HTTP/") ? Int(parts[1]) : nil
    }

    /// The body of an HTTP response.
    var body: String { range(of: "\r\n\r\n").map { String(self[$0.upperBound...]) } ?? "" }
}

extension RawClient {
    /// One request on a fresh connection, off the pool.
    static func ask(_ request: String, port: UInt16) async throws -> String {
        try await offPool { try exchange(request, port: port) }
    }
}
