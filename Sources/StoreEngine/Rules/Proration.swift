import Foundation

/// The part of a subscription transaction's period not used yet: what a prorated refund returns,
/// and what the App Store refunds when an upgrade replaces the transaction.
struct Proration: Equatable {
    /// A full refund's `revocationPercentage`: 100% in thousandths of a percent.
    static let fullRefund = 100_000

    var start: Date
    /// Nil for a transaction without a period, which has nothing left to prorate.
    var end: Date?

    /// The unused part at `now`, 0...1.
    func unusedFraction(at now: Date) -> Double {
        guard let end else { return 0 }
        let total = end.timeIntervalSince(start)
        return total > 0 ? min(1, max(0, end.timeIntervalSince(now)) / total) : 0
    }

    /// What an upgrade refunds of a transaction's price: its unused part, to the nearest milliunit.
    func upgradeRefund(ofMilliunits price: Int64, at now: Date) -> Int64 {
        Int64((Double(price) * unusedFraction(at: now)).rounded())
    }

    /// A prorated refund's `revocationPercentage`, in milliunits of a percent as Apple's (50% is 50_000).
    func revocationPercentage(at now: Date) -> Int {
        Int((100_000 * unusedFraction(at: now)).rounded())  // Apple: "rounded to three decimal places" of a percent
    }
}
