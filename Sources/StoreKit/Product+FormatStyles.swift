import Foundation
import StoreCore

extension Product.SubscriptionPeriod.Unit {
    /// A unit as it follows a price ("$4.99/month", "4,99 €/Monat"), in a locale.
    public struct FormatStyle: Foundation.FormatStyle {
        public var locale: Locale

        public init(locale: Locale = .autoupdatingCurrent) { self.locale = locale }

        public func format(_ unit: Product.SubscriptionPeriod.Unit) -> String {
            PeriodNames.per(Period(1, unit.period), locale: locale.identifier)
        }

        public func locale(_ locale: Locale) -> Self { Self(locale: locale) }
    }

    public func formatted(_ style: FormatStyle) -> String { style.format(self) }

    public func formatted<S: Foundation.FormatStyle>(_ style: S) -> S.FormatOutput where S.FormatInput == Self { style.format(self) }
}

extension Product.SubscriptionPeriod {
    /// A period's dates as its length in words ("1 month", "3 Monate"): what `Product.subscriptionPeriodFormatStyle`
    /// is. Apple's is Foundation's `Date.ComponentsFormatStyle`, which Foundation on Linux does not have; this one
    /// takes the same `Range<Date>`, so `period.formatted(product.subscriptionPeriodFormatStyle)` reads the same.
    public struct ComponentsFormatStyle: Foundation.FormatStyle {
        public var locale: Locale

        public init(locale: Locale = .autoupdatingCurrent) { self.locale = locale }

        /// The largest whole unit the range is a number of (a year, 3 months, 2 weeks), else its days.
        public func format(_ range: Range<Date>) -> String {
            for unit in [Period.Unit.year, .month, .week, .day] {
                var count = 1
                while count <= 400 {
                    let end = Period(count, unit).advance(range.lowerBound)
                    if end == range.upperBound { return PeriodNames.duration(Period(count, unit), locale: locale.identifier) }
                    if end > range.upperBound { break }
                    count += 1
                }
            }
            let days = Int((range.upperBound.timeIntervalSince(range.lowerBound) / 86_400).rounded())
            return PeriodNames.duration(Period(max(days, 0), .day), locale: locale.identifier)
        }

        public func locale(_ locale: Locale) -> Self { Self(locale: locale) }
    }
}

extension Product {
    /// Formats a subscription period's unit in the product's locale: `unit.formatted(product.subscriptionPeriodUnitFormatStyle)`.
    public var subscriptionPeriodUnitFormatStyle: SubscriptionPeriod.Unit.FormatStyle { .init(locale: Locale(identifier: item.locale)) }

    /// Formats a subscription period in the product's locale: `period.formatted(product.subscriptionPeriodFormatStyle)`.
    public var subscriptionPeriodFormatStyle: SubscriptionPeriod.ComponentsFormatStyle { .init(locale: Locale(identifier: item.locale)) }
}
