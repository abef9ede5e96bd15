import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StoreCore
import StoreEngine
import StoreServer

/// How long someone waits for what the store did: the backend for a purchase's notification, another
/// process for a purchase on a shared SQLite ledger. Bounds on the p99, each with what it waits on.
enum LatencyFigures {
    static let percentile = PostgresFigures.percentile

    static let ids = ["device-latency", "notify-latency"]

    static func run(_ sizes: Sizes, wanted: (String) -> Bool) async throws -> [Result] {
        var results: [Result] = []
        if wanted(ids[0]) { results.append(try await device(sizes)) }
        if wanted(ids[1]) { results.append(try await notify(sizes)) }
        return results
    }

    static func ms(_ seconds: Double) -> String { String(format: "%.2g ms", seconds * 1000) }

    // MARK: notify-latency

    /// From the start of a purchase (its commit included) until a loopback receiver has its
    /// notification, one purchase at a time; the floor is a bare POST of the same body (one
    /// URLSession, as the dispatcher keeps) to the same receiver, in the same rounds.
    static func notify(_ sizes: Sizes) async throws -> Result {
        let (arrivals, arrived) = AsyncStream<ContinuousClock.Instant>.makeStream()
        let receiver = try HTTPServer.start(port: 0) { _ in
            arrived.yield(.now)
            return HTTPResponse(status: 200)
        }
        let url = "http://127.0.0.1:\(receiver.port)/notifications"
        var catalog = try Repo.bundledCatalog()
        catalog.settings.notificationURL = url
        let directory = temporaryDirectory("notify")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try LocalAppStore(catalog: catalog, stateDirectory: directory)
        let dispatcher = NotificationDispatcher(store: store)
        await dispatcher.start()
        var next = arrivals.makeAsyncIterator()
        func wait(from start: ContinuousClock.Instant) async throws -> Double {
            guard let at = await next.next() else { throw BenchError("the receiver stopped") }
            return (at - start).seconds
        }
        _ = try await Figures.buyCoins(store)
        _ = try await wait(from: .now)
        guard let body = await store.notifications().last.map({ #"{"signedPayload":"\#($0.signedPayload)"}"# }) else {
            throw BenchError("the purchase left no notification")
        }
        let session = URLSession(configuration: .ephemeral)
        var request = URLRequest(url: URL(string: url)!)
        (request.httpMethod, request.httpBody) = ("POST", Data(body.utf8))
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        var (times, floor) = ([Double](), [Double]())
        for _ in 0..<sizes.deliveries {
            let start = ContinuousClock.now
            _ = try await Figures.buyCoins(store)
            times.append(try await wait(from: start))
            let posted = ContinuousClock.now
            _ = try await session.data(for: request)
            floor.append(try await wait(from: posted))
        }
        await dispatcher.stop()
        await store.shutdown()
        await receiver.stop()
        let (p99, floorP99) = (percentile(times.sorted(), 0.99), percentile(floor.sorted(), 0.99))
        return Result(id: "notify-latency", figure: "purchase to the backend's notification, p99", measured: p99 * 1000,
                      baseline: floorP99 * 1000, unit: "ms", ratio: p99 / floorP99, target: "p99 ≤ 20 ms", pass: p99 <= 0.02,
                      note: "median \(ms(percentile(times.sorted(), 0.5))), \(times.count) purchases, each from its start until a loopback "
                          + "receiver (libmicrohttpd) has its notification; floor: a bare POST of the same \(body.utf8.count) B body to the "
                          + "same receiver through one URLSession (median \(ms(percentile(floor.sorted(), 0.5))))")
    }

    // MARK: device-latency

    /// Another process on one SQLite ledger: two stores on one state directory, each with a
    /// connection of its own (as two processes have), from the start of a purchase on the first until
    /// the second's `updates()` yields it.
    static func device(_ sizes: Sizes) async throws -> Result {
        let catalog = try Repo.bundledCatalog()
        let directory = temporaryDirectory("device")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let times = try await PostgresFigures.deliveryTimes(LocalAppStore(catalog: catalog, stateDirectory: directory),
                                                            LocalAppStore(catalog: catalog, stateDirectory: directory), count: sizes.deliveries)
        let p99 = percentile(times, 0.99)
        return Result(id: "device-latency", figure: "another process's updates(), SQLite ledger, p99", measured: p99 * 1000,
                      baseline: nil, unit: "ms", ratio: nil, target: "p99 ≤ 50 ms", pass: p99 <= 0.05,
                      note: "median \(ms(percentile(times, 0.5))), \(times.count) purchases on one store until a second store on the "
                          + "same ledger file (a connection of its own) yields each from updates(); woken by inotify on the "
                          + "write-ahead log, a 250 ms tick as the fallback (before: the tick alone, median 250 ms)")
    }
}
