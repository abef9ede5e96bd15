import Foundation
import StoreCore
@testable import StoreEngine

/// Plain values for the rule tests: no store, no ledger.
enum Fixture {
    static func date(_ text: String) -> Date { try! Date(text, strategy: .iso8601) }

    static func days(_ count: Double, after date: Date) -> Date { date.addingTimeInterval(count * 86_400) }

    static func record(_ state: SubscriptionState = .subscribed, product: String = "pro.monthly", expires: Date = date("2027-03-01T10:00:00Z"),
                       willAutoRenew: Bool = true, familyShared: Bool = false) -> SubscriptionRecord {
        var record = SubscriptionRecord(originalID: 1, groupID: "membership", productID: product, autoRenewProductID: product,
                                        latestTransactionID: 1, expirationDate: expires, state: state,
                                        recentStartDate: days(-30, after: expires))
        record.willAutoRenew = willAutoRenew
        record.familyShared = familyShared
        return record
    }

    static func payload(product: String = "pro.monthly", type: ProductType = .autoRenewable, purchased: Date = date("2027-01-01T00:00:00Z"),
                        expires: Date? = nil, priceMilliunits: Int64 = 9_990, quantity: Int = 1) -> TransactionPayload {
        var payload = TransactionPayload(transactionID: 7, originalTransactionID: 7, bundleID: "com.example", productID: product,
                                         productType: type, purchaseDate: purchased, originalPurchaseDate: purchased, quantity: quantity,
                                         signedDate: purchased, storefront: "USA", storefrontID: "143441", currency: "USD",
                                         priceMilliunits: priceMilliunits, appTransactionID: "1")
        payload.expirationDate = expires
        return payload
    }

    static func day(_ date: Date?) -> String? { date?.formatted(.iso8601.year().month().day()) }
}
