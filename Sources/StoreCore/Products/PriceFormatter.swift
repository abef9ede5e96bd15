import Foundation
import Locking

/// Formats prices as the App Store shows them: the storefront's currency in the customer's locale,
/// through Foundation's `Decimal.FormatStyle.Currency` (which groups Indian rupees as ₹1,25,000.00).
/// One style per currency and locale, and each price it formatted, are kept: formatting costs about
/// 9 µs, and a catalog's products share a few price points.
public enum PriceFormatter {
    public static func displayPrice(_ price: Decimal, currency: String, locale: String) -> String {
        let key = Key(currency: currency, locale: locale)
        let (style, known) = formats.withLock { formats in
            let format = formats[key, default: Format(style: .init(code: currency, locale: Locale(identifier: locale)))]
            formats[key] = format
            return (format.style, format.prices[price])
        }
        if let known { return known }
        let text = style.format(price)
        formats.withLock { formats in
            if formats[key]!.prices.count >= maximumKept { formats[key]!.prices.removeAll() }
            formats[key]!.prices[price] = text
        }
        return text
    }

    /// Prices kept per currency and locale, so a catalog of distinct prices can't grow the cache without end.
    static let maximumKept = 10_000

    private struct Key: Hashable {
        var currency: String
        var locale: String
    }

    private struct Format {
        var style: Decimal.FormatStyle.Currency
        var prices: [Decimal: String] = [:]
    }

    private static let formats = Locked<[Key: Format]>([:])
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
