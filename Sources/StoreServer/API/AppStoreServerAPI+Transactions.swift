import Foundation
import StoreCore
import StoreEngine

/// The transaction endpoints: info, history (v1 and v2), order lookup, refunds, consumption (v1 and
/// v2), Finish Transaction and Set App Account Token.
extension AppStoreServerAPI {
    func transactionInfo(_ text: String) async throws -> HTTPResponse {
        guard let jws = await store.serverSignedTransaction(id: try await inAppTransactionID(text)) else { throw APIError.transactionIDNotFound() }
        return ok(["signedTransactionInfo": .string(jws)] as JSONValue)
    }

    func appTransactionInfo(_ text: String) async throws -> HTTPResponse {
        try await requireCustomer(text)
        return ok(["signedAppTransactionInfo": .string(try await store.serverAppTransaction())] as JSONValue)
    }

    /// Get Transaction History. Version 1 leaves out the consumables the app finished (unless refunded
    /// or revoked), as Apple's v1 does; version 2 lists every transaction.
    func transactionHistory(_ text: String, _ request: HTTPRequest, version: Int) async throws -> HTTPResponse {
        try await requireCustomer(text)
        let query = try HistoryQuery(request)
        let page = await store.serverHistoryPage(after: query.after.map { .init(date: $0.date, id: $0.id) }, ascending: query.ascending,
                                                 size: Page<Void>.size) { transaction in
            query.matches(transaction.payload)
                && (version > 1 || transaction.payload.productType != .consumable || !transaction.finished || transaction.payload.isRevoked)
        }
        let end = page.items.last.map { HistoryQuery.position($0.payload) } ?? query.after ?? (query.ascending ? .start : .end)
        return try await ok(envelope() + [
            ("revision", .string(end.token)), ("hasMore", .bool(page.hasMore)),
            ("signedTransactions", .array(page.items.map { .string($0.jws) })),
        ])
    }

    func lookUpOrder(_ orderID: String) async -> HTTPResponse {
        let transaction = await OrderID.transactionID(of: orderID).asyncFlatMap { await store.serverTransaction(id: $0) }
        // Apple: a response whose status is 1 (invalid) "doesn't contain a signed transactions array".
        guard let transaction else { return ok(["status": .number("1")] as JSONValue) }
        return ok(["status": .number("0"), "signedTransactions": .array([.string(transaction.jws)])] as JSONValue)
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

    /// Finish Transaction: the backend says it delivered the content, as the app's `finish()` would.
    func finishTransaction(_ text: String) async throws -> HTTPResponse {
        let id = try await inAppTransactionID(text)
        guard await store.serverTransaction(id: id) != nil else { throw APIError.transactionIDNotFound() }
        await store.finish(transactionID: id)
        return Self.done
    }

    /// Set App Account Token: on an original transaction (not a family member's), a UUID. Apple's codes for
    /// it: 4000006 for an ID that is not one, 4040005 for one not found.
    func setAppAccountToken(_ text: String, _ request: HTTPRequest) async throws -> HTTPResponse {
        let originalID = try await inAppTransactionID(text)
        let body = try Self.jsonObject(request)
        guard let token = body["appAccountToken"]?.stringValue.flatMap(UUID.init(uuidString:)) else { throw APIError.invalidAppAccountTokenUUID() }
        do {
            try await store.setAppAccountToken(originalTransactionID: originalID, token: token)
        } catch let failure as LocalAppStore.AppAccountTokenFailure {
            switch failure {
            case .notFound: throw APIError.originalTransactionIDNotFound()
            case .notOriginalTransaction: throw APIError.notOriginalTransactionID()
            case .familyShared: throw APIError.familyTransactionNotSupported()
            }
        }
        return Self.done
    }

    // MARK: Consumption

    static let deliveryStatuses: Set<String> = ["DELIVERED", "UNDELIVERED_QUALITY_ISSUE", "UNDELIVERED_WRONG_ITEM", "UNDELIVERED_SERVER_OUTAGE", "UNDELIVERED_OTHER"]
    static let refundPreferences: Set<String> = ["DECLINE", "GRANT_FULL", "GRANT_PRORATED"]

    /// Send Consumption Information (v2): checked field by field as Apple does, recorded for the tester, answered 202.
    func sendConsumption(_ text: String, _ request: HTTPRequest) async throws -> HTTPResponse {
        let id = try await inAppTransactionID(text)
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
        return try await record(body, for: id) { try Self.checkConsumption(body, of: $0) }
    }

    /// What Apple's ConsumptionRequest allows for the transaction it is about.
    static func checkConsumption(_ body: JSONValue, of transaction: TransactionPayload) throws {
        guard transaction.ownership != .familyShared else { throw APIError.familyTransactionNotSupported() }
        let percentage = body["consumptionPercentage"]?.intValue
        if percentage != nil, transaction.productType == .autoRenewable {
            throw APIError.unnumbered("ConsumptionPercentageAutoRenewableSubscriptionError",
                                      "the system computes an auto-renewable subscription's consumption; leave consumptionPercentage out.")
        }
        if let percentage, percentage != 0, body["deliveryStatus"]?.stringValue != "DELIVERED" {
            throw APIError.unnumbered("UndeliveredConsumptionPercentageNonZeroError", "consumptionPercentage must be 0 when deliveryStatus is not DELIVERED.")
        }
        if body["refundPreference"]?.stringValue == "GRANT_PRORATED", transaction.productType != .autoRenewable, (percentage ?? 0) <= 0 {
            throw APIError.unnumbered("ConsumptionPercentageOutOfRangeError", "GRANT_PRORATED needs a consumptionPercentage greater than 0.")
        }
    }

    /// Send Consumption Information v1 (`send_consumption_data`): Apple's integer fields, each in its
    /// range or the error Apple names for it; `refundPreference` may be left out.
    static let consumptionV1Fields: [(name: String, values: ClosedRange<Int>, error: @Sendable () -> APIError)] = [
        ("consumptionStatus", 0...3, APIError.invalidConsumptionStatus), ("platform", 0...2, APIError.invalidPlatform),
        ("deliveryStatus", 0...5, APIError.invalidDeliveryStatus), ("accountTenure", 0...7, APIError.invalidAccountTenure),
        ("playTime", 0...7, APIError.invalidPlayTime), ("lifetimeDollarsRefunded", 0...7, APIError.invalidLifetimeDollarsRefunded),
        ("lifetimeDollarsPurchased", 0...7, APIError.invalidLifetimeDollarsPurchased), ("userStatus", 0...4, APIError.invalidUserStatus),
    ]

    func sendConsumptionV1(_ text: String, _ request: HTTPRequest) async throws -> HTTPResponse {
        let id = try await inAppTransactionID(text)
        let body = try Self.jsonObject(request)
        guard body["customerConsented"]?.boolValue == true else { throw APIError.invalidCustomerConsented() }
        guard body["sampleContentProvided"]?.boolValue != nil else { throw APIError.invalidSampleContentProvided() }
        for field in Self.consumptionV1Fields {
            guard let value = body[field.name]?.intValue, field.values.contains(value) else { throw field.error() }
        }
        guard let token = body["appAccountToken"]?.stringValue, token.isEmpty || UUID(uuidString: token) != nil else {
            throw APIError.invalidAppAccountToken()
        }
        if let preference = body["refundPreference"], !(preference.intValue.map { (0...3).contains($0) } ?? false) {
            throw APIError.body("refundPreference must be an integer from 0 to 3")
        }
        return try await record(body, for: id) { transaction in
            // Apple's v1 is for "a consumable In-App Purchase or auto-renewable subscription".
            guard transaction.productType == .consumable || transaction.productType == .autoRenewable else {
                throw APIError.transactionTypeNotSupported()
            }
        }
    }

    /// Records what the body says of transaction `id` once `check` allows it for that transaction.
    private func record(_ body: JSONValue, for id: Int64, check: (TransactionPayload) throws -> Void) async throws -> HTTPResponse {
        guard let transaction = await store.serverTransaction(id: id)?.payload else { throw APIError.transactionIDNotFound() }
        try check(transaction)
        try await store.recordConsumption(transactionID: id, information: body)
        return HTTPResponse(status: 202)
    }
}
