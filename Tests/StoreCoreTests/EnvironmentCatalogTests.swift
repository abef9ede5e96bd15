import Foundation
import Testing
@testable import StoreCore

@Suite("The environment and the app's Apple ID in the catalog")
struct EnvironmentCatalogTests {
    func catalog(app: String = "", settings: String) throws -> Catalog {
        let text = """
            {"app": {"name": "X", "bundleID": "com.x"\(app)}, "storefronts": ["USA"],
             "products": [{"id": "x.coins", "type": "consumable", "referenceName": "Coins",
                           "localizations": {"en_US": {"displayName": "Coins", "description": "Coins"}}, "prices": {"USA": "0.99"}}],
             "settings": {\(settings)}}
            """
        return try CatalogLoader.load(data: Data(text.utf8), file: "env.json")
    }

    func message(_ body: () throws -> Catalog) -> String {
        do { _ = try body(); return "loaded" } catch { return "\(error)" }
    }

    @Test("Sandbox by default; settings.environment and app.appAppleId are read and written back")
    func readAndWrite() throws {
        #expect(try catalog(settings: "").settings.environment == .sandbox)
        let production = try catalog(app: #", "appAppleId": 1234567890"#, settings: #""environment": "Production""#)
        #expect(production.settings.environment == .production && production.app.appAppleID == 1_234_567_890)
        let again = try CatalogLoader.load(data: Data(CatalogFormat.encode(production).serialized().utf8), file: "again.json")
        #expect(again == production)
        for environment in StoreEnvironment.allCases where environment != .production {
            #expect(try catalog(settings: "\"environment\": \"\(environment.rawValue)\"").settings.environment == environment)
        }
    }

    @Test("an unknown environment, Production without the app's Apple ID, and a bad Apple ID name the field")
    func errors() {
        let unknown = message { try catalog(settings: #""environment": "Staging""#) }
        #expect(unknown.contains("settings.environment") && unknown.contains("Sandbox, Production, Xcode, LocalTesting"), "\(unknown)")
        let production = message { try catalog(settings: #""environment": "Production""#) }
        #expect(production.contains("settings.environment") && production.contains("app.appAppleId"), "\(production)")
        let badID = message { try catalog(app: #", "appAppleId": "123""#, settings: "") }
        #expect(badID.contains("app.appAppleId"), "\(badID)")
    }

    @Test("app.preorderDate and app.versionExternalIdentifier are read, written back, and checked by field")
    func preorderAndVersion() throws {
        let app = try catalog(app: #", "preorderDate": "2026-01-15T09:00:00Z", "versionExternalIdentifier": 824713"#, settings: "")
        #expect(app.app.preorderDate == Date(timeIntervalSince1970: 1_768_467_600))
        #expect(app.app.versionExternalIdentifier == 824_713)
        let again = try CatalogLoader.load(data: Data(CatalogFormat.encode(app).serialized().utf8), file: "again.json")
        #expect(again == app)
        #expect(message { try catalog(app: #", "preorderDate": "soon""#, settings: "") }.contains("app.preorderDate"))
        #expect(message { try catalog(app: #", "versionExternalIdentifier": -1"#, settings: "") }.contains("app.versionExternalIdentifier"))
        var payload = AppTransactionPayload(appTransactionID: "7", bundleID: "com.x", appVersion: "1", originalAppVersion: "1",
                                            originalPurchaseDate: Date(timeIntervalSince1970: 0), originalPlatform: "iOS",
                                            deviceVerification: "", deviceVerificationNonce: UUID(), signedDate: Date(timeIntervalSince1970: 0))
        payload.preorderDate = app.app.preorderDate
        payload.versionExternalIdentifier = 824_713
        #expect(payload.json["preorderDate"]?.intValue == 1_768_467_600_000)
        #expect(AppTransactionPayload(json: payload.json)?.versionExternalIdentifier == 824_713)
    }

    @Test("app.ageRatingCode is read, written back, and a code out of range names the field")
    func ageRatingCode() throws {
        #expect(try catalog(settings: "").app.ageRatingCode == nil)
        let rated = try catalog(app: #", "ageRatingCode": 300"#, settings: "")
        #expect(rated.app.ageRatingCode == 300)
        #expect(try CatalogLoader.load(data: Data(CatalogFormat.encode(rated).serialized().utf8), file: "again.json") == rated)
        let zero = message { try catalog(app: #", "ageRatingCode": 0"#, settings: "") }
        #expect(zero.contains("app.ageRatingCode"), "\(zero)")
    }
}
