import Foundation
import Testing
import StoreCore
import StoreEngine
@testable import StorefrontApp
import StorefrontTestSupport

/// `--notify` and `storefront notifications`, through the commands themselves.
@Suite("storefront run --notify and storefront notifications", .tags(.slow), .notInFastLoop, .serialized)
struct NotifyCommandTests {
    /// The loopback backend of the delivery tests (Tests/AppleLibrary/notification_receiver.py): the URL and the log of what it received.
    func startReceiver() throws -> (process: Process, url: String, log: String) {
        let log = NSTemporaryDirectory() + "notify-received-" + UUID().uuidString
        let process = Process(), output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", ScenarioPaths.tests.deletingLastPathComponent().appendingPathComponent("Tests/AppleLibrary/notification_receiver.py").path, log]
        process.standardOutput = output
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            line += chunk
        }
        let port = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return (process, "http://127.0.0.1:\(port)/notify", log)
    }

    @Test("storefront run --notify sends the scenario's notifications before it ends, and storefront notifications lists them")
    func runSendsAndTheCommandLists() async throws {
        let receiver = try startReceiver()
        defer { kill(receiver.process.processIdentifier, SIGKILL); try? FileManager.default.removeItem(atPath: receiver.log) }
        let dir = NSTemporaryDirectory() + "notify-run-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let scenario = dir + "/n.scenario"
        try "catalog \(ScenarioPaths.catalog)\nbuy com.lumenquest.plus.monthly\nauto-renew com.lumenquest.plus.monthly off\nbuy com.lumenquest.coins.100\n"
            .write(toFile: scenario, atomically: true, encoding: .utf8)
        var options = CommandLineOptions()
        options.command = .run
        options.files = [scenario]
        options.statePath = dir + "/state"
        options.notifyURL = receiver.url
        #expect(try await RunCommand.run(options, output: { _ in }) == 0)
        let received = (try? String(contentsOfFile: receiver.log, encoding: .utf8))?.split(separator: "\n") ?? []
        #expect(received.count == 3)

        var catalog = try CatalogLoader.load(path: ScenarioPaths.catalog)
        catalog.settings.networkDelay = 0
        let store = try LocalAppStore(catalog: catalog, stateDirectory: dir + "/state")
        let listed = await store.notifications()
        await store.shutdown()
        let table = NotificationsCommand.table(listed) { $0 ?? "" }
        #expect(table.contains("SUBSCRIBED") && table.contains("AUTO_RENEW_DISABLED") && table.contains("ONE_TIME_CHARGE"))
        #expect(listed.allSatisfy { $0.delivery == .delivered && $0.lastResult == "SUCCESS" })
        let json = NotificationsCommand.json(listed) { $0 ?? "" }
        #expect(json.arrayValue?.first?["notificationType"]?.stringValue == "SUBSCRIBED")
        #expect(json.arrayValue?.first?["attempts"]?.arrayValue?.first?["sendAttemptResult"]?.stringValue == "SUCCESS")
    }
}
