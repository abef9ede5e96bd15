import Foundation
import Testing
import StorefrontTestSupport
import StoreCore
@testable import StoreServer
@testable import StorefrontApp

/// `storefront serve` against clients that write into its log, tokens with absurd times, and a
/// `--notify` URL with a password or a port out of range.
@Suite(.tags(.slow), .notInFastLoop, .enabled(if: FileManager.default.isExecutableFile(atPath: TmuxSession.binary) || ProcessInfo.processInfo.environment["CI"] != nil,
                "needs `swift build` first"))
struct ServeHostileTests {
    typealias Server = ServeCommandTests.Server

    static func send(_ request: [UInt8], to port: UInt16) throws -> String {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var limit = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        _ = request.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(fd, &buffer, buffer.count, 0)
        return String(decoding: buffer[..<max(0, count)], as: UTF8.self)
    }

    @Test func whatClientsSendIsEscapedInTheLogAndAbsurdTokenTimesAreRefused() throws {
        let directory = try ServeCommandTests.state()
        let server = try Server(["--state", directory, "--port", "0"])
        let banner = try #require(server.line(containing: "Serving the App Store Server API"), "serve did not start")
        let port = try #require(banner.split(separator: ":").last.flatMap { UInt16($0) })
        let key = try APIKey.load(stateDirectory: directory)
        let forged = "GET /inApps/v1/transactions/1 → 200"
        let kid = try APIKey.sign(header: ["alg": "ES256", "kid": "\u{1B}[2J\u{1B}[31m\r\n\(forged)\n"], claims: ["iss": key.issuerID], with: key.privateKey)
        _ = try Self.send(Array("GET /inApps/v1/transactions/1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(kid)\r\n\r\n".utf8), to: port)
        _ = try Self.send(Array("GET /x\u{1B}[2J\u{1B}]0;owned\u{07}\u{9B}31m HTTP/1.1\r\nHost: x\r\n\r\n".utf8), to: port)
        for (name, value) in [("iat", 9.3e18), ("exp", -9.3e18), ("iat", 1e300)] {
            let now = Date().timeIntervalSince1970
            var claims: [String: Any] = ["iss": key.issuerID, "aud": "appstoreconnect-v1", "bid": "com.lumenquest.app", "iat": now, "exp": now + 300]
            claims[name] = value
            let token = try APIKey.sign(header: ["alg": "ES256", "kid": key.keyID, "typ": "JWT"], claims: claims, with: key.privateKey)
            let answer = try Self.send(Array("GET /inApps/v1/transactions/1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n\r\n".utf8), to: port)
            #expect(answer.hasPrefix("HTTP/1.1 401"), "\(name) \(value): \(answer.prefix(60))")
        }
        #expect(server.line(containing: "iat is 1e+300 s in the future") != nil, "the last token's refusal is logged")
        #expect(server.process.isRunning)
        server.process.terminate()
        _ = server.line(containing: "Stopped (SIGTERM).")
        let log = server.lines.joined(separator: "\n")
        #expect(!log.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) }, "\(log)")
        #expect(!server.lines.contains(forged), "a client forged a log line")
        #expect(log.contains(#"\u{1B}[2J"#))
    }

    @Test func aPasswordInTheNotifyURLIsNotShownAndAPortOutOfRangeIsRefused() throws {
        let server = try Server(["--state", try ServeCommandTests.state(), "--port", "0", "--notify", "http://hooks:s3cret@127.0.0.1:9/n"])
        let notify = try #require(server.line(containing: "notify:"))
        #expect(notify.contains("http://hooks:***@127.0.0.1:9/n") && !notify.contains("s3cret"), "\(notify)")
        server.process.terminate()
        server.process.waitUntilExit()

        let refused = try Server(["--state", try ServeCommandTests.state(), "--port", "0", "--notify", "http://u:s3cret@127.0.0.1:99999/n"])
        refused.process.waitUntilExit()
        let message = String(decoding: refused.errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(refused.process.terminationStatus == 2)
        #expect(message.contains("--notify") && message.contains("port 99999 is out of range") && !message.contains("s3cret"), "\(message)")
    }
}
