import Foundation

/// Formats prices as the App Store shows them: the storefront's currency in the customer's locale,
/// through Foundation's `Decimal.FormatStyle.Currency` (which groups Indian rupees as ₹1,25,000.00).
public enum PriceFormatter {
    public static func displayPrice(_ price: Decimal, currency: String, locale: String) -> String {
        price.formatted(.currency(code: currency).locale(Locale(identifier: locale)))
    }
}
