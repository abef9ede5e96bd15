import Foundation
import Testing
import StorefrontTestSupport
@testable import StoreServer

/// Clients that misbehave on purpose: trickling requests (slowloris), too many connections, too many
/// arguments. Every one gets an answer or a closed connection in bounded time; the rest are served.
@Suite(.tags(.slow), .notInFastLoop) struct HostileClientTests {
    /// True once the server has closed its side (or reset it); data it sends first is read and dropped.
    static func serverHasHungUp(_ client: RawClient) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(client.fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        return count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
    }

    @Test func tricklingClientsAreCutOffAtTheRequestDeadlineAndOthersGet429MeanwhileThenAreServed() async throws {
        var limits = HTTPServer.Limits()
        limits.maximumConnectionsPerIP = 4
        limits.requestTimeout = 2
        try await HTTPServerTests.withServer(limits: limits) { server in
            let (meanwhile, stillOpen, cutOffAfter, after) = try await offPool {
                let tricklers = try (0..<4).map { _ in try RawClient(port: server.port, timeout: 2) }
                defer { tricklers.forEach { $0.close() } }
                // Three trickle headers, one a declared body: each byte well inside MHD's silence timeout.
                for (i, client) in tricklers.enumerated() {
                    client.send(i == 3 ? "POST /slow HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n" : "GET /slow HTTP/1.1\r\nHost: x\r\n")
                }
                Thread.sleep(forTimeInterval: 0.3)
                let meanwhile = try RawClient.exchange("GET /meanwhile HTTP/1.1\r\nHost: x\r\n\r\n", port: server.port)
                let began = Date()
                var open = Set(tricklers.indices)
                // Bounded: a line every 0.25 s for at most 8 s, loopback only.
                for line in 0..<32 where !open.isEmpty {
                    Thread.sleep(forTimeInterval: 0.25)
                    for i in open where Self.serverHasHungUp(tricklers[i]) || !tricklers[i].send(i == 3 ? "a" : "X-Drip-\(line): y\r\n") {
                        open.remove(i)
                    }
                }
                let after = try RawClient.exchange("GET /after HTTP/1.1\r\nHost: x\r\n\r\n", port: server.port)
                return (meanwhile, open.count, Date().timeIntervalSince(began), after)
            }
            #expect(meanwhile.statusCode == 429, "\(meanwhile)")
            #expect(meanwhile.body.contains(#""errorCode":4290000"#) && meanwhile.body.contains("errorMessage"))
            #expect(stillOpen == 0, "trickling connections outlived the request deadline")
            #expect(cutOffAfter < 6, "cut off after \(cutOffAfter) s, with a 2 s deadline")
            #expect(after.statusCode == 200)
        }
    }

    @Test func connectionsOverTheTotalLimitGet429() async throws {
        var limits = HTTPServer.Limits()
        limits.maximumConnections = 3
        try await HTTPServerTests.withServer(limits: limits) { server in
            let answers = try await offPool {
                let held = try (0..<3).map { _ in try RawClient(port: server.port) }
                defer { held.forEach { $0.close() } }
                Thread.sleep(forTimeInterval: 0.2)
                return [try RawClient.exchange("GET / HTTP/1.1\r\nHost: x\r\n\r\n", port: server.port),
                        try RawClient.exchange("GET / HTTP/1.1\r\nHost: x\r\n\r\n", port: server.port)]
            }
            #expect(answers.map(\.statusCode) == [429, 429])
        }
    }

    @Test(arguments: [100, 500, 2000, 5000])
    func manyQueryArgumentsAreAnswered(count: Int) async throws {
        try await HTTPServerTests.withServer { server in
            let query = (0..<count).map { "a\($0)=\($0)" }.joined(separator: "&")
            let answer = try await RawClient.ask("GET /inApps/v2/history/1?\(query) HTTP/1.1\r\nHost: x\r\n\r\n", port: server.port)
            #expect(answer.statusCode != nil, "\(count) arguments: no answer")
            let fitsMemory = query.utf8.count < HTTPServer.Limits.default.maximumHeaderBytes - 1024
            if count <= HTTPServer.Limits.default.maximumQueryArguments {
                #expect(answer.statusCode == 200)
            } else if fitsMemory {
                #expect(answer.statusCode == 400 && answer.body.contains(#""errorCode":4000000"#), "\(count) arguments: \(answer)")
            } else if count > HTTPServer.Limits.default.maximumQueryArguments {
                #expect([414, 431].contains(answer.statusCode ?? 0), "a request line over the header memory: MHD's own answer")
            }
        }
    }

    @Test func listeningOnEveryInterfaceIsKnownSoServeCanSaySo() async throws {
        for (host, every) in [("0.0.0.0", true), ("0", true), ("::", true), ("127.0.0.1", false), ("::1", false)] {
            let server = try HTTPServer.start(host: host, port: 0) { _ in HTTPResponse(status: 404) }
            #expect(server.isEveryInterface == every, "\(host)")
            await server.stop()
        }
    }

    @Test func logTextEscapesEverythingThatCouldMoveTheCursorOrStartALine() {
        let hostile = "/x\u{1B}[2J\u{1B}]0;owned\u{07}\r\nGET /inApps/v1/transactions/1 → 200\u{9B}31m\u{202E}\u{2028}"
        let escaped = LogText.escaped(hostile)
        #expect(!escaped.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0 == "\u{202E}" || $0 == "\u{2028}" })
        #expect(escaped.hasPrefix(#"/x\u{1B}[2J"#))
        #expect(LogText.escaped("/inApps/v1/transactions/42 é 商") == "/inApps/v1/transactions/42 é 商")
        #expect(LogText.escaped(String(repeating: "a", count: 1000)).count == 301)
    }
}
