import StoreCore

/// An App Store Server API error: the HTTP status and the `{errorCode, errorMessage}` body Apple's
/// server answers with (the codes of Apple's `APIError`; its client reads them only from a JSON body).
struct APIError: Error, Equatable {
    var status: Int
    var code: Int?
    var message: String
    /// The methods a path takes, for a 405's `allow` header.
    var allow: [String] = []

    var response: HTTPResponse {
        var body: [(key: String, value: JSONValue)] = []
        if let code { body.append((key: "errorCode", value: .number(String(code)))) }
        body.append((key: "errorMessage", value: .string(message)))
        var response = HTTPResponse.json(status, JSONValue.object(body).compact)
        if !allow.isEmpty { response.headers["allow"] = allow.joined(separator: ", ") }
        return response
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
    static func transactionTypeNotSupported() -> APIError { badRequest(4_000_047, "Invalid request. The transaction's type is not supported: a consumable or an auto-renewable subscription.") }
    static func appTransactionIDNotSupported() -> APIError { badRequest(4_000_048, "Invalid request. This endpoint doesn't support an app transaction ID.") }
    static func notOriginalTransactionID() -> APIError { badRequest(4_000_187, "The transaction ID provided is not an original transaction ID.") }
    static func startDateTooFarInPast() -> APIError { badRequest(4_000_012, "Invalid request. The start date is earlier than the allowed start date.") }
    static func invalidEmptyStorefrontCountryCodeList() -> APIError { badRequest(4_000_027, "Invalid request. The storefront country code list is empty.") }
    static func invalidStorefrontCountryCode() -> APIError { badRequest(4_000_028, "Invalid request. A storefront country code is invalid.") }
    static func invalidAccountTenure() -> APIError { badRequest(4_000_032, "Invalid request. The account tenure field is invalid.") }
    static func invalidAppAccountToken() -> APIError { badRequest(4_000_033, "Invalid request. The app account token field must be a valid UUID or an empty string.") }
    static func invalidConsumptionStatus() -> APIError { badRequest(4_000_034, "Invalid request. The consumption status field is invalid.") }
    static func invalidLifetimeDollarsPurchased() -> APIError { badRequest(4_000_037, "Invalid request. The lifetime dollars purchased field is invalid.") }
    static func invalidLifetimeDollarsRefunded() -> APIError { badRequest(4_000_038, "Invalid request. The lifetime dollars refunded field is invalid.") }
    static func invalidPlatform() -> APIError { badRequest(4_000_039, "Invalid request. The platform field is invalid.") }
    static func invalidPlayTime() -> APIError { badRequest(4_000_040, "Invalid request. The play time field is invalid.") }
    static func invalidUserStatus() -> APIError { badRequest(4_000_042, "Invalid request. The user status field is invalid.") }
    static func invalidImage() -> APIError { badRequest(4_000_161, "Invalid request. The image is not a PNG.") }
    static func headerTooLong() -> APIError { badRequest(4_000_162, "Invalid request. The header is missing or longer than 66 characters.") }
    static func bodyTooLong() -> APIError { badRequest(4_000_163, "Invalid request. The body is missing or longer than 144 characters.") }
    static func invalidLocale() -> APIError { badRequest(4_000_164, "Invalid request. The locale is invalid.") }
    static func altTextTooLong() -> APIError { badRequest(4_000_175, "Invalid request. The alt text is missing or longer than 150 characters.") }
    static func invalidAppAccountTokenUUID() -> APIError { badRequest(4_000_183, "Invalid request. The app account token must be a UUID.") }
    static func familyTransactionNotSupported() -> APIError { badRequest(4_000_185, "Invalid request. Family Sharing transactions aren't supported by this endpoint.") }
    static func invalidPerformanceTestRequest() -> APIError { badRequest(4_000_211, "Invalid request. The performance test request is invalid.") }
    static func invalidRequestID() -> APIError { badRequest(4_000_212, "Invalid request. The request ID is invalid.") }
    static func existingPerformanceTestRun() -> APIError { badRequest(4_000_213, "Invalid request. A performance test is already running.") }
    static func badRealtimeURL() -> APIError { badRequest(4_000_215, "Invalid request. The realtime URL is not an http or https URL of at most 256 characters.") }
    static func badImageSize() -> APIError { badRequest(4_000_216, "Invalid request. The image size is not FULL_SIZE or BULLET_POINT.") }
    static func tooManyBulletPoints() -> APIError { badRequest(4_000_218, "Invalid request. A message has at most 5 bullet points.") }
    static func bulletPointTextTooLong() -> APIError { badRequest(4_000_219, "Invalid request. A bullet point's text is missing or longer than 66 characters.") }
    static func aboveImageRequiresAnImage() -> APIError { badRequest(4_000_224, "Invalid request. A header above the image needs an image.") }
    /// An error Apple documents by name and no code: a 400 with the general code and the name in the message.
    static func unnumbered(_ name: String, _ message: String) -> APIError { badRequest(generalBadRequest, "\(name): \(message)") }
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
    static func imageInUse() -> APIError { APIError(status: 403, code: 4_030_019, message: "The image is in use by a message.") }
    static func imageNotFound() -> APIError { APIError(status: 404, code: 4_040_014, message: "Image not found.") }
    static func messageNotFound() -> APIError { APIError(status: 404, code: 4_040_015, message: "Message not found.") }
    static func performanceTestRunNotFound() -> APIError { APIError(status: 404, code: 4_040_018, message: "Performance test run not found.") }
    static func defaultMessageNotFound() -> APIError { APIError(status: 404, code: 4_040_020, message: "Default message not found.") }
    static func realtimeURLNotFound() -> APIError { APIError(status: 404, code: 4_040_021, message: "Realtime URL not found.") }
    static func statusRequestNotFound() -> APIError { APIError(status: 404, code: 4_040_009, message: "The server didn't find a subscription-renewal-date extension request for this identifier and product.") }
    static func imageAlreadyExists() -> APIError { APIError(status: 409, code: 4_090_000, message: "An image with this identifier already exists.") }
    static func messageAlreadyExists() -> APIError { APIError(status: 409, code: 4_090_001, message: "A message with this identifier already exists.") }
    static func originalTransactionIDNotFound() -> APIError { APIError(status: 404, code: 4_040_005, message: "Original transaction id not found.") }
    static func testNotificationNotFound() -> APIError { APIError(status: 404, code: 4_040_008, message: "Either the test notification token is expired or the notification and status are not yet available.") }
    static func transactionIDNotFound() -> APIError { APIError(status: 404, code: 4_040_010, message: "Transaction id not found.") }
    static func serverNotificationURLNotFound() -> APIError { APIError(status: 404, code: 4_040_007, message: "No App Store Server Notification URL found for provided app. Check that a URL is configured in App Store Connect for this environment.") }
    /// Apple documents no code for a path it does not serve; Storefront answers one of its own, so
    /// Apple's client raises an `APIException` that carries it (`raw_api_error`) and the message.
    static func noSuchEndpoint(_ method: String, _ path: String) -> APIError {
        APIError(status: 404, code: 4_040_000, message: "No App Store Server API endpoint \(method) \(path): storefront serve answers every endpoint of Apple's App Store Server Library 3.1.2 (see docs/backend.md).")
    }
    static func methodNotAllowed(_ method: String, _ path: String, allowed: [String]) -> APIError {
        APIError(status: 405, code: 4_050_000, message: "\(path) does not take \(method); it takes \(allowed.joined(separator: ", ")).", allow: allowed)
    }
    static func internalError(_ detail: String) -> APIError { APIError(status: 500, code: 5_000_000, message: "An unknown error occurred: \(detail)") }
}
