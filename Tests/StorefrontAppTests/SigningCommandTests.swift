import Foundation
import Testing
import StoreEngine
import StoreSigning
import StoreCore
@testable import StorefrontApp
import StorefrontTestSupport

@Suite("export, verify and state options on the command line")
struct SigningCommandTests {
    let catalog = Repo.catalogPath

    func state() -> String { NSTemporaryDirectory() + "storefront-cli-" + UUID().uuidString }

    @Test("--environment takes Apple's four names; anything else, or an empty --state, is a usage error")
    func options() throws {
        guard case .run(let options) = try CommandLineParser.parse(["export", "--environment", "Production", "--json"]) else { Issue.record("not run"); return }
        #expect(options.command == .export && options.environment == .production && options.json)
        #expect(throws: UsageError(description: "unknown environment 'Staging' (use one of: Sandbox, Production, Xcode, LocalTesting)")) {
            try CommandLineParser.parse(["--environment", "Staging"])
        }
        #expect(throws: UsageError(description: "--state needs a directory path, got an empty string")) { try CommandLineParser.parse(["cert", "--state", ""]) }
    }

    @Test("a --state that is a file, or one others can write to, exits 2 naming the path")
    func badState() async throws {
        let file = state()
        FileManager.default.createFile(atPath: file, contents: Data("x".utf8))
        #expect(await StorefrontProgram.main(["cert", "--state", file]) == 2)
        #expect(await StorefrontProgram.main(["export", "--catalog", catalog, "--state", file]) == 2)
        let shared = state()
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
        chmod(shared, 0o777)
        #expect(await StorefrontProgram.main(["cert", "--state", shared]) == 2)
    }

    @Test("iap-key registers the team's In-App Purchase key in the state, refuses what is not one, and lists the keys")
    func inAppPurchaseKey() async throws {
        let directory = state()
        let p8 = directory + ".p8"
        try SigningKey.generate().pemRepresentation.write(toFile: p8, atomically: true, encoding: .utf8)
        #expect(await StorefrontProgram.main(["iap-key", "TEAMKEY001", p8, "--issuer", "57246542-96fe-1a63-e053-0824d011072a",
                                              "--catalog", catalog, "--state", directory]) == 0)
        #expect(await StorefrontProgram.main(["iap-key", "TEAMKEY002", catalog, "--catalog", catalog, "--state", directory]) == 2, "not a key")
        #expect(await StorefrontProgram.main(["iap-key", "lower", p8, "--catalog", catalog, "--state", directory]) == 2, "not a key ID")
        #expect(throws: UsageError.self) { try CommandLineParser.parse(["iap-key", "TEAMKEY001"]) }
        let store = try LocalAppStore(catalog: try CatalogLoader.load(path: catalog), stateDirectory: directory)
        #expect(await store.inAppPurchaseKeys().keys.sorted() == ["TEAMKEY001"])
        #expect(await store.inAppPurchaseKeys()["TEAMKEY001"]?.issuerID == "57246542-96fe-1a63-e053-0824d011072a")
        await store.shutdown()
    }

    @Test("--environment Production without the app's Apple ID in the catalog exits 2")
    func productionNeedsAppleID() async {
        #expect(await StorefrontProgram.main(["export", "--catalog", catalog, "--state", state(), "--environment", "Production"]) == 2)
        #expect(await StorefrontProgram.main(["export", "--catalog", catalog, "--state", state(), "--environment", "Xcode"]) == 0)
    }

    @Test("export's text form puts one token a line under # headings")
    func exportText() {
        let text = ExportCommand.text(SignedDataExport(transactions: ["a.b.c", "d.e.f"], renewalInfo: ["g.h.i"], appTransaction: "j.k.l"))
        #expect(text.split(separator: "\n").filter { !$0.hasPrefix("#") } == ["a.b.c", "d.e.f", "g.h.i", "j.k.l"])
        #expect(text.hasPrefix("# transactions (2, oldest first)"))
    }
}

@Suite("--environment reaches the store")
struct EnvironmentOverrideTests {
    @Test("--environment wins over the catalog's and the saved settings")
    func override() async throws {
        let catalog = try CatalogLoader.load(path: Repo.catalogPath)
        let store = try LocalAppStore(catalog: catalog, stateDirectory: nil)
        var options = CommandLineOptions()
        options.environment = .localTesting
        try await StoreContext.applyOverrides(options, to: store)
        #expect(await store.settings().environment == .localTesting)
        await store.shutdown()
    }
}
