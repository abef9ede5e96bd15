import Foundation
@_spi(Storefront) import StoreKit

extension Product.PurchaseOption {
    /// How a subscription bought with `purchaseDate(_:renewalBehavior:)` goes on.
    public enum SubscriptionRenewalBehavior: Hashable, Sendable {
        /// It renews from the purchase date until now, each renewal a transaction of its own.
        case renewUntilNow
        /// Auto-renew is turned off at once: one period only.
        case cancelImmediately
    }

    /// A test's purchase (`SKTestSession.buyProduct(identifier:options:)`) redeeming the configuration's offer code of
    /// that reference name, as a customer would: the code's offer, or the product at no charge; refused as a redemption is.
    public static func codeOffer(referenceName: String) -> Product.PurchaseOption { .testCodeOffer(referenceName) }

    /// A test's purchase (`buyProduct(identifier:options:)`) with the subscription's promotional offer of that
    /// identifier, without the signature an app's purchase needs.
    public static func promotionalOffer(id identifier: String) -> Product.PurchaseOption { .testPromotionalOffer(identifier) }

    /// The purchase as made at `date` (now or in the past; a future date is refused), in the test environment.
    public static func purchaseDate(_ date: Date, renewalBehavior: SubscriptionRenewalBehavior = .renewUntilNow) -> Product.PurchaseOption {
        .purchaseDate(date, renews: renewalBehavior == .renewUntilNow)
    }
}
