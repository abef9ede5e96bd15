import Foundation
import StoreCore
import StoreEngine

/// The App Store Server API, answered from the local store: the endpoints a backend calls, with
/// Apple's paths, JSON and error codes, so Apple's own `AppStoreServerAPIClient` works against it.
public struct AppStoreServerAPI: Sendable {
    public let store: LocalAppStore
    /// Checks the request's bearer token (see `APIAuthenticator`): nil lets it through, else the refusal (401).
    let authenticate: @Sendable (HTTPRequest) -> HTTPResponse?

    public init(store: LocalAppStore, authenticate: @escaping @Sendable (HTTPRequest) -> HTTPResponse?) {
        self.store = store
        self.authenticate = authenticate
    }

    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        if let refusal = authenticate(request) { return refusal }
        do {
            let matches = Self.endpoints.compactMap { endpoint in endpoint.argument(in: request.path).map { (endpoint, $0) } }
            guard !matches.isEmpty else { throw APIError.noSuchEndpoint(request.method, request.path) }
            guard let (endpoint, argument) = matches.first(where: { $0.0.method == request.method }) else {
                return HTTPResponse(status: 405, headers: ["allow": matches.map(\.0.method).joined(separator: ", ")])
            }
            return try await endpoint.answer(self, argument, request)
        } catch let error as APIError {
            return error.response
        } catch {
            return APIError.internalError("\(error)").response
        }
    }

    struct Endpoint: Sendable {
        var method: String
        /// Path segments; `{}` stands for the one argument.
        var pattern: [Substring]
        var answer: @Sendable (AppStoreServerAPI, String, HTTPRequest) async throws -> HTTPResponse

        init(_ method: String, _ path: String, _ answer: @escaping @Sendable (AppStoreServerAPI, String, HTTPRequest) async throws -> HTTPResponse) {
            self.method = method
            self.pattern = path.split(separator: "/")
            self.answer = answer
        }

        /// The path's argument when it matches ("" for a path without one); nil otherwise.
        func argument(in path: String) -> String? {
            let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
            guard segments.count == pattern.count else { return nil }
            var argument = ""
            for (segment, expected) in zip(segments, pattern) {
                if expected == "{}" {
                    // The path arrives as sent: its argument is percent-decoded here (the query already is).
                    guard !segment.isEmpty, let decoded = String(segment).removingPercentEncoding else { return nil }
                    argument = decoded
                } else if segment != expected {
                    return nil
                }
            }
            return argument
        }
    }

    static let endpoints: [Endpoint] = [
        Endpoint("GET", "/inApps/v1/transactions/{}") { api, id, _ in try await api.transactionInfo(id) },
        Endpoint("GET", "/inApps/v1/transactions/appTransactions/{}") { api, id, _ in try await api.appTransactionInfo(id) },
        Endpoint("GET", "/inApps/v2/history/{}") { api, id, request in try await api.transactionHistory(id, request) },
        Endpoint("GET", "/inApps/v1/subscriptions/{}") { api, id, request in try await api.subscriptionStatuses(id, request) },
        Endpoint("GET", "/inApps/v1/lookup/{}") { api, order, _ in await api.lookUpOrder(order) },
        Endpoint("GET", "/inApps/v2/refund/lookup/{}") { api, id, request in try await api.refundHistory(id, request) },
        Endpoint("PUT", "/inApps/v2/transactions/consumption/{}") { api, id, request in try await api.sendConsumption(id, request) },
        Endpoint("PUT", "/inApps/v1/subscriptions/extend/{}") { api, id, request in try await api.extendRenewalDate(id, request) },
        Endpoint("POST", "/inApps/v1/notifications/test") { api, _, _ in try await api.requestTestNotification() },
        Endpoint("GET", "/inApps/v1/notifications/test/{}") { api, token, _ in try await api.testNotificationStatus(token) },
        Endpoint("POST", "/inApps/v1/notifications/history") { api, _, request in try await api.notificationHistory(request) },
    ]

    // MARK: Transactions

    func transactionInfo(_ text: String) async throws -> HTTPResponse {
        guard let transaction = await store.serverTransaction(id: try Self.transactionID(text)) else { throw APIError.transactionIDNotFound() }
        return ok(["signedTransactionInfo": .string(transaction.jws)] as JSONValue)
    }

    func appTransactionInfo(_ text: String) async throws -> HTTPResponse {
        try await requireCustomer(text)
        return ok(["signedAppTransactionInfo": .string(try await store.serverAppTransaction())] as JSONValue)
    }

    func transactionHistory(_ text: String, _ request: HTTPRequest) async throws -> HTTPResponse {
        try await requireCustomer(text)
        let query = try HistoryQuery(request)
        let matching = await store.serverHistory().filter { query.matches($0.payload) }
        let page = Page(matching, position: { HistoryQuery.position($0.payload) }, after: query.after, ascending: query.ascending)
        return try await ok(envelope() + [
            ("revision", .string(page.position.token)), ("hasMore", .bool(page.hasMore)),
            ("signedTransactions", .array(page.items.map { .string($0.jws) })),
        ])
    }

    func lookUpOrder(_ orderID: String) async -> HTTPResponse {
        let transaction = await OrderID.transactionID(of: orderID).asyncFlatMap { await store.serverTransaction(id: $0) }
        return ok(["status": .number(transaction == nil ? "1" : "0"),
                   "signedTransactions": .array(transaction.map { [.string($0.jws)] } ?? [])] as JSONValue)
    }

    /// Refunded purchases (a family member losing access is a revocation, not a refund), in the order refunded.
    func refundHistory(_ text: String, _ request: HTTPRequest) async throws -> HTTPResponse {
        try await requireCustomer(text)
        let after = try request.queryValues("revision").last.map { token throws(APIError) in
            guard let position = PagePosition(token: token) else { throw .invalidRequestRevision() }
            return position
        }
        let refunded = await store.serverHistory().filter {
            $0.payload.revocationType == .refundFull || $0.payload.revocationType == .refundProrated
        }
        let page = Page(refunded, position: {
            PagePosition(date: Int64(($0.payload.revocationDate ?? .distantPast).timeIntervalSince1970 * 1000), id: $0.payload.transactionID)
        }, after: after)
        return ok(["signedTransactions": .array(page.items.map { .string($0.jws) }),
                   "revision": .string(page.position.token), "hasMore": .bool(page.hasMore)] as JSONValue)
    }

    // MARK: Subscriptions

    static let statusCodes: [SubscriptionState: Int] = [.subscribed: 1, .expired: 2, .inBillingRetryPeriod: 3, .inGracePeriod: 4, .revoked: 5]

    func subscriptionStatuses(_ text: String, _ request: HTTPRequest) async throws -> HTTPResponse {
        try await requireCustomer(text)
        var wanted = Set<Int>()
        for value in request.queryValues("status") {
            guard let code = Int(value), Self.statusCodes.values.contains(code) else { throw APIError.invalidStatus() }
            wanted.insert(code)
        }
        let subscriptions = try await store.serverSubscriptions().filter { wanted.isEmpty || wanted.contains(Self.statusCodes[$0.state]!) }
        let groups = Dictionary(grouping: subscriptions, by: \.groupID).sorted { $0.key < $1.key }
        let data: [JSONValue] = groups.map { group, members in
            ["subscriptionGroupIdentifier": .string(group), "lastTransactions": .array(members.map { member in
                ["status": .number(String(Self.statusCodes[member.state]!)), "originalTransactionId": .string(String(member.originalTransactionID)),
                 "signedTransactionInfo": .string(member.signedTransaction), "signedRenewalInfo": .string(member.signedRenewalInfo)]
            })]
        }
        return try await ok(envelope() + [("data", .array(data))])
    }

    func extendRenewalDate(_ text: String, _ request: HTTPRequest) async throws -> HTTPResponse {
        guard let originalID = Int64(text), originalID > 0 else { throw APIError.invalidOriginalTransactionID() }
        let body = try Self.jsonObject(request)
        guard let days = body["extendByDays"]?.intValue, (1...90).contains(days) else { throw APIError.invalidExtendByDays() }
        guard let reason = body["extendReasonCode"]?.intValue, (0...3).contains(reason) else { throw APIError.invalidExtendReasonCode() }
        guard let requestID = body["requestIdentifier"]?.stringValue, (1...128).contains(requestID.count) else {
            throw APIError.invalidRequestIdentifier()
        }
        do {
            let extended = try await store.extendRenewalDate(originalTransactionID: originalID, days: days, reasonCode: reason, requestID: requestID)
            var fields: [(String, JSONValue)] = [("originalTransactionId", .string(String(extended.originalTransactionID)))]
            if let line = extended.webOrderLineItemID { fields.append(("webOrderLineItemId", .string(line))) }
            fields += [("success", .bool(true)), ("effectiveDate", .number(String(Int64(extended.effectiveDate.timeIntervalSince1970 * 1000))))]
            return ok(fields)
        } catch let failure as LocalAppStore.RenewalExtensionFailure {
            switch failure {
            case .notFound: throw APIError.originalTransactionIDNotFound()
            case .notOriginalTransaction: throw APIError.notOriginalTransactionID()
            case .familyShared: throw APIError.familySharedSubscriptionExtensionIneligible()
            case .ineligible: throw APIError.subscriptionExtensionIneligible()
            case .tooManyExtensions: throw APIError.subscriptionMaxExtension()
            }
        }
    }

    // MARK: Consumption

    static let deliveryStatuses: Set<String> = ["DELIVERED", "UNDELIVERED_QUALITY_ISSUE", "UNDELIVERED_WRONG_ITEM", "UNDELIVERED_SERVER_OUTAGE", "UNDELIVERED_OTHER"]
    static let refundPreferences: Set<String> = ["DECLINE", "GRANT_FULL", "GRANT_PRORATED"]

    /// Send Consumption Information (v2): checked field by field as Apple does, recorded for the tester, answered 202.
    func sendConsumption(_ text: String, _ request: HTTPRequest) async throws -> HTTPResponse {
        let id = try Self.transactionID(text)
        let body = try Self.jsonObject(request)
        guard body["customerConsented"]?.boolValue == true else { throw APIError.invalidCustomerConsented() }
        guard body["sampleContentProvided"]?.boolValue != nil else { throw APIError.invalidSampleContentProvided() }
        guard let delivery = body["deliveryStatus"]?.stringValue, Self.deliveryStatuses.contains(delivery) else {
            throw APIError.invalidDeliveryStatus()
        }
        if let preference = body["refundPreference"], !(preference.stringValue.map(Self.refundPreferences.contains) ?? false) {
            throw APIError.body("refundPreference must be one of \(Self.refundPreferences.sorted().joined(separator: ", "))")
        }
        if let percentage = body["consumptionPercentage"], !(percentage.intValue.map { (0...100_000).contains($0) } ?? false) {
            throw APIError.body("consumptionPercentage must be an integer from 0 to 100000 (thousandths of a percent)")
        }
        guard await store.serverTransaction(id: id) != nil else { throw APIError.transactionIDNotFound() }
        try await store.recordConsumption(transactionID: id, information: body)
        return HTTPResponse(status: 202)
    }

    // MARK: Helpers

    static func transactionID(_ text: String) throws(APIError) -> Int64 {
        guard text.utf8.allSatisfy({ (48...57).contains($0) }), let id = Int64(text), id > 0 else { throw .invalidTransactionID() }
        return id
    }

    /// "Any transaction ID" of the customer's (a transaction, an original transaction, the app transaction).
    func requireCustomer(_ text: String) async throws {
        guard await store.identifiesCustomer(try Self.transactionID(text)) else { throw APIError.transactionIDNotFound() }
    }

    static func jsonObject(_ request: HTTPRequest) throws -> JSONValue {
        let body: JSONValue
        do { body = try JSONParser.parse(request.body) } catch { throw APIError.body("not JSON (\(error))") }
        guard case .object = body else { throw APIError.body("expected a JSON object") }
        return body
    }

    /// The fields every list response opens with.
    func envelope() async throws -> [(String, JSONValue)] {
        var fields: [(String, JSONValue)] = [("environment", .string(await store.environment)), ("bundleId", .string(await store.bundleID))]
        if let appAppleID = await store.appAppleID { fields.append(("appAppleId", .number(String(appAppleID)))) }
        return fields
    }

    func ok(_ body: JSONValue) -> HTTPResponse { .json(200, body.compact) }

    func ok(_ fields: [(String, JSONValue)]) -> HTTPResponse { ok(.object(fields.map { (key: $0.0, value: $0.1) })) }
}

extension Optional {
    func asyncFlatMap<U>(_ transform: (Wrapped) async -> U?) async -> U? {
        guard let self else { return nil }
        return await transform(self)
    }
}
