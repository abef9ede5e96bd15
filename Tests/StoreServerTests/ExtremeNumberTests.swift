import Foundation
import Testing
import StorefrontTestSupport
import StoreCore
import StoreSigning
@testable import StoreServer

/// Every number a client sends (query arguments, JSON bodies, revision tokens) at the edges of what
/// Int64 and Double hold: each is answered (a 4xx naming Apple's error, or a page), never a trap.
@Suite struct ExtremeNumberTests {
    static let numbers = ["9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
                          "18446744073709551616", "99999999999999999999999999", "1e308", "1e999", "-1e999", "1.5", "-0",
                          "253402300800000", "253402300799999", "0"]

    @Test func extremeDatesInAHistoryQueryAreAnswered() async throws {
        let f = try APIFixture()
        let id = try await f.buy(ID.coins)
        for number in Self.numbers {
            for query in [[("startDate", number)], [("endDate", number)], [("startDate", "0"), ("endDate", number)]] {
                let response = await f.get("/inApps/v2/history/\(id)", query)
                #expect([200, 400].contains(response.status), "\(query): \(response.status)")
            }
        }
        #expect(await f.get("/inApps/v2/history/\(id)", [("endDate", "253402300800000")]).errorCode == 4_000_016)
        #expect(await f.get("/inApps/v2/history/\(id)", [("endDate", "253402300799999")]).status == 200)
    }

    @Test func extremeDatesInANotificationHistoryBodyAreAnswered() async throws {
        let f = try APIFixture()
        await f.store.update { $0.notificationURL = "http://127.0.0.1:9/notifications" }
        try await f.buy(ID.coins)
        for number in Self.numbers {
            for body in [#"{"startDate":0,"endDate":\#(number)}"#, #"{"startDate":\#(number),"endDate":\#(number)}"#] {
                let response = await f.api.respond(to: HTTPRequest(method: "POST", path: "/inApps/v1/notifications/history", body: Data(body.utf8)))
                #expect([200, 400].contains(response.status), "\(body): \(response.status)")
            }
        }
        let latest = await f.api.respond(to: HTTPRequest(method: "POST", path: "/inApps/v1/notifications/history",
                                                         body: Data(#"{"startDate":0,"endDate":9223372036854775807}"#.utf8)))
        #expect(latest.errorCode == 4_000_016)
    }

    @Test func extremeNumbersInJSONBodiesAreAnswered() async throws {
        let f = try APIFixture()
        let monthly = try await f.buy(ID.proMonthly)
        let coins = try await f.buy(ID.coins)
        for number in Self.numbers {
            let extend = [#"{"extendByDays":\#(number),"extendReasonCode":0,"requestIdentifier":"a"}"#,
                          #"{"extendByDays":5,"extendReasonCode":\#(number),"requestIdentifier":"a"}"#]
            for (body, valid) in zip(extend, [false, ["0", "-0"].contains(number)]) {
                let response = await f.put("/inApps/v1/subscriptions/extend/\(monthly)", body)
                #expect(response.status == (valid ? 200 : 400), "\(body): \(response.status)")
            }
            let consumption = #"{"customerConsented":true,"sampleContentProvided":false,"deliveryStatus":"DELIVERED","consumptionPercentage":\#(number)}"#
            let response = await f.put("/inApps/v2/transactions/consumption/\(coins)", consumption)
            #expect([202, 400].contains(response.status), "\(consumption): \(response.status)")
        }
    }

    @Test func extremeIDsStatusesAndRevisionsAreAnswered() async throws {
        let f = try APIFixture()
        let monthly = try await f.buy(ID.proMonthly)
        for number in Self.numbers {
            for path in ["/inApps/v1/transactions/\(number)", "/inApps/v2/history/\(number)", "/inApps/v1/subscriptions/\(number)",
                         "/inApps/v2/refund/lookup/\(number)", "/inApps/v1/notifications/test/\(UUID().uuidString)_\(number)"] {
                let response = await f.get(path)
                #expect([400, 404].contains(response.status), "\(path): \(response.status)")
            }
            #expect(await f.get("/inApps/v1/subscriptions/\(monthly)", [("status", number)]).status == 400, "status=\(number)")
            let token = Base64URL.encode(Data("v1:\(number):\(number)".utf8))
            for path in ["/inApps/v2/history/\(monthly)", "/inApps/v2/refund/lookup/\(monthly)"] {
                let response = await f.get(path, [("revision", token)])
                #expect([200, 400].contains(response.status), "\(path) revision \(number): \(response.status)")
            }
        }
    }
}
