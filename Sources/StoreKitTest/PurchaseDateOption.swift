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

    /// The purchase as made at `date` (now or in the past; a future date is refused), in the test environment.
    public static func purchaseDate(_ date: Date, renewalBehavior: SubscriptionRenewalBehavior = .renewUntilNow) -> Product.PurchaseOption {
        .purchaseDate(date, renews: renewalBehavior == .renewUntilNow)
    }
}
