import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import StoreClient
import StoreCore
import StoreEngine
import StoreServer
@testable import StorefrontApp
import StorefrontTestSupport

/// `storefront serve`, the real binary, beside another process on the same state directory.
@Suite(.tags(.slow), .notInFastLoop, .enabled(if: FileManager.default.isExecutableFile(atPath: TmuxSession.binary) || ProcessInfo.processInfo.environment["CI"] != nil,
                "needs `swift build` first"))
struct ServeCommandTests {
    final class Server {
        let process = Process()
        let output = Pipe(), errors = Pipe()
        var lines: [String] = []
        var pending = Data()

        init(_ arguments: [String]) throws {
            process.executableURL = URL(fileURLWithPath: TmuxSession.binary)
            process.arguments = ["serve"] + arguments
            process.currentDirectoryURL = Repo.root
            process.standardOutput = output
            process.standardError = errors
            try process.run()
        }

        deinit { if process.isRunning { process.terminate() } }

        /// Reads standard output until a line contains `text` (or the program ends); that line.
        func line(containing text: String) -> String? {
            while true {
                if let line = lines.first(where: { $0.contains(text) }) { return line }
                let data = output.fileHandleForReading.availableData
                if data.isEmpty { return nil }
                pending += data
                while let newline = pending.firstIndex(of: 10) {
                    lines.append(String(decoding: pending[..<newline], as: UTF8.self))
                    pending = pending[(newline + 1)...]
                }
            }
        }
    }

    static func state() throws -> String {
        let path = NSTemporaryDirectory() + "storefront-serve-" + UUID().uuidString
        try StateDirectory.create(path)
        return path
    }

    @Test func serveAnswersForPurchasesAnotherProcessMadeAndStopsCleanlyOnSIGTERM() async throws {
        let directory = try Self.state()
        let server = try Server(["--state", directory, "--port", "0"])
        let banner = try #require(server.line(containing: "Serving the App Store Server API"), "serve did not start")
        let url = try #require(banner.split(separator: " ").last.map(String.init))
        #expect(url.hasPrefix("http://127.0.0.1:"))
        #expect(server.line(containing: "API key: key ID") != nil)

        // Another process's store on the same state: the app side buys, as the storefront would.
        var catalog = try CatalogLoader.load(path: Repo.catalogPath)
        catalog.settings.networkDelay = 0
        let stack = try await StoreStack.open(catalog: catalog, stateDirectory: directory)
        guard case .success(let jws) = try await stack.store.purchase("com.lumenquest.removeads", options: PurchaseOptions(), answer: .confirm) else {
            Issue.record("the purchase did not succeed"); return
        }
        await stack.close()
        let id = try #require(jws.split(separator: ".").dropFirst().first.flatMap { Data(base64URL: String($0)) }
            .flatMap { try? JSONParser.parse($0) }?["transactionId"]?.stringValue)

        let token = try APIKey.load(stateDirectory: directory).token(bundleID: catalog.app.bundleID)
        var request = URLRequest(url: try #require(URL(string: url + "/inApps/v1/transactions/" + id)))
        request.setValue("Bearer " + token, forHTTPHeaderField: "Authorization")
        let (body, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(try JSONParser.parse(body)["signedTransactionInfo"]?.stringValue?.isEmpty == false)
        #expect(server.line(containing: "GET /inApps/v1/transactions/\(id) → 200") != nil, "each request is logged")

        request.setValue("Bearer not-a-token", forHTTPHeaderField: "Authorization")
        let (_, refused) = try await URLSession.shared.data(for: request)
        #expect((refused as? HTTPURLResponse)?.statusCode == 401)
        #expect(server.line(containing: "→ 401 (") != nil, "a refusal is logged with why")

        server.process.terminate()
        #expect(server.line(containing: "Stopped (SIGTERM).") != nil)
        server.process.waitUntilExit()
        #expect(server.process.terminationStatus == 0)
    }

    @Test func aPortInUseIsAClearErrorAndExitStatus2() async throws {
        let busy = try HTTPServer.start(port: 0) { _ in HTTPResponse(status: 204) }
        let server = try Server(["--state", try Self.state(), "--port", String(busy.port)])
        server.process.waitUntilExit()
        let message = String(decoding: server.errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(server.process.terminationStatus == 2)
        #expect(message.contains("127.0.0.1:\(busy.port) is already in use"), "\(message)")
        await busy.stop()
    }

    @Test func serveRefusesAnEphemeralStoreAndOptionsItDoesNotUse() throws {
        for arguments in [["--ephemeral"], ["--json"], ["--port", "70000"]] {
            let server = try Server(arguments)
            server.process.waitUntilExit()
            #expect(server.process.terminationStatus == 2, "\(arguments)")
        }
    }
}

extension Data {
    init?(base64URL text: String) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        self.init(base64Encoded: base64)
    }
}
