import Foundation
import StoreCore

/// The paywall's sentences that take more than a phrase: prices, periods and offer terms come from
/// `Terms` (Foundation's formatters in the customer's locale), the words from the table.
extension StringTable {
    /// SubscriptionOfferView's line for a change of plan: what it is, what it costs, and when it starts.
    func change(_ kind: PlanChangeKind, to plan: Product, renewal: String) -> String {
        let phrase: Phrase = switch kind {
        case .upgrade: .changeUpgrade
        case .downgrade: .changeDowngrade
        case .crossgradeNow: .changeCrossgradeNow
        case .crossgradeAtRenewal: .changeCrossgradeAtRenewal
        }
        return self(phrase, ["name": plan.displayName, "price": priceWithPeriod(plan), "date": renewal])
    }

    /// "Offer: 1 week free, then $4.99/month".
    func offerLine(_ p: Product, _ offer: SubscriptionOffer) -> String {
        self(.offerLine, ["terms": offerText(p, offer)])
    }
}

enum PaywallText {
    /// Where no Terms of Service of the app's own are given: Apple's standard license agreement.
    static let standardEULA = "https://www.apple.com/legal/internet-services/itunes/dev/stdeula/"

    /// The product card's title names the `ProductView` style shown: a presenter's label, not the customer's.
    static func productCard(_ style: String) -> String { "Product (\(style))" }
}
