import Foundation
import StoreCore
import StoreEngine

/// The subscription endpoints: statuses, one renewal-date extension, and the mass extension and its status.
extension AppStoreServerAPI {
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

    /// The fields both extensions take, checked in Apple's order: days, reason, request identifier.
    static func extensionTerms(_ body: JSONValue) throws -> (days: Int, reason: Int, requestID: String) {
        guard let days = body["extendByDays"]?.intValue, (1...90).contains(days) else { throw APIError.invalidExtendByDays() }
        guard let reason = body["extendReasonCode"]?.intValue, (0...3).contains(reason) else { throw APIError.invalidExtendReasonCode() }
        guard let requestID = body["requestIdentifier"]?.stringValue, (1...128).contains(requestID.count) else {
            throw APIError.invalidRequestIdentifier()
        }
        return (days, reason, requestID)
    }

    func extendRenewalDate(_ text: String, _ request: HTTPRequest) async throws -> HTTPResponse {
        guard let originalID = Int64(text), originalID > 0 else { throw APIError.invalidOriginalTransactionID() }
        let terms = try Self.extensionTerms(try Self.jsonObject(request))
        do {
            let extended = try await store.extendRenewalDate(originalTransactionID: originalID, days: terms.days, reasonCode: terms.reason,
                                                             requestID: terms.requestID)
            var fields: [(String, JSONValue)] = [("originalTransactionId", .string(String(extended.originalTransactionID)))]
            if let line = extended.webOrderLineItemID { fields.append(("webOrderLineItemId", .string(line))) }
            fields += [("success", .bool(true)), ("effectiveDate", .number(String(extended.effectiveDate.milliseconds)))]
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

    /// Extend Subscription Renewal Dates for All Active Subscribers: done at once, its status kept
    /// under the product and request identifier; a request identifier seen before extends nothing again.
    func extendRenewalDates(_ request: HTTPRequest) async throws -> HTTPResponse {
        let body = try Self.jsonObject(request)
        let terms = try Self.extensionTerms(body)
        // Apple: for the mass extension and its status, "the requestIdentifier needs to be a UUID".
        guard UUID(uuidString: terms.requestID) != nil else { throw APIError.invalidRequestIdentifier() }
        guard let productID = body["productId"]?.stringValue, await store.catalog.product(productID)?.subscription != nil else {
            throw APIError.invalidProductID()
        }
        var storefronts: Set<String>?
        if let codes = body["storefrontCountryCodes"] {
            guard case .array(let items) = codes, !items.isEmpty else { throw APIError.invalidEmptyStorefrontCountryCodeList() }
            storefronts = try Set(items.map { item throws(APIError) in
                guard let code = item.stringValue, code.count == 3, code.allSatisfy({ $0.isASCII && $0.isUppercase }) else {
                    throw .invalidStorefrontCountryCode()
                }
                return code
            })
        }
        try await store.extendRenewalDates(productID: productID, days: terms.days, reasonCode: terms.reason,
                                           requestID: terms.requestID, storefronts: storefronts)
        return ok(["requestIdentifier": .string(terms.requestID)] as JSONValue)
    }

    func massExtensionStatus(_ productID: String, _ requestID: String) async throws -> HTTPResponse {
        guard UUID(uuidString: requestID) != nil else { throw APIError.invalidRequestIdentifier() }
        guard let text = await store.serverRecord(.massExtension, id: productID + "/" + requestID) else { throw APIError.statusRequestNotFound() }
        return .json(200, text)
    }
}

extension Date {
    /// Milliseconds since 1970, as the App Store's JSON holds dates.
    var milliseconds: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }
}
