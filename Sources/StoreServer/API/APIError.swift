import StoreCore

/// An App Store Server API error: the HTTP status and the `{errorCode, errorMessage}` body Apple's
/// server answers with (the codes of Apple's `APIError`; its client reads them only from a JSON body).
struct APIError: Error, Equatable {
    var status: Int
    var code: Int?
    var message: String

    var response: HTTPResponse {
        var body: [(key: String, value: JSONValue)] = []
        if let code { body.append((key: "errorCode", value: .number(String(code)))) }
        body.append((key: "errorMessage", value: .string(message)))
        return .json(status, JSONValue.object(body).compact)
    }

    static func badRequest(_ code: Int, _ message: String) -> APIError { APIError(status: 400, code: code, message: message) }

    static let generalBadRequest = 4_000_000
    static func invalidRequestRevision() -> APIError { badRequest(4_000_005, "Invalid request revision.") }
    static func invalidTransactionID() -> APIError { badRequest(4_000_006, "Invalid transaction id.") }
    static func invalidOriginalTransactionID() -> APIError { badRequest(4_000_008, "Invalid original transaction id.") }
    static func invalidExtendByDays() -> APIError { badRequest(4_000_009, "Invalid extend by days value.") }
    static func invalidExtendReasonCode() -> APIError { badRequest(4_000_010, "Invalid extend reason code.") }
    static func invalidRequestIdentifier() -> APIError { badRequest(4_000_011, "Invalid request identifier.") }
    static func startDateAfterEndDate() -> APIError { badRequest(4_000_013, "Invalid request. The start date is later than the end date.") }
    static func invalidPaginationToken() -> APIError { badRequest(4_000_014, "Invalid pagination token.") }
    static func invalidStartDate() -> APIError { badRequest(4_000_015, "Invalid request. The start date is not a timestamp value represented in milliseconds.") }
    static func invalidEndDate() -> APIError { badRequest(4_000_016, "Invalid request. The end date is not a timestamp value represented in milliseconds.") }
    static func multipleFiltersSupplied() -> APIError { badRequest(4_000_019, "Invalid request. Supply either a transaction id or a notification type, but not both.") }
    static func invalidNotificationType() -> APIError { badRequest(4_000_018, "Invalid notification type.") }
    static func invalidTestNotificationToken() -> APIError { badRequest(4_000_020, "Invalid test notification token.") }
    static func invalidSort() -> APIError { badRequest(4_000_021, "Invalid request. The sort parameter is invalid.") }
    static func invalidProductType() -> APIError { badRequest(4_000_022, "Invalid request. The product type parameter is invalid.") }
    static func invalidProductID() -> APIError { badRequest(4_000_023, "Invalid request. The product id parameter is invalid.") }
    static func invalidSubscriptionGroupIdentifier() -> APIError { badRequest(4_000_024, "Invalid request. The subscription group identifier parameter is invalid.") }
    static func invalidInAppOwnershipType() -> APIError { badRequest(4_000_026, "Invalid request. The in-app ownership type parameter is invalid.") }
    static func invalidRevoked() -> APIError { badRequest(4_000_030, "Invalid request. The revoked parameter is invalid.") }
    static func invalidStatus() -> APIError { badRequest(4_000_031, "Invalid request. The status parameter is invalid.") }
    static func invalidCustomerConsented() -> APIError { badRequest(4_000_035, "Invalid request. The customer consented field is required and must indicate the customer consented.") }
    static func invalidDeliveryStatus() -> APIError { badRequest(4_000_036, "Invalid request. The delivery status field is invalid.") }
    static func invalidSampleContentProvided() -> APIError { badRequest(4_000_041, "Invalid request. The sample content provided field is invalid.") }
    static func notOriginalTransactionID() -> APIError { badRequest(4_000_187, "The transaction ID provided is not an original transaction ID.") }
    static func body(_ message: String) -> APIError { badRequest(generalBadRequest, "Invalid request body: \(message)") }

    static func subscriptionExtensionIneligible() -> APIError {
        APIError(status: 403, code: 4_030_004, message: "Forbidden - subscription state ineligible for extension.")
    }
    static func subscriptionMaxExtension() -> APIError {
        APIError(status: 403, code: 4_030_005, message: "Forbidden - subscription has reached maximum extension count.")
    }
    static func familySharedSubscriptionExtensionIneligible() -> APIError {
        APIError(status: 403, code: 4_030_007, message: "Subscriptions that users obtain through Family Sharing can't get a renewal date extension directly.")
    }
    static func originalTransactionIDNotFound() -> APIError { APIError(status: 404, code: 4_040_005, message: "Original transaction id not found.") }
    static func testNotificationNotFound() -> APIError { APIError(status: 404, code: 4_040_008, message: "Either the test notification token is expired or the notification and status are not yet available.") }
    static func transactionIDNotFound() -> APIError { APIError(status: 404, code: 4_040_010, message: "Transaction id not found.") }
    static func serverNotificationURLNotFound() -> APIError { APIError(status: 404, code: 4_040_007, message: "No App Store Server Notification URL found for provided app. Check that a URL is configured in App Store Connect for this environment.") }
    static func noSuchEndpoint(_ method: String, _ path: String) -> APIError {
        APIError(status: 404, code: nil, message: "No App Store Server API endpoint \(method) \(path) (storefront serve implements the transaction, subscription, order, refund, consumption, extension and notification endpoints).")
    }
    static func internalError(_ detail: String) -> APIError { APIError(status: 500, code: 5_000_000, message: "An unknown error occurred: \(detail)") }
}
