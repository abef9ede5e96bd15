import Foundation
import StoreCore

/// Get Transaction History's filters, read from the query string as Apple's server reads them: every
/// filter given must match; a value that is not one of Apple's is the error Apple answers with.
struct HistoryQuery {
    var startDate: Date?
    var endDate: Date?
    var productIDs: Set<String> = []
    var productTypes: Set<ProductType> = []
    var groupIDs: Set<String> = []
    var ownership: TransactionPayload.Ownership?
    var revoked: Bool?
    var ascending = true
    var after: PagePosition?

    static let productTypeNames: [String: ProductType] = [
        "AUTO_RENEWABLE": .autoRenewable, "NON_RENEWABLE": .nonRenewing, "CONSUMABLE": .consumable, "NON_CONSUMABLE": .nonConsumable,
    ]

    init(_ request: HTTPRequest) throws(APIError) {
        startDate = try Self.date(request.queryValues("startDate").last, else: .invalidStartDate())
        endDate = try Self.date(request.queryValues("endDate").last, else: .invalidEndDate())
        if let startDate, let endDate, startDate > endDate { throw .startDateAfterEndDate() }
        productIDs = try Self.nonEmpty(request.queryValues("productId"), else: .invalidProductID())
        groupIDs = try Self.nonEmpty(request.queryValues("subscriptionGroupIdentifier"), else: .invalidSubscriptionGroupIdentifier())
        for name in request.queryValues("productType") {
            guard let type = Self.productTypeNames[name] else { throw .invalidProductType() }
            productTypes.insert(type)
        }
        if let name = request.queryValues("inAppOwnershipType").last {
            guard let ownership = TransactionPayload.Ownership(rawValue: name) else { throw .invalidInAppOwnershipType() }
            self.ownership = ownership
        }
        if let text = request.queryValues("revoked").last {
            // Apple's Python client sends Python's spelling, "True"/"False".
            switch text.lowercased() {
            case "true": revoked = true
            case "false": revoked = false
            default: throw .invalidRevoked()
            }
        }
        if let sort = request.queryValues("sort").last {
            guard sort == "ASCENDING" || sort == "DESCENDING" else { throw .invalidSort() }
            ascending = sort == "ASCENDING"
        }
        if let token = request.queryValues("revision").last {
            guard let position = PagePosition(token: token) else { throw .invalidRequestRevision() }
            after = position
        }
    }

    /// Whether a transaction passes every filter. Dates are of its purchase: from `startDate`, before `endDate`.
    func matches(_ payload: TransactionPayload) -> Bool {
        (startDate.map { payload.purchaseDate >= $0 } ?? true)
            && (endDate.map { payload.purchaseDate < $0 } ?? true)
            && (productIDs.isEmpty || productIDs.contains(payload.productID))
            && (productTypes.isEmpty || productTypes.contains(payload.productType))
            && (groupIDs.isEmpty || payload.subscriptionGroupID.map(groupIDs.contains) == true)
            && (ownership.map { payload.ownership == $0 } ?? true)
            && (revoked.map { payload.isRevoked == $0 } ?? true)
    }

    /// Transactions are listed in the order they were last modified (signed), as Apple's are.
    static func position(_ payload: TransactionPayload) -> PagePosition {
        PagePosition(date: Int64((payload.signedDate.timeIntervalSince1970 * 1000).rounded()), id: payload.transactionID)
    }

    static func date(_ text: String?, else error: APIError) throws(APIError) -> Date? {
        guard let text else { return nil }
        guard let date = date(milliseconds: text) else { throw error }
        return date
    }

    /// The latest timestamp a client may send, 9999-12-31T23:59:59.999Z: later ones are not dates
    /// any store keeps, and converting them back to milliseconds (the ledger does) would overflow.
    static let latestMilliseconds: Int64 = 253_402_300_799_999

    /// A client's timestamp in milliseconds since 1970, from 0 to `latestMilliseconds`; nil otherwise.
    static func date(milliseconds text: String) -> Date? {
        guard let milliseconds = Int64(text), (0...latestMilliseconds).contains(milliseconds) else { return nil }
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    static func nonEmpty(_ values: [String], else error: APIError) throws(APIError) -> Set<String> {
        guard !values.contains(where: \.isEmpty) else { throw error }
        return Set(values)
    }
}
