import Foundation

/// StoreKit's `Transaction`, as the payload of a signed JWS, with Apple's JSON keys (dates in ms since 1970).
public struct TransactionPayload: Hashable, Sendable {
    public enum Ownership: String, Sendable { case purchased = "PURCHASED", familyShared = "FAMILY_SHARED" }
    public enum Reason: String, Sendable { case purchase = "PURCHASE", renewal = "RENEWAL" }
    /// `revocationReason`: 0 other, 1 an issue in the app (`.developerIssue`).
    public enum RevocationReason: Int, Sendable { case other = 0, developerIssue = 1 }
    public enum RevocationType: String, Sendable { case refundFull = "REFUND_FULL", refundProrated = "REFUND_PRORATED", familyRevoke = "FAMILY_REVOKE" }

    public var transactionID: Int64
    public var originalTransactionID: Int64
    public var webOrderLineItemID: String?
    public var bundleID: String
    public var productID: String
    public var productType: ProductType
    public var subscriptionGroupID: String?
    public var purchaseDate: Date
    public var originalPurchaseDate: Date
    public var expirationDate: Date?
    public var quantity: Int
    public var appAccountToken: UUID?
    public var ownership: Ownership = .purchased
    public var signedDate: Date
    public var revocationDate: Date?
    public var revocationReason: RevocationReason?
    public var revocationType: RevocationType?
    public var revocationPercentage: Int?
    public var isUpgraded = false
    public var offerType: OfferType?
    public var offerID: String?
    public var offerPaymentMode: PaymentMode?
    public var offerPeriod: Period?
    /// How the subscription is paid (`billingPlanType`); only for a product with billing plans.
    public var billingPlanType: BillingPlanType?
    /// On the monthly plan, this payment's place in its 12-month commitment (`commitmentInfo`).
    public var commitment: Commitment?

    /// Apple's `TransactionCommitmentInfo`: payment `billingPeriodNumber` of `totalBillingPeriods`, for a
    /// commitment that ends at `expiresDate` and costs `priceMilliunits` in all.
    public struct Commitment: Hashable, Sendable {
        public var billingPeriodNumber: Int
        public var totalBillingPeriods: Int
        public var expiresDate: Date
        public var priceMilliunits: Int64

        public init(billingPeriodNumber: Int, totalBillingPeriods: Int, expiresDate: Date, priceMilliunits: Int64) {
            self.billingPeriodNumber = billingPeriodNumber
            self.totalBillingPeriods = totalBillingPeriods
            self.expiresDate = expiresDate
            self.priceMilliunits = priceMilliunits
        }

        /// The next payment of the same commitment; nil once its last payment is made.
        public var next: Commitment? {
            guard billingPeriodNumber < totalBillingPeriods else { return nil }
            var next = self
            next.billingPeriodNumber += 1
            return next
        }

        var json: JSONValue {
            .object([("billingPeriodNumber", .int(billingPeriodNumber)), ("commitmentExpiresDate", .ms(expiresDate)),
                     ("commitmentPrice", .number(String(priceMilliunits))), ("totalBillingPeriods", .int(totalBillingPeriods))])
        }

        init?(json: JSONValue?) {
            guard let json, let number = json["billingPeriodNumber"]?.intValue, let total = json["totalBillingPeriods"]?.intValue,
                  let expires = json["commitmentExpiresDate"]?.date, let price = json["commitmentPrice"]?.int64Text else { return nil }
            self.init(billingPeriodNumber: number, totalBillingPeriods: total, expiresDate: expires, priceMilliunits: price)
        }
    }
    public var environment: String = StoreEnvironment.standard.rawValue
    public var storefront: String
    public var storefrontID: String
    public var reason: Reason = .purchase
    public var currency: String
    /// In milliunits of the currency (4.99 USD = 4990).
    public var priceMilliunits: Int64
    public var appTransactionID: String

    public init(transactionID: Int64, originalTransactionID: Int64, bundleID: String, productID: String, productType: ProductType,
                purchaseDate: Date, originalPurchaseDate: Date, quantity: Int, signedDate: Date,
                storefront: String, storefrontID: String, currency: String, priceMilliunits: Int64, appTransactionID: String) {
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID
        self.bundleID = bundleID
        self.productID = productID
        self.productType = productType
        self.purchaseDate = purchaseDate
        self.originalPurchaseDate = originalPurchaseDate
        self.quantity = quantity
        self.signedDate = signedDate
        self.storefront = storefront
        self.storefrontID = storefrontID
        self.currency = currency
        self.priceMilliunits = priceMilliunits
        self.appTransactionID = appTransactionID
    }

    public var isRevoked: Bool { revocationDate != nil }
    public var price: Decimal { Decimal(priceMilliunits) / 1000 }

    public var json: JSONValue {
        // One array at its size, labelled as `.object` holds it: built of pieces and relabelled after, it was
        // four arrays a payload, and a simulated year encodes one for every renewal.
        var m: [(key: String, value: JSONValue)] = []
        m.reserveCapacity(32)
        func add(_ key: String, _ value: JSONValue) { m.append((key, value)) }
        add("transactionId", .string(String(transactionID)))
        add("originalTransactionId", .string(String(originalTransactionID)))
        if let w = webOrderLineItemID { add("webOrderLineItemId", .string(w)) }
        add("bundleId", .string(bundleID))
        add("productId", .string(productID))
        if let g = subscriptionGroupID { add("subscriptionGroupIdentifier", .string(g)) }
        add("purchaseDate", .ms(purchaseDate))
        add("originalPurchaseDate", .ms(originalPurchaseDate))
        if let e = expirationDate { add("expiresDate", .ms(e)) }
        add("quantity", .int(quantity))
        add("type", .string(productType.signedName))
        if let t = appAccountToken { add("appAccountToken", .string(t.uuidString.lowercased())) }
        add("inAppOwnershipType", .string(ownership.rawValue))
        add("signedDate", .ms(signedDate))
        if let r = revocationReason { add("revocationReason", .int(r.rawValue)) }
        if let d = revocationDate { add("revocationDate", .ms(d)) }
        if let t = revocationType { add("revocationType", .string(t.rawValue)) }
        if let p = revocationPercentage { add("revocationPercentage", .int(p)) }
        if isUpgraded { add("isUpgraded", .bool(true)) }
        if let o = offerType { add("offerType", .int(o.signedValue)) }
        if let o = offerID { add("offerIdentifier", .string(o)) }
        if let o = offerPaymentMode { add("offerDiscountType", .string(o.signedName)) }
        if let o = offerPeriod { add("offerPeriod", .string(o.iso)) }
        if let b = billingPlanType { add("billingPlanType", .string(b.signedName)) }
        if let c = commitment { add("commitmentInfo", c.json) }
        add("environment", .string(environment))
        add("transactionReason", .string(reason.rawValue))
        add("storefront", .string(storefront))
        add("storefrontId", .string(storefrontID))
        add("price", .number(String(priceMilliunits)))
        add("currency", .string(currency))
        add("appTransactionId", .string(appTransactionID))
        return .object(m)
    }

    /// Decodes a payload; nil when a required key is missing or has the wrong type
    /// (the app reports that as `missingRequiredProperties`).
    public init?(json: JSONValue) {
        guard let id = json["transactionId"]?.int64Text, let original = json["originalTransactionId"]?.int64Text,
              let productID = json["productId"]?.stringValue, let type = json["type"]?.stringValue.flatMap(ProductType.init(signedName:)),
              let purchase = json["purchaseDate"]?.date, let signed = json["signedDate"]?.date else { return nil }
        self.init(transactionID: id, originalTransactionID: original, bundleID: json["bundleId"]?.stringValue ?? "",
                  productID: productID, productType: type, purchaseDate: purchase,
                  originalPurchaseDate: json["originalPurchaseDate"]?.date ?? purchase,
                  quantity: json["quantity"]?.intValue ?? 1, signedDate: signed,
                  storefront: json["storefront"]?.stringValue ?? "", storefrontID: json["storefrontId"]?.stringValue ?? "",
                  currency: json["currency"]?.stringValue ?? "", priceMilliunits: json["price"]?.int64Text ?? 0,
                  appTransactionID: json["appTransactionId"]?.stringValue ?? "")
        webOrderLineItemID = json["webOrderLineItemId"]?.stringValue
        subscriptionGroupID = json["subscriptionGroupIdentifier"]?.stringValue
        expirationDate = json["expiresDate"]?.date
        appAccountToken = json["appAccountToken"]?.stringValue.flatMap(UUID.init(text:))
        ownership = json["inAppOwnershipType"]?.stringValue.flatMap(Ownership.init(rawValue:)) ?? .purchased
        revocationDate = json["revocationDate"]?.date
        revocationReason = json["revocationReason"]?.intValue.flatMap(RevocationReason.init(rawValue:))
        revocationType = json["revocationType"]?.stringValue.flatMap(RevocationType.init(rawValue:))
        revocationPercentage = json["revocationPercentage"]?.intValue
        isUpgraded = json["isUpgraded"]?.boolValue ?? false
        offerType = json["offerType"]?.intValue.flatMap { v in OfferType.allCases.first { $0.signedValue == v } }
        offerID = json["offerIdentifier"]?.stringValue
        offerPaymentMode = json["offerDiscountType"]?.stringValue.flatMap { v in PaymentMode.allCases.first { $0.signedName == v } }
        offerPeriod = json["offerPeriod"]?.stringValue.flatMap(Period.init(iso:))
        billingPlanType = json["billingPlanType"]?.stringValue.flatMap(BillingPlanType.init(signedName:))
        commitment = Commitment(json: json["commitmentInfo"])
        environment = json["environment"]?.stringValue ?? ""
        reason = json["transactionReason"]?.stringValue.flatMap(Reason.init(rawValue:)) ?? .purchase
    }
}

extension JSONValue {
    static func ms(_ date: Date) -> JSONValue { .number(String(Int64((date.timeIntervalSince1970 * 1000).rounded()))) }
    static func int(_ value: Int) -> JSONValue { .number(String(value)) }

    /// A date from milliseconds since 1970 (Xcode writes fractional milliseconds); nil beyond what a
    /// double holds (`1e400` parses as infinity, which no formatter takes: Foundation traps).
    public var date: Date? { doubleValue.flatMap { $0.isFinite ? Date(timeIntervalSince1970: $0 / 1000) : nil } }

    /// An integer written as a number or a string (Apple writes transaction IDs as strings).
    var int64Text: Int64? {
        switch self {
        case .number(let n): Int64(n) ?? Double(n).flatMap { Int64(exactly: $0.rounded(.towardZero)) }
        case .string(let s): Int64(s)
        default: nil
        }
    }
}
