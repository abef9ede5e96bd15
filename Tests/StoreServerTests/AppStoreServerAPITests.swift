import Foundation
import Testing
import StoreCore
import StoreEngine
@testable import StoreServer
import StorefrontTestSupport

/// The App Store Server API's rules, called directly on the router; `AppleClientTests` proves the same
/// endpoints with Apple's own client over HTTP.
@Suite struct AppStoreServerAPITests {
    // MARK: Get Transaction Info

    @Test func transactionInfoAnswersTheStoresSignedTransaction() async throws {
        let f = try APIFixture()
        let id = try await f.buy(ID.removeAds)
        let response = await f.get("/inApps/v1/transactions/\(id)")
        #expect(response.status == 200)
        #expect(response.headers["content-type"] == "application/json")
        let jws = try #require(response.json["signedTransactionInfo"]?.stringValue)
        #expect(try f.payload(jws)["productId"]?.stringValue == ID.removeAds)
        #expect(try f.transactionID(jws) == id)
    }

    @Test func anUnknownTransactionIsNotFound4040010() async throws {
        let response = await (try APIFixture()).get("/inApps/v1/transactions/2000000999")
        #expect(response.status == 404)
        #expect(response.errorCode == 4_040_010)
    }

    @Test func aTransactionIDThatIsNotANumberIsInvalid4000006() async throws {
        for bad in ["abc", "-5", "12a", "0"] {
            let response = await (try APIFixture()).get("/inApps/v1/transactions/\(bad)")
            #expect(response.status == 400, "\(bad)")
            #expect(response.errorCode == 4_000_006, "\(bad)")
        }
    }

    @Test func aPathArgumentIsPercentDecodedAndOneThatCannotBeIsNoRoute() async throws {
        let f = try APIFixture()
        let id = try await f.buy(ID.removeAds)
        let digits = String(id)
        let encoded = "%" + String(format: "%02X", digits.utf8.first!) + digits.dropFirst()  // its first digit, percent-encoded
        let response = await f.get("/inApps/v1/transactions/\(encoded)")
        #expect(response.status == 200)
        #expect(try f.transactionID(#require(response.json["signedTransactionInfo"]?.stringValue)) == id)
        #expect(await f.get("/inApps/v1/transactions/%ZZ\(digits)").status == 404)
        #expect(await f.get("/inApps/v1/transactions/").status == 404, "an empty argument matches no route")
    }

    @Test func aPathMatchesARouteSegmentBySegmentExactlyAsSent() async throws {
        let f = try APIFixture()
        let id = try await f.buy(ID.removeAds)
        #expect(await f.get("/inApps/v1/transactions/\(id)").status == 200)
        for other in ["/inApps/v1/transactions/\(id)/", "//inApps/v1/transactions/\(id)", "/inApps/v1//transactions/\(id)",
                      "/inapps/v1/transactions/\(id)", "/inApps/v1/transaction/\(id)", "/inApps/v1/transactions", "/", "",
                      "inApps/v1/transactions/\(id)", "x/inApps/v1/transactions/\(id)"] {
            let response = await f.get(other)
            #expect(response.status == 404, "\(other.debugDescription)")
            #expect(response.errorCode == 4_040_000, "no route, not an unknown transaction: \(other.debugDescription)")
        }
    }

    // MARK: Get Transaction History

    @Test func historyPagesTwentyAtATimeAndItsRevisionLaterGivesOnlyWhatIsNew() async throws {
        let f = try APIFixture()
        var bought: [Int64] = []
        for _ in 0..<45 { bought.append(try await f.buy(ID.coins)) }
        var seen: [Int64] = []
        var revision: String?
        var pages: [Int] = []
        repeat {
            let response = await f.get("/inApps/v2/history/\(bought[0])", revision.map { [("revision", $0)] } ?? [])
            #expect(response.status == 200)
            let tokens = try #require(response.json["signedTransactions"]?.arrayValue)
            pages.append(tokens.count)
            seen += try tokens.map { try f.transactionID(#require($0.stringValue)) }
            revision = response.json["revision"]?.stringValue
            if response.json["hasMore"]?.boolValue != true { break }
        } while true
        #expect(pages == [20, 20, 5])
        #expect(seen == bought, "every transaction once, oldest first")

        let later = try await f.buy(ID.coins)
        let response = await f.get("/inApps/v2/history/\(bought[0])", [("revision", try #require(revision))])
        let tokens = try #require(response.json["signedTransactions"]?.arrayValue)
        #expect(try tokens.map { try f.transactionID(#require($0.stringValue)) } == [later])
    }

    /// A page is read from the ledger's index a chunk at a time: a filter that passes over more rows
    /// than a chunk still finds what lies beyond them, in either order.
    @Test func aFilteredHistoryPageReachesPastManyRowsThatDoNotMatch() async throws {
        let f = try APIFixture()
        let first = try await f.buy(ID.removeAds)
        for _ in 0..<50 { _ = try await f.buy(ID.coins) }
        for sort in ["ASCENDING", "DESCENDING"] {
            let response = await f.get("/inApps/v2/history/\(first)", [("productType", "NON_CONSUMABLE"), ("sort", sort)])
            let tokens = try #require(response.json["signedTransactions"]?.arrayValue)
            #expect(try tokens.map { try f.transactionID(#require($0.stringValue)) } == [first], "\(sort)")
            #expect(response.json["hasMore"]?.boolValue == false, "\(sort)")
        }
        let newest = await f.get("/inApps/v2/history/\(first)", [("sort", "DESCENDING")])
        let tokens = try #require(newest.json["signedTransactions"]?.arrayValue)
        #expect(tokens.count == 20 && newest.json["hasMore"]?.boolValue == true)
        #expect(try f.transactionID(#require(tokens.last?.stringValue)) != first)
    }

    @Test func historyIncludesFinishedConsumablesAndEveryFilterMustMatch() async throws {
        let f = try APIFixture()
        let coins = try await f.buy(ID.coins)
        await f.store.finish(transactionID: coins)
        let removeAds = try await f.buy(ID.removeAds)
        let monthly = try await f.buy(ID.proMonthly)
        try await f.store.advanceTime(by: Period(1, .day))
        try await f.store.refund(transactionID: removeAds, prorated: false)

        func ids(_ query: [(String, String)]) async throws -> [Int64] {
            let response = await f.get("/inApps/v2/history/\(coins)", query)
            #expect(response.status == 200, "\(query): \(String(decoding: response.body, as: UTF8.self))")
            return try (response.json["signedTransactions"]?.arrayValue ?? []).map { try f.transactionID(#require($0.stringValue)) }
        }
        #expect(try await Set(ids([])) == [coins, removeAds, monthly])
        #expect(try await ids([("productType", "CONSUMABLE")]) == [coins])
        #expect(try await Set(ids([("productType", "CONSUMABLE"), ("productType", "AUTO_RENEWABLE")])) == [coins, monthly])
        #expect(try await ids([("productId", ID.proMonthly)]) == [monthly])
        #expect(try await ids([("subscriptionGroupIdentifier", ID.group)]) == [monthly])
        #expect(try await ids([("revoked", "true")]) == [removeAds])
        #expect(try await Set(ids([("revoked", "False")])) == [coins, monthly])
        #expect(try await ids([("inAppOwnershipType", "FAMILY_SHARED")]) == [])
        #expect(try await ids([("productType", "CONSUMABLE"), ("revoked", "true")]) == [])
        // The refund re-signed removeAds: it is the most recently modified.
        #expect(try await ids([("sort", "DESCENDING")]).first == removeAds)
    }

    @Test func historyFiltersByPurchaseDateFromStartDateUpToEndDate() async throws {
        let f = try APIFixture()
        let first = try await f.buy(ID.coins)
        try await f.store.advanceTime(by: Period(2, .day))
        let second = try await f.buy(ID.coins)
        let middle = String(Int64((await f.store.now().timeIntervalSince1970 - 86_400) * 1000))
        let after = await f.get("/inApps/v2/history/\(first)", [("startDate", middle)])
        let before = await f.get("/inApps/v2/history/\(first)", [("endDate", middle)])
        #expect(try (after.json["signedTransactions"]?.arrayValue ?? []).map { try f.transactionID($0.stringValue!) } == [second])
        #expect(try (before.json["signedTransactions"]?.arrayValue ?? []).map { try f.transactionID($0.stringValue!) } == [first])
    }

    @Test func historyRefusesWhatAppleRefusesWithAppleErrorCodes() async throws {
        let f = try APIFixture()
        let id = try await f.buy(ID.coins)
        let cases: [([(String, String)], Int)] = [
            ([("revision", "not-a-revision")], 4_000_005),
            ([("productType", "SUBSCRIPTION")], 4_000_022),
            ([("sort", "UP")], 4_000_021),
            ([("startDate", "yesterday")], 4_000_015),
            ([("endDate", "-1")], 4_000_016),
            ([("startDate", "2000"), ("endDate", "1000")], 4_000_013),
            ([("revoked", "maybe")], 4_000_030),
            ([("inAppOwnershipType", "SHARED")], 4_000_026),
            ([("productId", "")], 4_000_023),
        ]
        for (query, code) in cases {
            let response = await f.get("/inApps/v2/history/\(id)", query)
            #expect(response.status == 400, "\(query)")
            #expect(response.errorCode == code, "\(query)")
        }
        #expect(await f.get("/inApps/v2/history/2000000999").errorCode == 4_040_010)
    }

    @Test func anyTransactionIDOfTheCustomerFindsTheirHistoryIncludingTheAppTransactionID() async throws {
        let f = try APIFixture()
        try await f.buy(ID.coins)
        let appTransaction = try await f.payload(f.store.serverAppTransaction())
        let appTransactionID = try #require(appTransaction["appTransactionId"]?.stringValue)
        #expect(await f.get("/inApps/v2/history/\(appTransactionID)").status == 200)
        #expect(await f.get("/inApps/v1/transactions/appTransactions/\(appTransactionID)").status == 200)
    }

    // MARK: Get All Subscription Statuses

    @Test func statusesListEveryGroupWithApplesStatusCodesAndFilter() async throws {
        let f = try APIFixture()
        let monthly = try await f.buy(ID.proMonthly)
        let response = await f.get("/inApps/v1/subscriptions/\(monthly)")
        #expect(response.status == 200)
        let groups = try #require(response.json["data"]?.arrayValue)
        #expect(groups.count == 1)
        #expect(groups[0]["subscriptionGroupIdentifier"]?.stringValue == ID.group)
        let last = try #require(groups[0]["lastTransactions"]?.arrayValue?.first)
        #expect(last["status"]?.intValue == 1)
        #expect(last["originalTransactionId"]?.stringValue == String(monthly))
        #expect(try f.payload(#require(last["signedRenewalInfo"]?.stringValue))["autoRenewProductId"]?.stringValue == ID.proMonthly)

        #expect(await f.get("/inApps/v1/subscriptions/\(monthly)", [("status", "2")]).json["data"]?.arrayValue?.isEmpty == true)
        try await f.store.expireSubscription(productID: ID.proMonthly)
        let expired = await f.get("/inApps/v1/subscriptions/\(monthly)", [("status", "2")])
        #expect(expired.json["data"]?.arrayValue?.first?["lastTransactions"]?.arrayValue?.first?["status"]?.intValue == 2)
        #expect(await f.get("/inApps/v1/subscriptions/\(monthly)", [("status", "9")]).errorCode == 4_000_031)
    }

    // MARK: Look Up Order ID

    @Test func everyPurchaseHasAnOrderIDThatLooksItUp() async throws {
        let f = try APIFixture()
        let id = try await f.buy(ID.season)
        let order = OrderID.of(transactionID: id)
        let response = await f.get("/inApps/v1/lookup/\(order)")
        #expect(response.json["status"]?.intValue == 0)
        let tokens = try #require(response.json["signedTransactions"]?.arrayValue)
        #expect(try tokens.map { try f.transactionID($0.stringValue!) } == [id])

        let unknown = await f.get("/inApps/v1/lookup/\(OrderID.of(transactionID: id + 7))")
        #expect(unknown.status == 200)
        #expect(unknown.json["status"]?.intValue == 1)
        #expect(unknown.json["signedTransactions"] == nil, "Apple: an invalid order's response has no signedTransactions")
        #expect(await f.get("/inApps/v1/lookup/NOT-AN-ORDER").json["status"]?.intValue == 1)
    }

    @Test func orderIDsAreTenUnambiguousCharactersAndReversible() {
        for id: Int64 in [2_000_000_001, 2_000_000_002, 999_999_999_999_999, 1] {
            let order = OrderID.of(transactionID: id)
            #expect(order.count == 10)
            #expect(!order.contains { "IO01".contains($0) })
            #expect(OrderID.transactionID(of: order) == id)
            #expect(OrderID.transactionID(of: order.lowercased()) == id)
        }
        #expect(OrderID.of(transactionID: 2_000_000_001).prefix(4) != OrderID.of(transactionID: 2_000_000_002).prefix(4))
    }

    // MARK: Get Refund History

    @Test func refundHistoryListsRefundsButNotFamilySharingRevocations() async throws {
        let f = try APIFixture()
        let removeAds = try await f.buy(ID.removeAds)
        let coins = try await f.buy(ID.coins)
        try await f.store.buyOutsideApp(productID: "com.lumenquest.pro", familyShared: true)
        let shared = try #require(await f.store.serverHistory().last?.payload.transactionID)
        try await f.store.revokeFamilySharing(transactionID: shared)
        #expect(await f.get("/inApps/v2/refund/lookup/\(coins)").json["signedTransactions"]?.arrayValue?.isEmpty == true)
        try await f.store.refund(transactionID: removeAds, prorated: false)
        let response = await f.get("/inApps/v2/refund/lookup/\(coins)")
        #expect(response.status == 200)
        let tokens = try #require(response.json["signedTransactions"]?.arrayValue)
        #expect(try tokens.map { try f.transactionID($0.stringValue!) } == [removeAds])
        #expect(response.json["hasMore"]?.boolValue == false)
        #expect(await f.get("/inApps/v2/refund/lookup/\(coins)", [("revision", "x")]).errorCode == 4_000_005)
    }

    // MARK: Send Consumption Information

    @Test func consumptionInformationIsCheckedFieldByFieldAndRecorded() async throws {
        let f = try APIFixture()
        let coins = try await f.buy(ID.coins)
        let path = "/inApps/v2/transactions/consumption/\(coins)"
        #expect(await f.put(path, #"{"customerConsented":false,"sampleContentProvided":true,"deliveryStatus":"DELIVERED"}"#).errorCode == 4_000_035)
        #expect(await f.put(path, #"{"customerConsented":true,"deliveryStatus":"DELIVERED"}"#).errorCode == 4_000_041)
        #expect(await f.put(path, #"{"customerConsented":true,"sampleContentProvided":true,"deliveryStatus":"LOST"}"#).errorCode == 4_000_036)
        #expect(await f.put(path, #"{"customerConsented":true,"sampleContentProvided":true,"deliveryStatus":"DELIVERED","consumptionPercentage":100001}"#).errorCode == 4_000_000)
        #expect(await f.put(path, "not json").errorCode == 4_000_000)
        #expect(await f.store.consumption(transactionID: coins) == nil, "nothing refused is recorded")

        let good = #"{"customerConsented":true,"sampleContentProvided":false,"deliveryStatus":"DELIVERED","refundPreference":"DECLINE","consumptionPercentage":25000}"#
        #expect(await f.put(path, good).status == 202)
        #expect(await f.store.consumption(transactionID: coins)?["refundPreference"]?.stringValue == "DECLINE")
        #expect(await f.put("/inApps/v2/transactions/consumption/2000000999", good).errorCode == 4_040_010)
    }

    // MARK: Extend a Subscription Renewal Date

    @Test func extendingARenewalDateMovesTheExpirationAndARetriedRequestExtendsOnce() async throws {
        let f = try APIFixture()
        let monthly = try await f.buy(ID.proMonthly)
        let before = try #require(await f.store.serverTransaction(id: monthly)?.payload.expirationDate)
        let body = #"{"extendByDays":10,"extendReasonCode":1,"requestIdentifier":"req-1"}"#
        let response = await f.put("/inApps/v1/subscriptions/extend/\(monthly)", body)
        #expect(response.status == 200)
        #expect(response.json["success"]?.boolValue == true)
        #expect(response.json["originalTransactionId"]?.stringValue == String(monthly))
        let after = try #require(await f.store.serverTransaction(id: monthly)?.payload.expirationDate)
        #expect(after.timeIntervalSince(before) == 10 * 86_400)
        #expect(await f.put("/inApps/v1/subscriptions/extend/\(monthly)", body).status == 200)
        #expect(await f.store.serverTransaction(id: monthly)?.payload.expirationDate == after, "the same request ID extends once")
        let status = try #require(await f.store.serverSubscriptions().first)
        #expect(try f.payload(status.signedRenewalInfo)["renewalDate"]?.int64Value == Int64(after.timeIntervalSince1970 * 1000))
    }

    @Test func extendRenewalDateAnswersTheNewExpiryAsItsEffectiveDateAndSoDoesARetry() async throws {
        let f = try APIFixture()
        let monthly = try await f.buy(ID.proMonthly)
        let body = #"{"extendByDays":3,"extendReasonCode":1,"requestIdentifier":"req-e"}"#
        let first = await f.put("/inApps/v1/subscriptions/extend/\(monthly)", body)
        let expiry = try #require(await f.store.serverTransaction(id: monthly)?.payload.expirationDate)
        #expect(first.json["effectiveDate"]?.int64Value == Int64(expiry.timeIntervalSince1970 * 1000), "Apple: the new expiry, not the request's time")
        #expect(await f.put("/inApps/v1/subscriptions/extend/\(monthly)", body).json["effectiveDate"] == first.json["effectiveDate"])
    }

    @Test("Get Notification History reaches back 180 days in Production and 30 in the sandbox, and no further (4000012)",
          arguments: [(StoreEnvironment.production, Int64(180)), (.sandbox, 30)])
    func notificationHistoryReachesBackAsFarAsAppleKeepsIt(_ environment: StoreEnvironment, _ days: Int64) async throws {
        let f = try APIFixture()
        await f.store.update { $0.environment = environment }
        let now = Int64(await f.store.now().timeIntervalSince1970 * 1000), day: Int64 = 86_400_000
        func history(from start: Int64) async -> HTTPResponse {
            await f.api.respond(to: HTTPRequest(method: "POST", path: "/inApps/v1/notifications/history",
                                                body: Data(#"{"startDate":\#(start),"endDate":\#(now)}"#.utf8)))
        }
        #expect(await history(from: now - days * day + 1000).status == 200)
        #expect(await history(from: now - (days + 1) * day).errorCode == 4_000_012)
    }

    @Test func aSubscriptionIsExtendedAtMostTwiceAYear() async throws {
        let f = try APIFixture()
        let monthly = try await f.buy(ID.proMonthly)
        for n in 1...2 {
            #expect(await f.put("/inApps/v1/subscriptions/extend/\(monthly)", #"{"extendByDays":1,"extendReasonCode":0,"requestIdentifier":"r\#(n)"}"#).status == 200)
        }
        let third = await f.put("/inApps/v1/subscriptions/extend/\(monthly)", #"{"extendByDays":1,"extendReasonCode":0,"requestIdentifier":"r3"}"#)
        #expect(third.status == 403)
        #expect(third.errorCode == 4_030_005)
    }

    @Test func onlyAnActiveSubscriptionCanBeExtendedWithinAppleLimits() async throws {
        let f = try APIFixture()
        let monthly = try await f.buy(ID.proMonthly)
        let path = "/inApps/v1/subscriptions/extend/\(monthly)"
        #expect(await f.put(path, #"{"extendByDays":91,"extendReasonCode":0,"requestIdentifier":"a"}"#).errorCode == 4_000_009)
        #expect(await f.put(path, #"{"extendByDays":0,"extendReasonCode":0,"requestIdentifier":"a"}"#).errorCode == 4_000_009)
        #expect(await f.put(path, #"{"extendByDays":5,"extendReasonCode":4,"requestIdentifier":"a"}"#).errorCode == 4_000_010)
        #expect(await f.put(path, #"{"extendByDays":5,"extendReasonCode":0}"#).errorCode == 4_000_011)
        #expect(await f.put("/inApps/v1/subscriptions/extend/2000000999", #"{"extendByDays":5,"extendReasonCode":0,"requestIdentifier":"b"}"#).errorCode == 4_040_005)
        try await f.store.expireSubscription(productID: ID.proMonthly)
        let expired = await f.put(path, #"{"extendByDays":5,"extendReasonCode":0,"requestIdentifier":"c"}"#)
        #expect(expired.status == 403)
        #expect(expired.errorCode == 4_030_004)
    }

    // MARK: Notifications

    func post(_ f: APIFixture, _ path: String, _ body: String = "", query: [(String, String)] = []) async -> HTTPResponse {
        await f.api.respond(to: HTTPRequest(method: "POST", path: path, query: query.map { (name: $0.0, value: $0.1) }, body: Data(body.utf8)))
    }

    @Test func aTestNotificationNeedsANotificationURLThenItsTokenFindsIt() async throws {
        let f = try APIFixture()
        let refused = await post(f, "/inApps/v1/notifications/test")
        #expect(refused.status == 404 && refused.errorCode == 4_040_007)
        await f.store.update { $0.notificationURL = "http://127.0.0.1:9/notifications" }
        let response = await post(f, "/inApps/v1/notifications/test")
        #expect(response.status == 200)
        let token = try #require(response.json["testNotificationToken"]?.stringValue)
        let status = await f.get("/inApps/v1/notifications/test/\(token)")
        #expect(status.status == 200)
        let payload = try f.payload(try #require(status.json["signedPayload"]?.stringValue))
        #expect(payload["notificationType"]?.stringValue == "TEST")
        #expect(status.json["sendAttempts"]?.arrayValue != nil)
        #expect(await f.get("/inApps/v1/notifications/test/not-a-token").errorCode == 4_000_020)
        #expect(await f.get("/inApps/v1/notifications/test/\(UUID().uuidString)_1").errorCode == 4_040_008)
    }

    @Test func notificationHistoryListsWhatWasSentFilteredAndPaged() async throws {
        let f = try APIFixture()
        await f.store.update { $0.notificationURL = "http://127.0.0.1:9/notifications" }
        for _ in 0..<21 { try await f.buy(ID.coins) }
        let monthly = try await f.buy(ID.proMonthly)
        let now = Int64(await f.store.now().timeIntervalSince1970 * 1000)
        let range = #"{"startDate":\#(now - 60_000),"endDate":\#(now + 60_000)"#
        let first = await post(f, "/inApps/v1/notifications/history", range + "}")
        #expect(first.status == 200)
        #expect(first.json["notificationHistory"]?.arrayValue?.count == 20)
        #expect(first.json["hasMore"]?.boolValue == true)
        let token = try #require(first.json["paginationToken"]?.stringValue)
        let second = await post(f, "/inApps/v1/notifications/history", range + "}", query: [("paginationToken", token)])
        #expect(second.json["notificationHistory"]?.arrayValue?.count == 2)
        #expect(second.json["hasMore"]?.boolValue == false)

        let subscribed = await post(f, "/inApps/v1/notifications/history", range + #","notificationType":"SUBSCRIBED"}"#)
        let items = try #require(subscribed.json["notificationHistory"]?.arrayValue)
        #expect(items.count == 1)
        let payload = try f.payload(try #require(items.first?["signedPayload"]?.stringValue))
        #expect(payload["subtype"]?.stringValue == "INITIAL_BUY")

        #expect(await post(f, "/inApps/v1/notifications/history", range + #","notificationType":"BOUGHT"}"#).errorCode == 4_000_018)
        #expect(await post(f, "/inApps/v1/notifications/history", range + #","notificationType":"SUBSCRIBED","transactionId":"\#(monthly)"}"#).errorCode == 4_000_019)
        #expect(await post(f, "/inApps/v1/notifications/history", #"{"endDate":1}"#).errorCode == 4_000_015)
        #expect(await post(f, "/inApps/v1/notifications/history", range + "}", query: [("paginationToken", "x")]).errorCode == 4_000_014)
    }

    @Test func aNotificationMadeWithoutAURLIsNotInTheHistoryOfWhatWasSent() async throws {
        let f = try APIFixture()
        try await f.buy(ID.coins)
        let now = Int64(await f.store.now().timeIntervalSince1970 * 1000)
        let history = await post(f, "/inApps/v1/notifications/history", #"{"startDate":\#(now - 60_000),"endDate":\#(now + 60_000)}"#)
        #expect(history.json["notificationHistory"]?.arrayValue?.isEmpty == true)
    }

    @Test("Apple's other notification types and subtypes are filters Get Notification History takes, though none is sent here")
    func notificationHistoryTakesEveryAppleType() async throws {
        let f = try APIFixture()
        let now = Int64(await f.store.now().timeIntervalSince1970 * 1000)
        for (type, subtype) in [("RENEWAL_EXTENSION", "SUMMARY"), ("EXTERNAL_PURCHASE_TOKEN", "UNREPORTED"), ("METADATA_UPDATE", nil),
                                ("MIGRATION", nil), ("PRICE_CHANGE", nil), ("RESCIND_CONSENT", nil), ("RENEWAL_EXTENSION", "FAILURE")] {
            let filter = #""notificationType":"\#(type)""# + (subtype.map { #","notificationSubtype":"\#($0)""# } ?? "")
            let response = await post(f, "/inApps/v1/notifications/history", #"{"startDate":\#(now - 60_000),"endDate":\#(now),\#(filter)}"#)
            #expect(response.status == 200, "\(type) \(subtype ?? ""): \(response.errorCode ?? 0)")
        }
        #expect(await post(f, "/inApps/v1/notifications/history", #"{"startDate":\#(now - 60_000),"endDate":\#(now),"notificationType":"NOPE"}"#)
            .errorCode == 4_000_018)
    }

    @Test("a transaction ID limits Get Notification History to the customer's notifications: no TEST")
    func notificationHistoryOfOneCustomerLeavesTestOut() async throws {
        let f = try APIFixture()
        await f.store.update { $0.notificationURL = "http://127.0.0.1:9/notify" }
        let coins = try await f.buy(ID.coins)
        _ = try await f.store.requestTestNotification()
        let now = Int64(await f.store.now().timeIntervalSince1970 * 1000)
        func types(_ filter: String) async throws -> [String] {
            let history = await post(f, "/inApps/v1/notifications/history", #"{"startDate":\#(now - 60_000),"endDate":\#(now + 1)\#(filter)}"#)
            return try (history.json["notificationHistory"]?.arrayValue ?? []).map {
                try f.payload(try #require($0["signedPayload"]?.stringValue))["notificationType"]?.stringValue ?? "?"
            }
        }
        #expect(try await types("") == ["ONE_TIME_CHARGE", "TEST"])
        #expect(try await types(#","transactionId":"\#(coins)""#) == ["ONE_TIME_CHARGE"])
    }

    @Test("the app transaction's ID is refused where an in-app purchase's is wanted: 4000048")
    func appTransactionIDIsNotAnInAppPurchase() async throws {
        let f = try APIFixture()
        try await f.buy(ID.coins)
        let app = await f.store.appTransactionID
        #expect(await f.get("/inApps/v1/transactions/\(app)").errorCode == 4_000_048)
        #expect(await post(f, "/inApps/v1/transactions/\(app)/finish", "").errorCode == 4_000_048)
        #expect(await f.put("/inApps/v1/transactions/\(app)/appAccountToken", #"{"appAccountToken":"\#(UUID())"}"#).errorCode == 4_000_048)
        let consumption = #"{"customerConsented":true,"sampleContentProvided":false,"deliveryStatus":"DELIVERED"}"#
        #expect(await f.put("/inApps/v2/transactions/consumption/\(app)", consumption).errorCode == 4_000_048)
        #expect(await f.get("/inApps/v1/transactions/0\(app)").errorCode == 4_000_048, "the same ID, written with a leading zero")
        let v1 = #"{"customerConsented":true,"sampleContentProvided":false,"consumptionStatus":1,"platform":1,"deliveryStatus":0,"#
            + #""accountTenure":1,"playTime":1,"lifetimeDollarsRefunded":0,"lifetimeDollarsPurchased":1,"userStatus":1,"appAccountToken":""}"#
        #expect(await f.put("/inApps/v1/transactions/consumption/\(app)", v1).errorCode == 4_000_048)
        #expect(await f.get("/inApps/v2/history/\(app)").status == 200, "history takes any of the customer's transaction IDs")
    }

    @Test("Set App Account Token answers Apple's codes: 4000006 for an ID that is not one, 404 4040005 for one not found")
    func setAppAccountTokenErrorCodes() async throws {
        let f = try APIFixture()
        let body = #"{"appAccountToken":"\#(UUID())"}"#
        #expect(await f.put("/inApps/v1/transactions/abc/appAccountToken", body).errorCode == 4_000_006)
        let missing = await f.put("/inApps/v1/transactions/2000000999/appAccountToken", body)
        #expect(missing.status == 404 && missing.errorCode == 4_040_005)
    }

    @Test("Send Consumption Information refuses what Apple's ConsumptionRequest does: a percentage for an auto-renewable subscription, a non-zero one undelivered, GRANT_PRORATED without one, a family member's")
    func consumptionRefusesWhatAppleDoes() async throws {
        let f = try APIFixture()
        let coins = try await f.buy(ID.coins), monthly = try await f.buy(ID.proMonthly)
        func send(_ id: Int64, _ fields: String) async -> HTTPResponse {
            await f.put("/inApps/v2/transactions/consumption/\(id)", #"{"customerConsented":true,"sampleContentProvided":false,"# + fields + "}")
        }
        let autoRenewable = await send(monthly, #""deliveryStatus":"DELIVERED","consumptionPercentage":5000"#)
        #expect(autoRenewable.status == 400 && autoRenewable.json["errorMessage"]?.stringValue?.hasPrefix("ConsumptionPercentageAutoRenewable") == true)
        #expect(await send(monthly, #""deliveryStatus":"DELIVERED","refundPreference":"GRANT_PRORATED""#).status == 202)
        let undelivered = await send(coins, #""deliveryStatus":"UNDELIVERED_OTHER","consumptionPercentage":5000"#)
        #expect(undelivered.json["errorMessage"]?.stringValue?.hasPrefix("UndeliveredConsumptionPercentageNonZero") == true)
        #expect(await send(coins, #""deliveryStatus":"UNDELIVERED_OTHER","consumptionPercentage":0"#).status == 202)
        let prorated = await send(coins, #""deliveryStatus":"DELIVERED","refundPreference":"GRANT_PRORATED""#)
        #expect(prorated.json["errorMessage"]?.stringValue?.hasPrefix("ConsumptionPercentageOutOfRange") == true)
        #expect(await send(coins, #""deliveryStatus":"DELIVERED","refundPreference":"GRANT_PRORATED","consumptionPercentage":40000"#).status == 202)
        try await f.store.buyOutsideApp(productID: ID.proYearly, familyShared: true)
        let family = try #require(await f.store.ledgerEntries(limit: 1).first?.id)
        #expect(await send(family, #""deliveryStatus":"DELIVERED""#).errorCode == 4_000_185)
    }

    @Test("Send Consumption Information v1 takes a consumable or an auto-renewable subscription only: 4000047")
    func consumptionV1RefusesOtherTypes() async throws {
        let f = try APIFixture()
        let removeAds = try await f.buy(ID.removeAds), coins = try await f.buy(ID.coins)
        let body = #"{"customerConsented":true,"sampleContentProvided":false,"consumptionStatus":1,"platform":1,"deliveryStatus":0,"#
            + #""accountTenure":1,"playTime":1,"lifetimeDollarsRefunded":0,"lifetimeDollarsPurchased":1,"userStatus":1,"appAccountToken":""}"#
        #expect(await f.put("/inApps/v1/transactions/consumption/\(removeAds)", body).errorCode == 4_000_047)
        #expect(await f.put("/inApps/v1/transactions/consumption/\(coins)", body).status == 202)
    }

    @Test("a subscription in its free trial, in billing retry or in a grace period gets no renewal-date extension: 403 4030004")
    func extensionIneligibleStates() async throws {
        let f = try APIFixture()
        let trial = try await f.buy(ID.plusMonthly)  // a week's free trial
        let body = #"{"extendByDays":3,"extendReasonCode":1,"requestIdentifier":"t"}"#
        let inTrial = await f.put("/inApps/v1/subscriptions/extend/\(trial)", body)
        #expect(inTrial.status == 403 && inTrial.errorCode == 4_030_004)
        try await f.store.advanceTime(by: Period(8, .day))
        #expect(await f.put("/inApps/v1/subscriptions/extend/\(trial)", #"{"extendByDays":3,"extendReasonCode":1,"requestIdentifier":"paid"}"#).status == 200)
        for grace in [true, false] {
            await f.store.update { $0.billingRetryOnRenewal = true; $0.gracePeriod = grace }
            try await f.store.advanceTime(by: Period(40, .day))  // past the renewal, extended or not: it fails
            let trouble = await f.put("/inApps/v1/subscriptions/extend/\(trial)", #"{"extendByDays":3,"extendReasonCode":1,"requestIdentifier":"g\#(grace)"}"#)
            #expect(trouble.errorCode == 4_030_004, "grace period: \(grace)")
            try await f.store.resolveBillingIssue(productID: ID.plusMonthly)
        }
    }

    @Test("the mass extension and its status take a UUID as the request identifier: 4000011")
    func massExtensionRequestIdentifierIsAUUID() async throws {
        let f = try APIFixture()
        try await f.buy(ID.proMonthly)
        let body = #"{"extendByDays":3,"extendReasonCode":1,"requestIdentifier":"mass-1","productId":"\#(ID.proMonthly)"}"#
        #expect(await post(f, "/inApps/v1/subscriptions/extend/mass", body).errorCode == 4_000_011)
        #expect(await f.get("/inApps/v1/subscriptions/extend/mass/\(ID.proMonthly)/mass-1").errorCode == 4_000_011)
        let id = UUID().uuidString.lowercased()
        #expect(await post(f, "/inApps/v1/subscriptions/extend/mass", body.replacingOccurrences(of: "mass-1", with: id)).status == 200)
        #expect(await f.get("/inApps/v1/subscriptions/extend/mass/\(ID.proMonthly)/\(id)").status == 200)
    }

    @Test("a mass extension ends with RENEWAL_EXTENSION SUMMARY, whose summary counts what succeeded and failed; each failure is RENEWAL_EXTENSION FAILURE")
    func massExtensionSummaryNotification() async throws {
        let f = try APIFixture()
        let monthly = try await f.buy(ID.proMonthly)
        for n in 1...2 {  // at most twice a year: the mass extension fails for it
            #expect(await f.put("/inApps/v1/subscriptions/extend/\(monthly)", #"{"extendByDays":1,"extendReasonCode":0,"requestIdentifier":"r\#(n)"}"#).status == 200)
        }
        let id = UUID().uuidString.lowercased()
        let body = #"{"extendByDays":3,"extendReasonCode":1,"requestIdentifier":"\#(id)","productId":"\#(ID.proMonthly)","storefrontCountryCodes":["USA"]}"#
        #expect(await post(f, "/inApps/v1/subscriptions/extend/mass", body).status == 200)
        let notices = await f.store.notifications().suffix(2)
        #expect(notices.map { [$0.type, $0.subtype ?? ""].joined(separator: " ") } == ["RENEWAL_EXTENSION FAILURE", "RENEWAL_EXTENSION SUMMARY"])
        let signed = try f.payload(try #require(notices.last?.signedPayload))
        #expect(signed["data"] == nil)
        let summary = try #require(signed["summary"])
        #expect(summary["requestIdentifier"]?.stringValue == id && summary["productId"]?.stringValue == ID.proMonthly)
        #expect(summary["succeededCount"]?.intValue == 0 && summary["failedCount"]?.intValue == 1)
        #expect(summary["storefrontCountryCodes"] == ["USA"] && summary["bundleId"]?.stringValue == Repo.catalog.app.bundleID)
        #expect(try f.payload(try #require(notices.first?.signedPayload))["data"]?["signedTransactionInfo"] != nil)
    }

    @Test("two mass extensions with one request identifier at once extend and notify once")
    func massExtensionRetriedAtOnceRunsOnce() async throws {
        let f = try APIFixture()
        try await f.buy(ID.proMonthly)
        let body = #"{"extendByDays":3,"extendReasonCode":1,"requestIdentifier":"\#(UUID().uuidString)","productId":"\#(ID.proMonthly)"}"#
        async let first = post(f, "/inApps/v1/subscriptions/extend/mass", body)
        async let second = post(f, "/inApps/v1/subscriptions/extend/mass", body)
        #expect(await [first.status, second.status] == [200, 200])
        #expect(await f.store.notifications().filter { $0.type == "RENEWAL_EXTENSION" || $0.type == "RENEWAL_EXTENDED" }.count == 2)
    }

    @Test func extendingARenewalDateNotifiesRenewalExtended() async throws {
        let f = try APIFixture()
        let monthly = try await f.buy(ID.proMonthly)
        #expect(await f.put("/inApps/v1/subscriptions/extend/\(monthly)", #"{"extendByDays":3,"extendReasonCode":2,"requestIdentifier":"x"}"#).status == 200)
        #expect(await f.store.notifications().last?.type == "RENEWAL_EXTENDED")
    }

    // MARK: Transport-level answers

    @Test func aRequestWithoutAValidTokenGets401AndNothingElse() async throws {
        let f = try APIFixture(authorized: false)
        let response = await f.get("/inApps/v1/transactions/1")
        #expect(response.status == 401)
    }

    @Test func anUnknownEndpointIs404WithAJSONBodyAndAWrongMethodIs405() async throws {
        let f = try APIFixture()
        let unknown = await f.get("/inApps/v9/nothing")
        #expect(unknown.status == 404)
        #expect(unknown.headers["content-type"] == "application/json")
        #expect(unknown.json["errorMessage"]?.stringValue?.contains("/inApps/v9/nothing") == true)
        let wrong = await f.api.respond(to: HTTPRequest(method: "DELETE", path: "/inApps/v1/transactions/5"))
        #expect(wrong.status == 405)
        #expect(wrong.headers["allow"] == "GET")
        #expect(unknown.errorCode == 4_040_000 && wrong.errorCode == 4_050_000, "Apple's client raises an APIException carrying the code")
    }

    @Test func aLiteralPathWinsOverAnArgumentInTheSamePlace() async throws {
        let f = try APIFixture()
        // `extend/mass` is the mass extension's, never the one extension's `extend/{id}`.
        let mass = await f.api.respond(to: HTTPRequest(method: "POST", path: "/inApps/v1/subscriptions/extend/mass", body: Data("{}".utf8)))
        #expect(mass.errorCode == 4_000_009)
        #expect(await f.put("/inApps/v1/subscriptions/extend/mass", "{}").errorCode == 4_000_008, "PUT takes an original transaction ID there")
    }
}
