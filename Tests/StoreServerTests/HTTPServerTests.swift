import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StoreCore
import Locking
import Testing
@testable import StoreServer
import StorefrontTestSupport

/// What a handler saw, sent back as JSON so a test can compare it with what the client sent.
struct Echo: Codable, Equatable {
    var method: String
    var path: String
    var query: [[String]]
    var headers: [String: String]
    var body: String

    init(_ request: HTTPRequest) {
        method = request.method
        path = request.path
        query = request.query.map { [$0.name, $0.value] }
        headers = request.headers
        body = String(decoding: request.body, as: UTF8.self)
    }

    static let handler: HTTPHandler = { request in
        var response = HTTPResponse(status: 200, headers: ["content-type": "application/json", "x-echo": "yes"])
        response.body = try! JSONEncoder().encode(Echo(request))
        return response
    }
}

@Suite struct HTTPServerTests {
    @discardableResult
    static func withServer<T>(limits: HTTPServer.Limits = .default, host: String = "127.0.0.1",
                              handler: @escaping HTTPHandler = Echo.handler,
                              _ body: (HTTPServer) async throws -> T) async throws -> T {
        let server = try HTTPServer.start(host: host, port: 0, limits: limits, handler: handler)
        do {
            let result = try await body(server)
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }

    @Test func urlSessionGetsTheHandlersAnswer() async throws {
        try await Self.withServer { server in
            #expect(server.baseURL == "http://127.0.0.1:\(server.port)")
            var request = URLRequest(url: URL(string: server.baseURL + "/inApps/v1/history/42?revision=abc&productId=a")!)
            request.httpMethod = "POST"
            request.setValue("Bearer token", forHTTPHeaderField: "Authorization")
            request.httpBody = Data(#"{"hello":"world"}"#.utf8)
            let (data, response) = try await URLSession.shared.data(for: request)
            let http = try #require(response as? HTTPURLResponse)
            #expect(http.statusCode == 200)
            #expect(http.value(forHTTPHeaderField: "x-echo") == "yes")
            #expect(http.value(forHTTPHeaderField: "content-type") == "application/json")
            let echo = try JSONDecoder().decode(Echo.self, from: data)
            #expect(echo.method == "POST")
            #expect(echo.path == "/inApps/v1/history/42")
            #expect(echo.query == [["revision", "abc"], ["productId", "a"]])
            #expect(echo.headers["authorization"] == "Bearer token")
            #expect(echo.body == #"{"hello":"world"}"#)
        }
    }

    @Test func queryArgumentsAreDecodedByMHDInOrderWithRepeats() async throws {
        try await Self.withServer { server in
            let answer = try await RawClient.ask("GET /q?productId=a&productId=b%20c&name=x+y&flag&empty=&pct=%26%3D HTTP/1.1\r\nHost: x\r\n\r\n", port: server.port)
            let echo = try JSONDecoder().decode(Echo.self, from: Data(answer.body.utf8))
            #expect(echo.query == [["productId", "a"], ["productId", "b c"], ["name", "x y"], ["flag", ""], ["empty", ""], ["pct", "&="]])
        }
    }

    @Test func thePathIsTheRawTargetSoTheRouterDecodesPerSegment() async throws {
        try await Self.withServer { server in
            let answer = try await RawClient.ask("GET /inApps/v1/transactions/a%2Fb%20c?x=1 HTTP/1.1\r\nHost: x\r\n\r\n", port: server.port)
            let echo = try JSONDecoder().decode(Echo.self, from: Data(answer.body.utf8))
            #expect(echo.path == "/inApps/v1/transactions/a%2Fb%20c")
        }
    }

    @Test func repeatedHeadersAreJoinedAndNamesLowerCased() async throws {
        try await Self.withServer { server in
            let answer = try await RawClient.ask("GET / HTTP/1.1\r\nHost: x\r\nX-Thing: one\r\nx-thing: two\r\n\r\n", port: server.port)
            let echo = try JSONDecoder().decode(Echo.self, from: Data(answer.body.utf8))
            #expect(echo.headers["x-thing"] == "one, two")
        }
    }

    @Test func aDeclaredBodyOverTheLimitGets413AsAppStoreJSONBeforeItIsSent() async throws {
        var limits = HTTPServer.Limits()
        limits.maximumBodyBytes = 100
        let handled = Locked(0)
        try await Self.withServer(limits: limits, handler: { request in
            handled.withLock { $0 += 1 }
            return await Echo.handler(request)
        }) { server in
            let answer = try await RawClient.ask("POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 101\r\n\r\n", port: server.port)
            #expect(answer.statusCode == 413)
            #expect(answer.lowercased().contains("content-type: application/json"))
            let error = try #require(try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any])
            #expect(error["errorCode"] as? Int == 4_000_000)
            #expect((error["errorMessage"] as? String)?.contains("100 bytes") == true)
            // Exactly the limit is fine.
            let fits = try await RawClient.ask("POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n" + String(repeating: "a", count: 100), port: server.port)
            #expect(fits.statusCode == 200)
            #expect(handled.withLock { $0 } == 1)
        }
    }

    @Test func aBodyOfTheWholeDefaultMebibyteIsReadWhole() async throws {
        let body = String(repeating: "0123456789abcdef", count: (1 << 20) / 16)
        try await Self.withServer(handler: { request in .json(200, "\(request.body.count) \(request.body == Data(body.utf8))") }) { server in
            let answer = try await RawClient.ask("POST /big HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body, port: server.port)
            #expect(answer.body == "1048576 true")
        }
    }

    @Test func aChunkedBodyOverTheLimitDropsTheConnectionUnanswered() async throws {
        var limits = HTTPServer.Limits()
        limits.maximumBodyBytes = 100
        try await Self.withServer(limits: limits) { server in
            let answer = try await offPool {
                let client = try RawClient(port: server.port)
                defer { client.close() }
                client.send("POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
                client.send("64\r\n" + String(repeating: "a", count: 100) + "\r\n")
                client.send("1\r\nb\r\n0\r\n\r\n")
                return client.readToEnd()
            }
            #expect(answer.isEmpty)
            // A chunked body within the limit is read whole.
            let fits = try await RawClient.ask("POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n", port: server.port)
            #expect(try JSONDecoder().decode(Echo.self, from: Data(fits.body.utf8)).body == "abcde")
        }
    }

    @Test func headersOverTheMemoryLimitGet431AndNoHandler() async throws {
        try await Self.withServer { server in
            let huge = "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + String(repeating: "a", count: 64 << 10) + "\r\n\r\n"
            let answer = try await offPool {
                let client = try RawClient(port: server.port)
                defer { client.close() }
                client.send(huge)
                return client.readToEnd()
            }
            #expect([413, 431].contains(answer.statusCode ?? 0), "got \(answer.prefix(80))")
        }
    }

    @Test func aPortInUseIsAnErrorNamingHostAndPort() async throws {
        try await Self.withServer { server in
            #expect {
                _ = try HTTPServer.start(port: server.port, handler: Echo.handler)
            } throws: { error in
                "\(error)".contains("127.0.0.1:\(server.port) is already in use")
            }
        }
    }

    @Test func aHostThatIsNotAnAddressIsAnErrorNamingIt() {
        #expect {
            _ = try HTTPServer.start(host: "example.com", port: 0, handler: Echo.handler)
        } throws: { error in
            "\(error)".contains("example.com:0") && "\(error)".contains("not an IP address")
        }
    }

    @Test func limitsThatAreNotPositiveAreAnError() {
        var limits = HTTPServer.Limits()
        limits.maximumConnectionsPerIP = 0
        #expect(throws: HTTPServer.StartError("cannot start the HTTP server on 127.0.0.1:0: maximumConnectionsPerIP must be positive, not 0")) {
            _ = try HTTPServer.start(port: 0, limits: limits, handler: Echo.handler)
        }
    }

    /// Whether one of this process's sockets listens on `port` over IPv4 (`/proc/net/tcp`, by socket inode).
    static func listensOnIPv4(port: UInt16) -> Bool {
        let own = Set(((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)
        })
        let table = (try? String(contentsOfFile: "/proc/net/tcp", encoding: .utf8)) ?? ""
        return table.split(separator: "\n").dropFirst().contains { line in
            let fields = line.split(separator: " ")
            guard fields.count > 9, let local = fields[1].split(separator: ":").last, UInt16(local, radix: 16) == port else { return false }
            return fields[3] == "0A" && own.contains("socket:[\(fields[9])]")  // 0A: LISTEN
        }
    }

    @Test func itServesIPv6LoopbackAndLocalhost() async throws {
        try await Self.withServer(host: "::1") { server in
            let answer = try await offPool {
                let client = try RawClient(port: server.port, ipv6: true)
                defer { client.close() }
                client.send("GET /six HTTP/1.1\r\nHost: x\r\n\r\n")
                return client.readResponse()
            }
            #expect(answer.statusCode == 200)
            // Not on IPv4. Asked of this process's own sockets: a connection to 127.0.0.1 could reach another
            // program that took the same port number there (a CI run's did).
            #expect(!Self.listensOnIPv4(port: server.port))
        }
        try await Self.withServer(host: "localhost") { server in
            let answer = try await RawClient.ask("GET / HTTP/1.1\r\nHost: x\r\n\r\n", port: server.port)
            #expect(answer.statusCode == 200)
        }
    }

    @Test func keepAliveServesSeveralRequestsOnOneConnection() async throws {
        try await Self.withServer { server in
            let answers = try await offPool {
                let client = try RawClient(port: server.port)
                defer { client.close() }
                return (0..<3).map { index in
                    client.send("GET /n/\(index) HTTP/1.1\r\nHost: x\r\n\r\n")
                    return client.readResponse()
                }
            }
            let paths = try answers.map { try JSONDecoder().decode(Echo.self, from: Data($0.body.utf8)).path }
            #expect(paths == ["/n/0", "/n/1", "/n/2"])
        }
    }

    @Test func malformedRequestsNeverStopTheServer() async throws {
        var limits = HTTPServer.Limits()
        limits.connectionTimeout = 1
        try await Self.withServer(limits: limits) { server in
            let abuse: [[UInt8]] = [
                Array("\r\n\r\n".utf8),
                Array("GARBAGE\r\n\r\n".utf8),
                (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919) },
                Array("GET\r\n\r\n".utf8),
                Array("GET / HTTP/9.9\r\n\r\n".utf8),
                Array("G E T / HTTP/1.1\r\nHost: x\r\n\r\n".utf8),
                Array("BREW /pot HTTP/1.1\r\nHost: x\r\n\r\n".utf8),
                Array("GET / HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n".utf8),
                Array("GET / HTTP/1.1\r\nHost: x\r\n: empty-name\r\n\r\n".utf8),
                Array("GET /\0nul HTTP/1.1\r\nHost: x\r\n\r\n".utf8),
                Array("GET /%zz%%%/ HTTP/1.1\r\nHost: x\r\n\r\n".utf8),
                Array("GET /?a=%zz&%00=%00&&&=&== HTTP/1.1\r\nHost: x\r\n\r\n".utf8),
                Array("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999999\r\n\r\n".utf8),
                Array("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n".utf8),
                Array("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nabcde".utf8),
                Array("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n".utf8),
                Array("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFFFFF\r\n".utf8),
                Array("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 50\r\n\r\ntruncated".utf8),
                Array("GET / HTTP/1.1\r\nHost: x\r\nX: \u{00e9}\u{ff}\r\n\r\n".utf8) + [0xFF, 0xFE],
                Array(("GET /" + String(repeating: "a", count: 100_000) + " HTTP/1.1\r\n\r\n").utf8),
                Array(String(repeating: "GET / HTTP/1.1\r\nHost: x\r\n\r\n", count: 50).utf8),
                Array("GET / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n".utf8),
                Array("GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n".utf8),
            ]
            let slow = try await offPool {
                for bytes in abuse {
                    let client = try RawClient(port: server.port, timeout: 5)
                    client.send(bytes)
                    shutdown(client.fd, Int32(SHUT_WR))  // then half-close, as a truncated upload would
                    _ = client.readToEnd()
                    client.close()
                }
                // A client that sends half a request line and goes quiet, and one that connects and leaves.
                let slow = try RawClient(port: server.port)
                slow.send("GET / HT")
                try RawClient(port: server.port).close()
                return slow
            }
            let answer = try await RawClient.ask("GET /still HTTP/1.1\r\nHost: x\r\n\r\n", port: server.port)
            #expect(answer.statusCode == 200)
            let slowAnswer = try await offPool { slow.readToEnd() }
            #expect(slowAnswer.statusCode != 200)
            slow.close()
        }
    }

    @Test func randomlyMutatedRequestsNeverStopTheServer() async throws {
        let valid = Array("POST /inApps/v1/history/42?revision=abc&productId=a%20b HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer e30.e30.AA\r\nContent-Type: application/json\r\nContent-Length: 17\r\n\r\n{\"hello\":\"world\"}".utf8)
        let interesting = Array(" \r\n:%?&=+\0\u{7f}\u{ff}0123456789-".utf8)
        try await Self.withServer { server in
            let statuses = try await offPool {
                var random = SeededRandom(seed: 15)
                var statuses: Set<Int> = []
                for _ in 0..<300 {
                    var bytes = valid
                    for _ in 0..<Int.random(in: 1...6, using: &random) {
                        let at = Int.random(in: 0..<bytes.count, using: &random)
                        switch Int.random(in: 0..<4, using: &random) {
                        case 0: bytes[at] = interesting.randomElement(using: &random)!
                        case 1: bytes.remove(at: at)
                        case 2: bytes.insert(interesting.randomElement(using: &random)!, at: at)
                        default: bytes = Array(bytes[..<at])
                        }
                        if bytes.isEmpty { break }
                    }
                    let client = try RawClient(port: server.port, timeout: 5)
                    client.send(bytes)
                    shutdown(client.fd, Int32(SHUT_WR))
                    statuses.insert(client.readToEnd().statusCode ?? 0)
                    client.close()
                }
                return statuses
            }
            #expect(statuses.contains(200) && statuses.contains(400))  // the mutations reached both sides
            let answer = try await RawClient.ask("GET /still HTTP/1.1\r\nHost: x\r\n\r\n", port: server.port)
            #expect(answer.statusCode == 200)
        }
    }

    @Test func aClientThatNeverSendsIsDropped() async throws {
        var limits = HTTPServer.Limits()
        limits.connectionTimeout = 1
        try await Self.withServer(limits: limits) { server in
            let received = try await offPool {
                let silent = try RawClient(port: server.port, timeout: 30)
                defer { silent.close() }
                var byte: UInt8 = 0
                return recv(silent.fd, &byte, 1, 0)
            }
            // 0: closed by the server, before the client's own 30 s read timeout (-1).
            #expect(received == 0)
        }
    }

    @Test func connectionsOverThePerIPLimitGet429AndTheRestAreServed() async throws {
        var limits = HTTPServer.Limits()
        limits.maximumConnectionsPerIP = 2
        let before = Int64(Date().timeIntervalSince1970 * 1000)
        try await Self.withServer(limits: limits) { server in
            let answers = try await offPool {
                let held = try (0..<2).map { _ in try RawClient(port: server.port) }
                defer { held.forEach { $0.close() } }
                var answers = held.map { client in
                    client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                    return client.readResponse()
                }
                let third = try RawClient(port: server.port, timeout: 5)
                defer { third.close() }
                third.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                answers.append(third.readToEnd())
                held[0].send("GET /again HTTP/1.1\r\nHost: x\r\n\r\n")
                answers.append(held[0].readResponse())
                return answers
            }
            #expect(answers.map(\.statusCode) == [200, 200, 429, 200])
            #expect(answers[2].body.contains(#""errorCode":4290000"#))
            // Apple's 429 says when to try again: retry-after, "a UNIX time, in milliseconds".
            let retryAfter = answers[2].components(separatedBy: "\r\n").first { $0.lowercased().hasPrefix("retry-after:") }
            let at = retryAfter.flatMap { Int64($0.dropFirst("retry-after:".count).trimmingCharacters(in: .whitespaces)) }
            #expect(at.map { $0 >= before + 1000 && $0 < before + 3_600_000 } == true, "\(retryAfter ?? "no retry-after")")
        }
    }

    /// On loopback every client is one address: a backend's pool of 64 connections is served whole by default.
    @Test func sixtyFourLoopbackConnectionsAreServedUnderTheDefaultLimits() async throws {
        try await Self.withServer(limits: .default) { server in
            let statuses = try await offPool {
                let held = try (0..<64).map { _ in try RawClient(port: server.port, timeout: 10) }
                defer { held.forEach { $0.close() } }
                for client in held { client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n") }
                return held.map { $0.readResponse().statusCode }
            }
            #expect(statuses == Array(repeating: 200, count: 64))
        }
    }

    @Test func aHandlerThatTakesTooLongGets500AndIsCancelled() async throws {
        var limits = HTTPServer.Limits()
        limits.handlerTimeout = 0.2
        let finished = AsyncStream<Bool>.makeStream()
        try await Self.withServer(limits: limits, handler: { _ in
            try? await Task.sleep(for: .seconds(600))
            finished.continuation.yield(Task.isCancelled)
            return .json(200, "{}")
        }) { server in
            let answer = try await RawClient.ask("GET / HTTP/1.1\r\nHost: x\r\n\r\n", port: server.port)
            #expect(answer.statusCode == 500)
            #expect(answer.body.contains("5000001"))
            // The handler still finishes (its remaining jobs run elsewhere), cancelled.
            var iterator = finished.stream.makeAsyncIterator()
            #expect(await iterator.next() == true)
        }
    }

    @Test func handlersRunEvenWhileTheCooperativePoolIsBlocked() async throws {
        var limits = HTTPServer.Limits()
        limits.handlerTimeout = 5
        let server = try HTTPServer.start(port: 0, limits: limits) { _ in .json(200, "{}") }
        let answer = try await offPool { () throws -> String in
            // Every cooperative thread (one per core) blocked, as blocking work elsewhere in a process can.
            let width = ProcessInfo.processInfo.activeProcessorCount
            let started = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
            for _ in 0..<width { Task.detached { block(started, until: release) } }
            for _ in 0..<width { started.wait() }
            defer { for _ in 0..<width { release.signal() } }
            return try RawClient.exchange("GET / HTTP/1.1\r\nHost: x\r\n\r\n", port: server.port)
        }
        #expect(answer.statusCode == 200)
        await server.stop()
    }

    @Test func stoppingNeitherWaitsForHandlersNorMindsBeingCalledTwice() async throws {
        let entered = AsyncStream<Void>.makeStream()
        var limits = HTTPServer.Limits()
        limits.handlerTimeout = 3600  // only stopping ends this request, however slowly the test runs
        let server = try HTTPServer.start(port: 0, limits: limits) { _ in
            entered.continuation.yield()
            try? await Task.sleep(for: .seconds(600))
            return .json(200, "{}")
        }
        let client = try RawClient(port: server.port)
        defer { client.close() }
        client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        var iterator = entered.stream.makeAsyncIterator()
        _ = await iterator.next()
        async let first: Void = server.stop()
        async let second: Void = server.stop()
        _ = await (first, second)
        await server.stop()
        // The connection is closed (a 503 may make it out first); the handler never answers it.
        let answer = try await offPool { client.readToEnd() }
        #expect(answer.isEmpty || answer.statusCode == 503, "got \(answer.prefix(40))")
        #expect(throws: (any Error).self) { _ = try RawClient(port: server.port) }
    }

    @Test func invalidStatusAndHeaderInjectionBecomeSafeAnswers() async throws {
        try await Self.withServer(handler: { request in
            request.path == "/bad-status" ? HTTPResponse(status: 42)
                : HTTPResponse(status: 200, headers: ["x-evil": "a\r\nSet-Cookie: b", "content-length": "999"], body: Data("ok".utf8))
        }) { server in
            let bad = try await RawClient.ask("GET /bad-status HTTP/1.1\r\nHost: x\r\n\r\n", port: server.port)
            #expect(bad.statusCode == 500)
            let answer = try await RawClient.ask("GET / HTTP/1.1\r\nHost: x\r\n\r\n", port: server.port)
            #expect(answer.statusCode == 200)
            #expect(!answer.lowercased().contains("set-cookie"))
            #expect(answer.lowercased().contains("content-length: 2\r\n"))
            #expect(answer.body == "ok")
        }
    }
}

/// Occupies the calling thread until `release` is signalled.
private func block(_ started: DispatchSemaphore, until release: DispatchSemaphore) {
    started.signal()
    release.wait()
}
