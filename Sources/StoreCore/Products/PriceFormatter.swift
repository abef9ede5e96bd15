import Foundation

/// Formats prices as the App Store shows them: the storefront's currency in the customer's locale,
/// through Foundation's `Decimal.FormatStyle.Currency` (which groups Indian rupees as ₹1,25,000.00).
public enum PriceFormatter {
    public static func displayPrice(_ price: Decimal, currency: String, locale: String) -> String {
        price.formatted(.currency(code: currency).locale(Locale(identifier: locale)))
    }
}

#if canImport(_FoundationICU)
import _FoundationICU
#endif

extension PriceFormatter {
    /// The digits after the decimal point of `currency`'s smallest unit (2 for USD, 0 for JPY, 3 for BHD),
    /// from the ICU Foundation formats with (`NumberFormatter` on Linux says 2 for every currency).
    public static func fractionDigits(currency: String) -> Int {
        #if canImport(_FoundationICU)
        let code = Array(currency.uppercased().utf16) + [0]
        var status = U_ZERO_ERROR
        // The toolchain's ICU renames its C functions with a `swift_` prefix (see `PeriodNames`).
        let digits = swift_ucurr_getDefaultFractionDigits(code, &status)
        return status.rawValue <= 0 ? Int(digits) : 2
        #else
        return 2
        #endif
    }
}
