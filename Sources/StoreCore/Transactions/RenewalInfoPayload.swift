import Foundation

/// StoreKit's `Product.SubscriptionInfo.RenewalInfo`, as the payload of a signed JWS.
public struct RenewalInfoPayload: Hashable, Sendable {
    /// `expirationIntent`: 1 cancelled, 2 billing error, 3 price increase declined, 4 product unavailable, 5 other.
    public enum ExpirationReason: Int, Sendable, CaseIterable {
        case autoRenewDisabled = 1, billingError, didNotConsentToPriceIncrease, productUnavailable, unknown
        public var name: String { "\(self)" }
    }
    public enum PriceIncreaseStatus: Int, Sendable { case notYetResponded = 0, agreed = 1 }

    public var originalTransactionID: Int64
    public var productID: String
    public var autoRenewProductID: String
    public var willAutoRenew: Bool
    public var expirationReason: ExpirationReason?
    public var isInBillingRetry: Bool
    public var gracePeriodExpirationDate: Date?
    public var priceIncreaseStatus: PriceIncreaseStatus?
    public var renewalDate: Date?
    public var recentSubscriptionStartDate: Date?
    public var renewalPriceMilliunits: Int64?
    public var currency: String
    public var offerType: OfferType?
    public var offerID: String?
    public var offerPaymentMode: PaymentMode?
    /// The whole offer's length (`offerPeriod`).
    public var offerPeriod: Period?
    /// The billing plan the subscription renews on (`renewalBillingPlanType`); only for a product with billing plans.
    public var renewalBillingPlanType: BillingPlanType?
    public var eligibleWinBackOfferIDs: [String]
    public var signedDate: Date
    public var environment: String = StoreEnvironment.standard.rawValue
    public var appTransactionID: String
    public var appAccountToken: UUID?

    public init(originalTransactionID: Int64, productID: String, autoRenewProductID: String, willAutoRenew: Bool,
                expirationReason: ExpirationReason? = nil, isInBillingRetry: Bool = false, gracePeriodExpirationDate: Date? = nil,
                priceIncreaseStatus: PriceIncreaseStatus? = nil, renewalDate: Date?, recentSubscriptionStartDate: Date? = nil,
                renewalPriceMilliunits: Int64? = nil, currency: String, eligibleWinBackOfferIDs: [String] = [],
                signedDate: Date, appTransactionID: String) {
        self.originalTransactionID = originalTransactionID
        self.productID = productID
        self.autoRenewProductID = autoRenewProductID
        self.willAutoRenew = willAutoRenew
        self.expirationReason = expirationReason
        self.isInBillingRetry = isInBillingRetry
        self.gracePeriodExpirationDate = gracePeriodExpirationDate
        self.priceIncreaseStatus = priceIncreaseStatus
        self.renewalDate = renewalDate
        self.recentSubscriptionStartDate = recentSubscriptionStartDate
        self.renewalPriceMilliunits = renewalPriceMilliunits
        self.currency = currency
        self.eligibleWinBackOfferIDs = eligibleWinBackOfferIDs
        self.signedDate = signedDate
        self.appTransactionID = appTransactionID
    }

    public var json: JSONValue {
        var m: [(String, JSONValue)] = [
            ("originalTransactionId", .string(String(originalTransactionID))),
            ("productId", .string(productID)), ("autoRenewProductId", .string(autoRenewProductID)),
            ("autoRenewStatus", .int(willAutoRenew ? 1 : 0)),
            ("isInBillingRetryPeriod", .bool(isInBillingRetry)),
        ]
        if let r = expirationReason { m.append(("expirationIntent", .int(r.rawValue))) }
        if let g = gracePeriodExpirationDate { m.append(("gracePeriodExpiresDate", .ms(g))) }
        if let p = priceIncreaseStatus { m.append(("priceIncreaseStatus", .int(p.rawValue))) }
        if let r = renewalDate { m.append(("renewalDate", .ms(r))) }
        if let r = recentSubscriptionStartDate { m.append(("recentSubscriptionStartDate", .ms(r))) }
        if let p = renewalPriceMilliunits { m.append(("renewalPrice", .number(String(p)))) }
        m.append(("currency", .string(currency)))
        if let o = offerType { m.append(("offerType", .int(o.signedValue))) }
        if let o = offerID { m.append(("offerIdentifier", .string(o))) }
        if let o = offerPaymentMode { m.append(("offerDiscountType", .string(o.signedName))) }
        if let o = offerPeriod { m.append(("offerPeriod", .string(o.iso))) }
        if let b = renewalBillingPlanType { m.append(("renewalBillingPlanType", .string(b.signedName))) }
        if !eligibleWinBackOfferIDs.isEmpty { m.append(("eligibleWinBackOfferIds", .array(eligibleWinBackOfferIDs.map(JSONValue.string)))) }
        if let t = appAccountToken { m.append(("appAccountToken", .string(t.uuidString.lowercased()))) }
        m += [("signedDate", .ms(signedDate)), ("environment", .string(environment)), ("appTransactionId", .string(appTransactionID))]
        return .object(m.map { (key: $0.0, value: $0.1) })
    }

    public init?(json: JSONValue) {
        guard let original = json["originalTransactionId"]?.int64Text, let productID = json["productId"]?.stringValue,
              let signed = json["signedDate"]?.date else { return nil }
        self.init(originalTransactionID: original, productID: productID,
                  autoRenewProductID: json["autoRenewProductId"]?.stringValue ?? productID,
                  willAutoRenew: json["autoRenewStatus"]?.intValue == 1,
                  expirationReason: json["expirationIntent"]?.intValue.flatMap(ExpirationReason.init(rawValue:)),
                  isInBillingRetry: json["isInBillingRetryPeriod"]?.boolValue ?? false,
                  gracePeriodExpirationDate: json["gracePeriodExpiresDate"]?.date,
                  priceIncreaseStatus: json["priceIncreaseStatus"]?.intValue.flatMap(PriceIncreaseStatus.init(rawValue:)),
                  renewalDate: json["renewalDate"]?.date, recentSubscriptionStartDate: json["recentSubscriptionStartDate"]?.date,
                  renewalPriceMilliunits: json["renewalPrice"]?.int64Text, currency: json["currency"]?.stringValue ?? "",
                  eligibleWinBackOfferIDs: json["eligibleWinBackOfferIds"]?.arrayValue?.compactMap(\.stringValue) ?? [],
                  signedDate: signed, appTransactionID: json["appTransactionId"]?.stringValue ?? "")
        offerType = json["offerType"]?.intValue.flatMap { v in OfferType.allCases.first { $0.signedValue == v } }
        offerID = json["offerIdentifier"]?.stringValue
        offerPaymentMode = json["offerDiscountType"]?.stringValue.flatMap { v in PaymentMode.allCases.first { $0.signedName == v } }
        offerPeriod = json["offerPeriod"]?.stringValue.flatMap(Period.init(iso:))
        renewalBillingPlanType = json["renewalBillingPlanType"]?.stringValue.flatMap(BillingPlanType.init(signedName:))
        environment = json["environment"]?.stringValue ?? ""
        appAccountToken = json["appAccountToken"]?.stringValue.flatMap(UUID.init(text:))
    }
}

/// `Product.SubscriptionInfo.RenewalState`.
public enum SubscriptionState: String, Sendable, CaseIterable {
    case subscribed, expired, inBillingRetryPeriod, inGracePeriod, revoked

    /// Whether the app should grant access: subscribed or in grace period.
    public var grantsAccess: Bool { self == .subscribed || self == .inGracePeriod }

    /// Whether the App Store is retrying the renewal's payment: in billing retry, its grace period included.
    public var isInBillingRetry: Bool { self == .inBillingRetryPeriod || self == .inGracePeriod }
}
