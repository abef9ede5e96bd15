import CMicroHTTPD
import Foundation
import StoreCore
import StoreEngine
import StoreServer

/// The App Store Server API under load (`storefront serve`'s server and router): Get Transaction
/// Info from 64 keep-alive clients at once against libmicrohttpd answering a fixed body of the same
/// size with the same settings; and Get Transaction History's first page on a ledger of 1M
/// transactions against one of 1k.
enum ServeFigures {
    static let clients = 64

    static func run(_ sizes: Sizes) async throws -> Result {
        let catalog = try Generate.catalog(oneTime: 90, groups: 2, perGroup: 5)
        let work = temporaryDirectory("serve")
        defer { try? FileManager.default.removeItem(atPath: work) }
        let (small, huge) = (work + "/small", work + "/huge")
        try await Figures.buildLedger(directory: small, catalog: catalog, total: sizes.smallLedger)
        try await Figures.buildLedger(directory: huge, catalog: catalog, total: sizes.hugeLedger)
        let key = try APIKey.generate()
        let token = try key.token(bundleID: catalog.app.bundleID, lifetime: 3000)
        let authenticator = APIAuthenticator(key: key, bundleID: catalog.app.bundleID)
        func api(_ store: LocalAppStore) -> AppStoreServerAPI {
            AppStoreServerAPI(store: store) { authenticator.check($0).map(\.response) }
        }
        let (smallStore, hugeStore) = (try LocalAppStore(catalog: catalog, stateDirectory: small), try LocalAppStore(catalog: catalog, stateDirectory: huge))
        defer { Task { await smallStore.shutdown(); await hugeStore.shutdown() } }

        let throughput = try await transactionInfo(api(smallStore), token: token, seconds: sizes.largeLedger < 100_000 ? 0.3 : 1)
        let pages = try await historyPages(api(smallStore), api(hugeStore), token: token)
        let pageRatio = pages[1].median / pages[0].median
        let pass = throughput.ratio >= 0.5 && throughput.dropped == 0 && throughput.overLimitAnswered && pageRatio <= 1.5
        return Result(id: "serve-throughput", figure: "Server API: Get Transaction Info, \(clients) clients", measured: throughput.ours,
                      baseline: throughput.floor, unit: "/s", ratio: throughput.ratio,
                      target: "≥ 0.50×, none dropped; history page ≤ 1.5×", pass: pass,
                      note: "\(clients) keep-alive clients on loopback, one request at a time each; baseline: libmicrohttpd answering a fixed "
                          + "\(throughput.bodyBytes) B body with the same settings; dropped: \(throughput.dropped); "
                          + "\(throughput.overLimit) more clients: \(throughput.overLimitNote); Get Transaction History's first page "
                          + String(format: "%.3g ms at %dk transactions against %.3g ms at %d (%.2f×)",
                                   pages[1].median * 1000, sizes.hugeLedger / 1000, pages[0].median * 1000, sizes.smallLedger, pageRatio))
            .from([throughput.ourSample, throughput.floorSample] + pages)
    }

    // MARK: Get Transaction Info under load

    struct Throughput {
        var ours: Double, floor: Double, ourSample: Sample, floorSample: Sample, bodyBytes: Int, dropped: Int
        var overLimit: Int, overLimitAnswered: Bool, overLimitNote: String
        var ratio: Double { ours / floor }
    }

    static func transactionInfo(_ api: AppStoreServerAPI, token: String, seconds: Double) async throws -> Throughput {
        guard let id = await api.store.serverHistory().last?.payload.transactionID else { throw BenchError("the ledger has no transaction") }
        let path = "/inApps/v1/transactions/\(id)"
        let answer = await api.respond(to: HTTPRequest(method: "GET", path: path, headers: ["authorization": "Bearer " + token]))
        guard answer.status == 200 else { throw BenchError("Get Transaction Info answered \(answer.status)") }
        let server = try HTTPServer.start(port: 0) { await api.respond(to: $0) }
        let floor = try FixedBodyServer(body: answer.body, limits: .default)
        let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\nAccept: application/json\r\n\r\n"
        var (ours, fixed, dropped) = ([Double](), [Double](), 0)
        for _ in 0..<5 {
            for (port, rates) in [(server.port, 0), (floor.port, 1)] {
                let tally = LoadClient.run(port: port, request: request, clients: clients, seconds: seconds)
                guard tally.ok == tally.answered else { throw BenchError("answers other than 200 under load: \(tally.statuses)") }
                dropped += tally.dropped
                if rates == 0 { ours.append(Double(tally.ok) / seconds) } else { fixed.append(Double(tally.ok) / seconds) }
            }
        }
        // Beyond the limit: the extra clients are answered 429, never dropped.
        let extra = 16
        let held = Task.detached { LoadClient.run(port: server.port, request: request, clients: clients, seconds: 1) }
        try await Task.sleep(for: .milliseconds(200))
        let over = LoadClient.run(port: server.port, request: request, clients: extra, seconds: 0.5, once: true)
        let holding = await held.value
        await server.stop()
        floor.stop()
        let (ourSample, floorSample) = (Sample(times: ours), Sample(times: fixed))
        return Throughput(ours: ourSample.median, floor: floorSample.median, ourSample: ourSample, floorSample: floorSample,
                          bodyBytes: answer.body.count, dropped: dropped + over.dropped + holding.dropped, overLimit: extra,
                          overLimitAnswered: over.answered == extra && over.dropped == 0,
                          overLimitNote: over.statuses.sorted { $0.key < $1.key }.map { "\($0.value) × \($0.key)" }.joined(separator: ", ")
                              + (over.dropped > 0 ? ", \(over.dropped) dropped" : ""))
    }

    // MARK: Get Transaction History

    static func historyPages(_ small: AppStoreServerAPI, _ huge: AppStoreServerAPI, token: String) async throws -> [Sample] {
        var requests: [HTTPRequest] = []
        for api in [small, huge] {
            guard let id = await api.store.serverTransaction(id: 2_000_000_001)?.payload.transactionID else { throw BenchError("no first transaction") }
            requests.append(HTTPRequest(method: "GET", path: "/inApps/v2/history/\(id)", headers: ["authorization": "Bearer " + token]))
            let answer = await api.respond(to: requests.last!)
            guard answer.status == 200 else { throw BenchError("Get Transaction History answered \(answer.status): \(String(decoding: answer.body, as: UTF8.self))") }
        }
        return try await repeatUntilSteady(
            { _ = await small.respond(to: requests[0]) },
            { _ = await huge.respond(to: requests[1]) },
            steadiness: .slow)
    }
}

/// libmicrohttpd alone answering one fixed body, with `HTTPServer`'s flags and limits: the floor of
/// serve-throughput.
final class FixedBodyServer {
    let port: UInt16
    private let daemon: OpaquePointer
    private let response: OpaquePointer

    init(body: Data, limits: HTTPServer.Limits) throws {
        var body = body
        guard let response = body.withUnsafeMutableBytes({
            MHD_create_response_from_buffer($0.count, $0.baseAddress, MHD_ResponseMemoryMode.RESPMEM_MUST_COPY)
        }) else { throw BenchError("MHD_create_response_from_buffer failed") }
        _ = MHD_add_response_header(response, "content-type", "application/json")
        self.response = response
        let (socket, port) = try Self.listen()
        let options: [MHD_OptionItem] = [
            .init(option: MHD_OPTION.LISTEN_SOCKET, value: Int(socket), ptr_value: nil),
            .init(option: MHD_OPTION.CONNECTION_MEMORY_LIMIT, value: limits.maximumHeaderBytes, ptr_value: nil),
            .init(option: MHD_OPTION.CONNECTION_LIMIT, value: 2 * limits.maximumConnections, ptr_value: nil),
            .init(option: MHD_OPTION.PER_IP_CONNECTION_LIMIT, value: 2 * limits.maximumConnectionsPerIP, ptr_value: nil),
            .init(option: MHD_OPTION.CONNECTION_TIMEOUT, value: limits.connectionTimeout, ptr_value: nil),
            .init(option: MHD_OPTION.END, value: 0, ptr_value: nil),
        ]
        let flags = MHD_USE_THREAD_PER_CONNECTION.rawValue | MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_POLL.rawValue
        let daemon = options.withUnsafeBufferPointer { items in
            withVaList([Int32(MHD_OPTION.ARRAY.rawValue), OpaquePointer(items.baseAddress!), Int32(MHD_OPTION.END.rawValue)]) {
                MHD_start_daemon_va(flags, 0, nil, nil, fixedAnswer, UnsafeMutableRawPointer(response), $0)
            }
        }
        guard let daemon else {
            MHD_destroy_response(response)
            throw BenchError("libmicrohttpd did not start")
        }
        self.daemon = daemon
        self.port = port
    }

    /// A listening socket on a free loopback port (as `HTTPServer` hands MHD its own).
    private static func listen() throws -> (Int32, UInt16) {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, size) == 0 && getsockname(socket, $0, &size) == 0 }
        }
        guard socket >= 0, bound, Glibc.listen(socket, 128) == 0 else { throw BenchError("cannot listen on loopback") }
        return (socket, UInt16(bigEndian: address.sin_port))
    }

    func stop() {
        MHD_stop_daemon(daemon)
        MHD_destroy_response(response)
    }
}

/// The first call for a request (its headers) is let through; the last queues the fixed answer.
private let fixedAnswer: MHD_AccessHandlerCallback = { cls, connection, _, _, _, _, _, context in
    guard let cls, let connection, let context else { return .NO }
    if context.pointee == nil {
        context.pointee = cls  // any non-nil marker: the headers are in
        return .YES
    }
    return MHD_queue_response(connection, 200, OpaquePointer(cls))
}
