import Foundation

/// The listening socket, bound here rather than by libmicrohttpd so a failure says why
/// (`127.0.0.1:8080 is already in use`), not just that the daemon did not start.
struct ListenSocket {
    let descriptor: Int32
    let port: UInt16
    let isIPv6: Bool
    /// Bound to the unspecified address (`0.0.0.0`, `::`, `0`): every interface of the machine.
    let isEveryInterface: Bool

    /// Binds `host` (an IPv4 or IPv6 address, or `localhost`: 127.0.0.1) and listens.
    static func open(host: String, port: UInt16) throws(HTTPServer.StartError) -> ListenSocket {
        var address = try resolve(host, port)
        let family = Int32(address.ss_family)
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .init("cannot open a socket for \(endpoint(host, port)): \(String(cString: strerror(errno)))") }
        var on: Int32 = 1
        // Rebinding a port whose old connections linger in TIME_WAIT is fine; a live listener still refuses.
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        if family == AF_INET6 { setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &on, socklen_t(MemoryLayout<Int32>.size)) }
        let length = socklen_t(family == AF_INET6 ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0, listen(fd, 128) == 0 else {
            let code = errno
            close(fd)
            throw .init(bindFailure(code, host, port))
        }
        var actual = sockaddr_storage()
        var actualLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &actualLength) }
        }
        return ListenSocket(descriptor: fd, port: Self.port(of: actual), isIPv6: family == AF_INET6, isEveryInterface: Self.isUnspecified(actual))
    }

    static func endpoint(_ host: String, _ port: UInt16) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    private static func bindFailure(_ code: Int32, _ host: String, _ port: UInt16) -> String {
        let endpoint = endpoint(host, port)
        return switch code {
        case EADDRINUSE: "\(endpoint) is already in use (another server, or another storefront serve?): choose another --port, or --port 0 for any free one"
        case EACCES: "\(endpoint): binding this port needs privileges: choose a port above 1023"
        case EADDRNOTAVAIL: "\(endpoint): \(host) is not an address of this machine: use 127.0.0.1, ::1 or localhost"
        default: "cannot listen on \(endpoint): \(String(cString: strerror(code)))"
        }
    }

    private static func resolve(_ host: String, _ port: UInt16) throws(HTTPServer.StartError) -> sockaddr_storage {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        // Numeric only: a server for local tests has no business waiting on DNS.
        hints.ai_flags = AI_NUMERICSERV | AI_NUMERICHOST
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host == "localhost" ? "127.0.0.1" : host, String(port), &hints, &list)
        guard status == 0, let list else {
            throw .init("cannot listen on \(endpoint(host, port)): \(host) is not an IP address: use 127.0.0.1, ::1 or localhost")
        }
        defer { freeaddrinfo(list) }
        let family = list.pointee.ai_family
        guard family == AF_INET || family == AF_INET6, let address = list.pointee.ai_addr else {
            throw .init("cannot listen on \(endpoint(host, port)): \(host) is not an IPv4 or IPv6 address")
        }
        var storage = sockaddr_storage()
        withUnsafeMutableBytes(of: &storage) { target in
            target.copyMemory(from: UnsafeRawBufferPointer(start: address, count: Int(list.pointee.ai_addrlen)))
        }
        return storage
    }

    private static func isUnspecified(_ address: sockaddr_storage) -> Bool {
        let isIPv6 = address.ss_family == AF_INET6
        return withUnsafeBytes(of: address) { bytes in
            if isIPv6 {
                let offset = MemoryLayout<sockaddr_in6>.offset(of: \.sin6_addr)!
                return bytes[offset..<offset + 16].allSatisfy { $0 == 0 }
            }
            let offset = MemoryLayout<sockaddr_in>.offset(of: \.sin_addr)!
            return bytes[offset..<offset + 4].allSatisfy { $0 == 0 }
        }
    }

    private static func port(of address: sockaddr_storage) -> UInt16 {
        var address = address
        return withUnsafeBytes(of: &address) { bytes in
            // sin_port and sin6_port sit at the same offset, in network byte order.
            UInt16(bigEndian: bytes.load(fromByteOffset: MemoryLayout<sockaddr_in>.offset(of: \.sin_port)!, as: UInt16.self))
        }
    }
}
