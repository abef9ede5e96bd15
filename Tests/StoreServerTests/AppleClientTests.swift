import Foundation
import Testing
import StoreCore
import StoreEngine
import StoreSigning
@testable import StoreServer
import StorefrontTestSupport
import StoreVerification

/// Apple's own `AppStoreServerAPIClient` (Python) calls every endpoint of the server over HTTP, on a
/// store with a history, and Apple's `SignedDataVerifier` decodes every signed value it gets back,
/// trusting only `storefront cert`.
@Suite(.tags(.appleLibrary), .notInFastLoop, .enabled(if: AppleAPIClient.enabled, "Apple's library is not installed (.venv-apple)"))
struct AppleClientTests {
    static let script = Repo.root.appendingPathComponent("Tests/AppleLibrary/api_with_apple.py").path

    struct Served {
        let store: LocalAppStore
        let server: HTTPServer
        let key: APIKey
        let directory: String
    }

    /// A store on a state directory, its API key, and the API served on a free loopback port.
    static func serve() async throws -> Served {
        let directory = try APIKeyTests.freshDirectory()
        var catalog = Repo.catalog
        catalog.settings.networkDelay = 0
        let store = try LocalAppStore(catalog: catalog, stateDirectory: directory, ledger: PostgresTestServer.defaultLedger(for: directory))
        let key = try APIKey.load(stateDirectory: directory)
        let authenticator = APIAuthenticator(key: key, bundleID: catalog.app.bundleID)
        let api = AppStoreServerAPI(store: store) { authenticator.check($0)?.response }
        let server = try HTTPServer.start(port: 0) { await api.respond(to: $0) }
        return Served(store: store, server: server, key: key, directory: directory)
    }

    /// Runs `calls` through Apple's client; the results by label.
    static func call(_ served: Served, _ calls: [[String: Any]]) async throws -> [String: [String: Any]] {
        let python = try #require(AppleAPIClient.python, "CI=true but Apple's library is missing: .ci/run creates .venv-apple")
        let input = try JSONSerialization.data(withJSONObject: [
            "baseUrl": served.server.baseURL, "keyPath": try #require(served.key.privateKeyPath), "keyId": served.key.keyID,
            "issuerId": served.key.issuerID, "bundleId": "com.lumenquest.app", "environment": "Sandbox",
            "root": served.store.certificate.der.base64EncodedString(), "calls": calls,
        ])
        let output = try await runPython(python, [script], input: input)
        let reply = try #require(try JSONSerialization.jsonObject(with: output) as? [String: Any],
                                 "the Python helper printed \(String(decoding: output, as: UTF8.self))")
        let results = try #require(reply["results"] as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: results.map { ($0["label"] as! String, $0) })
    }

    static func buy(_ store: LocalAppStore, _ productID: String) async throws -> Int64 {
        guard case .success(let jws) = try await store.purchase(productID, options: PurchaseOptions(), answer: .confirm),
              let id = try JSONParser.parse(JWSVerifier(trustedRoots: [store.certificate]).verify(jws, at: .now).payload ?? Data())["transactionId"]?.int64Value
        else { throw FixtureError("buying \(productID) failed") }
        return id
    }

    @Test func applesClientCallsEveryEndpointAndVerifiesEverySignedValue() async throws {
        let served = try await Self.serve()
        let store = served.store
        await store.update { $0.notificationURL = "http://127.0.0.1:9/notifications" }  // recorded as to be sent
        var coins: [Int64] = []
        for _ in 0..<23 { coins.append(try await Self.buy(store, ID.coins)) }
        let removeAds = try await Self.buy(store, ID.removeAds)
        let monthly = try await Self.buy(store, ID.proMonthly)
        try await store.refund(transactionID: removeAds, prorated: false)
        let total = coins.count + 2

        let results = try await Self.call(served, [
            ["label": "info", "method": "get_transaction_info", "args": ["transaction_id": String(monthly)]],
            ["label": "history", "method": "get_transaction_history", "args": ["transactionId": String(coins[0]), "allPages": true, "request": ["sort": "ASCENDING"]]],
            ["label": "filtered", "method": "get_transaction_history",
             "args": ["transactionId": String(monthly), "request": ["productTypes": ["NON_CONSUMABLE"], "revoked": true]]],
            ["label": "statuses", "method": "get_all_subscription_statuses", "args": ["transactionId": String(monthly), "status": [1]]],
            ["label": "order", "method": "look_up_order_id", "args": ["order_id": OrderID.of(transactionID: removeAds)]],
            ["label": "refunds", "method": "get_refund_history", "args": ["transactionId": String(coins[0]), "allPages": true]],
            ["label": "consumption", "method": "send_consumption_information", "args": ["transactionId": String(coins[0]), "request": [
                "customerConsented": true, "sampleContentProvided": false, "deliveryStatus": "DELIVERED",
                "refundPreference": "DECLINE", "consumptionPercentage": 50000]]],
            ["label": "extend", "method": "extend_subscription_renewal_date", "args": ["originalTransactionId": String(monthly), "request": [
                "extendByDays": 7, "extendReasonCode": 1, "requestIdentifier": UUID().uuidString]]],
            ["label": "app", "method": "get_app_transaction_info", "args": ["any_transaction_id": String(coins[0])]],
            ["label": "test", "method": "request_test_notification", "args": [:] as [String: Any]],
            ["label": "testStatus", "method": "get_test_notification_status", "args": ["test_notification_token": "@test.testNotificationToken"]],
            ["label": "notifications", "method": "get_notification_history", "args": ["allPages": true, "request": [
                "startDate": Int64((await store.now().timeIntervalSince1970 - 3600) * 1000), "endDate": Int64((await store.now().timeIntervalSince1970 + 3600) * 1000)]]],
            ["label": "unknown", "method": "get_transaction_info", "args": ["transaction_id": "2000999999"]],
            ["label": "badRevision", "method": "get_transaction_history", "args": ["transactionId": String(coins[0]), "revision": "garbage"]],
        ])
        func ok(_ label: String) throws -> Any? {
            let result = try #require(results[label], "no result for \(label)")
            #expect(result["ok"] as? Bool == true, "\(label): \(result["error"] ?? "")")
            return result["result"]
        }
        func decoded(_ value: Any?, _ field: String) -> Any? { ((value as? [String: Any])?["decoded"] as? [String: Any])?[field] }

        let info = decoded(try ok("info"), "signedTransactionInfo") as? [String: Any]
        #expect(info?["productId"] as? String == ID.proMonthly)

        let pages = try #require(try ok("history") as? [[String: Any]])
        #expect(pages.count == 2, "\(total) transactions are two pages of 20")
        let history = pages.flatMap { (decoded($0, "signedTransactions") as? [[String: Any]]) ?? [] }
        #expect(history.count == total)
        #expect(Set(history.compactMap { $0["transactionId"] as? String }).count == total, "each once")

        let filtered = decoded(try ok("filtered"), "signedTransactions") as? [[String: Any]]
        #expect(filtered?.map { $0["productId"] as? String } == [ID.removeAds])

        let groups = try #require((try ok("statuses") as? [String: Any])?["data"] as? [[String: Any]])
        let last = try #require((groups.first?["lastTransactions"] as? [[String: Any]])?.first)
        #expect(last["status"] as? Int == 1)
        #expect((decoded(last, "signedRenewalInfo") as? [String: Any])?["autoRenewProductId"] as? String == ID.proMonthly)

        let order = try #require(try ok("order") as? [String: Any])
        #expect(order["status"] as? Int == 0)
        #expect((decoded(order, "signedTransactions") as? [[String: Any]])?.first?["productId"] as? String == ID.removeAds)

        let refunds = try #require(try ok("refunds") as? [[String: Any]]).flatMap { (decoded($0, "signedTransactions") as? [[String: Any]]) ?? [] }
        #expect(refunds.map { $0["transactionId"] as? String } == [String(removeAds)])

        _ = try ok("consumption")
        #expect(await store.consumption(transactionID: coins[0])?["deliveryStatus"]?.stringValue == "DELIVERED")

        let extended = try #require(try ok("extend") as? [String: Any])
        #expect(extended["success"] as? Bool == true)
        #expect(decoded(try ok("app"), "signedAppTransactionInfo") != nil)

        let test = decoded(try ok("testStatus"), "signedPayload") as? [String: Any]
        #expect(test?["notificationType"] as? String == "TEST")
        let notified = try #require(try ok("notifications") as? [[String: Any]])
            .flatMap { ($0["notificationHistory"] as? [[String: Any]]) ?? [] }.compactMap { decoded($0, "signedPayload") as? [String: Any] }
        let types = notified.map { ($0["notificationType"] as? String ?? "?") + "/" + ($0["subtype"] as? String ?? "") }
        #expect(types.filter { $0 == "ONE_TIME_CHARGE/" }.count == 24, "every consumable and Remove Ads: \(types)")
        #expect(types.contains("SUBSCRIBED/INITIAL_BUY") && types.contains("REFUND/") && types.contains("RENEWAL_EXTENDED/")
                && types.contains("TEST/"), "\(types)")

        let unknown = try #require(results["unknown"]?["error"] as? [String: Any])
        #expect(unknown["httpStatus"] as? Int == 404 && unknown["apiError"] as? Int == 4_040_010)
        let badRevision = try #require(results["badRevision"]?["error"] as? [String: Any])
        #expect(badRevision["httpStatus"] as? Int == 400 && badRevision["apiError"] as? Int == 4_000_005)

        await served.server.stop()
        await store.shutdown()
    }
}
