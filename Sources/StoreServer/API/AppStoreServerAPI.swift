import Foundation
import StoreCore
import StoreEngine

/// The App Store Server API, answered from the local store: every endpoint Apple's
/// `AppStoreServerAPIClient` (3.1.2) calls, with Apple's paths, JSON and error codes.
public struct AppStoreServerAPI: Sendable {
    public let store: LocalAppStore
    /// Checks the request's bearer token (see `APIAuthenticator`): nil lets it through, else the refusal (401).
    let authenticate: @Sendable (HTTPRequest) -> HTTPResponse?

    public init(store: LocalAppStore, authenticate: @escaping @Sendable (HTTPRequest) -> HTTPResponse?) {
        self.store = store
        self.authenticate = authenticate
    }

    /// Every request passes the bearer-token check, then the route table.
    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        await Self.guarded(by: authenticate)({ await self.route($0) })(request)
    }

    func route(_ request: HTTPRequest) async -> HTTPResponse {
        do {
            switch RouteMatch(request, in: Self.routes) {
            case .found(let route, let arguments): return try await route.answer(self, arguments, request)
            case .wrongMethod(let allowed): throw APIError.methodNotAllowed(request.method, request.path, allowed: allowed)
            case .none: throw APIError.noSuchEndpoint(request.method, request.path)
            }
        } catch let error as APIError {
            return error.response
        } catch {
            return APIError.internalError("\(error)").response
        }
    }

    /// The App Store Server API, one row per endpoint (the methods of Apple's client in comments).
    static let routes: [Route] = [
        // Transactions
        Route("GET", "/inApps/v1/transactions/{}") { api, a, _ in try await api.transactionInfo(a[0]) },                 // get_transaction_info
        Route("GET", "/inApps/v1/transactions/appTransactions/{}") { api, a, _ in try await api.appTransactionInfo(a[0]) }, // get_app_transaction_info
        Route("POST", "/inApps/v1/transactions/{}/finish") { api, a, _ in try await api.finishTransaction(a[0]) },         // finish_transaction
        Route("PUT", "/inApps/v1/transactions/{}/appAccountToken") { api, a, r in try await api.setAppAccountToken(a[0], r) }, // set_app_account_token
        Route("GET", "/inApps/v1/history/{}") { api, a, r in try await api.transactionHistory(a[0], r, version: 1) },      // get_transaction_history(V1)
        Route("GET", "/inApps/v2/history/{}") { api, a, r in try await api.transactionHistory(a[0], r, version: 2) },      // get_transaction_history(V2)
        Route("GET", "/inApps/v1/lookup/{}") { api, a, _ in await api.lookUpOrder(a[0]) },                                   // look_up_order_id
        Route("GET", "/inApps/v2/refund/lookup/{}") { api, a, r in try await api.refundHistory(a[0], r) },                 // get_refund_history
        Route("PUT", "/inApps/v1/transactions/consumption/{}") { api, a, r in try await api.sendConsumptionV1(a[0], r) },  // send_consumption_data
        Route("PUT", "/inApps/v2/transactions/consumption/{}") { api, a, r in try await api.sendConsumption(a[0], r) },    // send_consumption_information
        // Subscriptions
        Route("GET", "/inApps/v1/subscriptions/{}") { api, a, r in try await api.subscriptionStatuses(a[0], r) },          // get_all_subscription_statuses
        Route("PUT", "/inApps/v1/subscriptions/extend/{}") { api, a, r in try await api.extendRenewalDate(a[0], r) },      // extend_subscription_renewal_date
        Route("POST", "/inApps/v1/subscriptions/extend/mass") { api, _, r in try await api.extendRenewalDates(r) },        // extend_renewal_date_for_all_active_subscribers
        Route("GET", "/inApps/v1/subscriptions/extend/mass/{}/{}") { api, a, _ in try await api.massExtensionStatus(a[0], a[1]) }, // get_status_of_subscription_renewal_date_extensions
        // Notifications
        Route("POST", "/inApps/v1/notifications/test") { api, _, _ in try await api.requestTestNotification() },           // request_test_notification
        Route("GET", "/inApps/v1/notifications/test/{}") { api, a, _ in try await api.testNotificationStatus(a[0]) },      // get_test_notification_status
        Route("POST", "/inApps/v1/notifications/history") { api, _, r in try await api.notificationHistory(r) },           // get_notification_history
        // Retention messaging
        Route("PUT", "/inApps/v1/messaging/image/{}") { api, a, r in try await api.uploadImage(a[0], r) },                 // upload_image
        Route("DELETE", "/inApps/v1/messaging/image/{}") { api, a, _ in try await api.deleteImage(a[0]) },                 // delete_image
        Route("GET", "/inApps/v1/messaging/image/list") { api, _, _ in await api.imageList() },                             // get_image_list
        Route("PUT", "/inApps/v1/messaging/message/{}") { api, a, r in try await api.uploadMessage(a[0], r) },             // upload_message
        Route("DELETE", "/inApps/v1/messaging/message/{}") { api, a, _ in try await api.deleteMessage(a[0]) },             // delete_message
        Route("GET", "/inApps/v1/messaging/message/list") { api, _, _ in await api.messageList() },                         // get_message_list
        Route("PUT", "/inApps/v1/messaging/default/{}/{}") { api, a, r in try await api.configureDefaultMessage(a[0], a[1], r) }, // configure_default_message
        Route("GET", "/inApps/v1/messaging/default/{}/{}") { api, a, _ in try await api.defaultMessage(a[0], a[1]) },      // get_default_message
        Route("DELETE", "/inApps/v1/messaging/default/{}/{}") { api, a, _ in try await api.deleteDefaultMessage(a[0], a[1]) }, // delete_default_message
        Route("PUT", "/inApps/v1/messaging/realtime/url") { api, _, r in try await api.configureRealtimeURL(r) },          // configure_realtime_url
        Route("GET", "/inApps/v1/messaging/realtime/url") { api, _, _ in try await api.realtimeURL() },                    // get_realtime_url
        Route("DELETE", "/inApps/v1/messaging/realtime/url") { api, _, _ in try await api.deleteRealtimeURL() },           // delete_realtime_url
        Route("POST", "/inApps/v1/messaging/performanceTest") { api, _, r in try await api.initiatePerformanceTest(r) },    // initiate_performance_test
        Route("GET", "/inApps/v1/messaging/performanceTest/result/{}") { api, a, _ in try await api.performanceTestResult(a[0]) }, // get_performance_test_results
    ]

    // MARK: Helpers

    static func transactionID(_ text: String) throws(APIError) -> Int64 {
        guard text.utf8.allSatisfy({ (48...57).contains($0) }), let id = Int64(text), id > 0 else { throw .invalidTransactionID() }
        return id
    }

    /// An in-app purchase's transaction ID: the app transaction's is refused (`4000048`), as Apple's endpoints
    /// that take one transaction refuse it.
    func inAppTransactionID(_ text: String) async throws -> Int64 {
        let id = try Self.transactionID(text)
        if await store.appTransactionID == String(id) { throw APIError.appTransactionIDNotSupported() }
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

    /// 200 with no body, as Apple answers the endpoints whose client method returns nothing.
    static let done = HTTPResponse(status: 200)
}

extension Optional {
    func asyncFlatMap<U>(_ transform: (Wrapped) async -> U?) async -> U? {
        guard let self else { return nil }
        return await transform(self)
    }
}
