import Foundation
import StoreCore

/// Every word the paywall shows the customer, in one place, so string tables can replace them whole
/// (prices, periods and offer terms come formatted from `Product`: Foundation's formatters in the
/// customer's locale). English for now.
enum PaywallText {
    static let subscribe = "Subscribe"
    static let restore = "Restore Purchases"
    static let redeem = "Redeem Code"
    static let termsOfService = "Terms of Service"
    static let privacyPolicy = "Privacy Policy"
    static let currentPlan = "Current plan"
    static let renewsNote = "Subscriptions renew automatically until cancelled."
    static let noPlans = "Nothing in this group is sold in this storefront."
    /// Where no Terms of Service of the app's own are given: Apple's standard license agreement.
    static let standardEULA = "https://www.apple.com/legal/internet-services/itunes/dev/stdeula/"

    static func subscribe(to name: String) -> String { "Subscribe to \(name)" }
    static func offer(_ terms: String) -> String { "Offer: \(terms)" }
    static func subscribedTo(_ name: String) -> String { "You're subscribed to \(name)." }
    static func productCard(_ style: String) -> String { "Product (\(style))" }

    /// SubscriptionOfferView's line for a change of plan: what it is, what it costs, and when it starts.
    static func change(_ kind: PlanChangeKind, to name: String, price: String, renewal: String) -> String {
        switch kind {
        case .upgrade: "Upgrade to \(name) · \(price) · starts now, the unused time is refunded"
        case .downgrade: "Downgrade to \(name) · \(price) · starts on \(renewal)"
        case .crossgradeNow: "Switch to \(name) · \(price) · starts now"
        case .crossgradeAtRenewal: "Switch to \(name) · \(price) · starts on \(renewal)"
        }
    }
}
