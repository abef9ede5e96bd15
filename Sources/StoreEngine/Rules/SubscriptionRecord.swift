import Foundation
import StoreCore

/// The renewal state of one subscription (one per original transaction) in a group. Stored as its
/// synthesized `Codable` form, which older ledgers' rows were encoded in; `json` and `init(json:)`
/// (SubscriptionRecord+JSON.swift) write and read that form without Foundation's coders.
struct SubscriptionRecord: Codable, Equatable {
    var originalID: Int64
    var groupID: String
    var productID: String
    var autoRenewProductID: String
    var willAutoRenew = true
    var latestTransactionID: Int64
    var expirationDate: Date
    var state: SubscriptionState
    var expirationReason: RenewalInfoPayload.ExpirationReason?
    var gracePeriodEnd: Date?
    var billingRetryEnd: Date?
    var priceIncrease: PriceIncrease?
    /// What a requested price increase renews `productID` at, in milliunits; kept once agreed, as it is the price then.
    var increasedPriceMilliunits: Int64?
    var familyShared = false
    var recentStartDate: Date
    /// The day of the month renewals fall on (see `Period.advance(_:anchorDay:)`).
    var anchorDay: Int?
    var appAccountToken: UUID?
    /// A pay-as-you-go offer still discounting renewals.
    var offer: CarriedOffer?
    /// The billing plan it is paid on; nil for a product without billing plans.
    var billingPlan: BillingPlanType?
    /// Whether the customer received an introductory offer on it; nil in a record written before this
    /// was kept, which counts as received (the rule then: any history made the group ineligible).
    var introOfferReceived: Bool? = false
    /// How many times it has renewed since it was bought (the sandbox stops at `TimeRate.renewalLimit`); nil: none.
    var renewals: Int?

    struct CarriedOffer: Codable, Equatable {
        var type: OfferType
        var id: String?
        var period: Period
        var priceMilliunits: Int64
        var remainingPeriods: Int
        /// The product it discounts: one redeemed for a change at the next renewal is for the product
        /// changed to; nil, the subscription's own product.
        var productID: String?
    }

    enum PriceIncrease: String, Codable { case notYetResponded, agreed, declined }
}

extension SubscriptionState: Codable {}
extension OfferType: Codable {}
extension BillingPlanType: Codable {}
extension Period: Codable {
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let period = Period(iso: text) else { throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "bad period \(text)")) }
        self = period
    }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(iso)
    }
}
extension RenewalInfoPayload.ExpirationReason: Codable {}
