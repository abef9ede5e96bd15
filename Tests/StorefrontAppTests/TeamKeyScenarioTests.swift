import Foundation
import Testing
import StoreCore
import StoreSigning
@testable import StorefrontApp
import StorefrontTestSupport

/// The team's key in a scenario: `iap-key` registers it, and `buy … signature file FILE` passes what
/// a backend signed with Apple's own library.
@Suite(.tags(.appleLibrary), .notInFastLoop, .enabled(if: AppleLibraryPython.enabled, "Apple's library is not installed (.venv-apple)"))
struct TeamKeyScenarioTests {
    @Test("a scenario registers the team's key and buys with the promotional offer its backend signed")
    func scenarioWithTheTeamsSignatures() async throws {
        let directory = NSTemporaryDirectory() + "storefront-team-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let key = directory + "/SubscriptionKey_TEAMKEY001.p8"
        try SigningKey.generate().pemRepresentation.write(toFile: key, atomically: true, encoding: .utf8)
        let signed = try await AppleLibraryPython.sign([["kind": "legacy", "productId": ID.proMonthly, "offerId": "pro.comeback50"]],
                                                       keyPath: key, keyID: "TEAMKEY001", issuerID: "57246542-96fe-1a63-e053-0824d011072a")
        try signed[0].write(toFile: directory + "/legacy.json", atomically: true, encoding: .utf8)
        let text = """
            catalog \(ScenarioPaths.catalog)
            buy com.lumenquest.pro.monthly
            auto-renew com.lumenquest.pro.monthly off
            advance P4M
            buy com.lumenquest.pro.monthly offer pro.comeback50 signature file \(directory)/legacy.json
            expect result failed invalidOfferSignature
            iap-key TEAMKEY001 \(key) issuer 57246542-96fe-1a63-e053-0824d011072a
            buy com.lumenquest.pro.monthly offer pro.comeback50 signature file \(directory)/legacy.json
            expect result purchased
            expect transaction com.lumenquest.pro.monthly offerID pro.comeback50
            """
        let scenario = try ScenarioParser.parse(text, path: directory + "/team-key.scenario")
        let catalog = try CatalogLoader.load(path: ScenarioPaths.catalog)
        let result = await ScenarioRunner(scenario: scenario, catalog: catalog).run()
        #expect(result.passed, "\(result.setupError ?? "") \(result.steps.filter { $0.outcome == .failed }.map(ScenarioReport.line))")
    }
}
