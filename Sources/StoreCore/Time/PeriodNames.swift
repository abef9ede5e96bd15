import Foundation
import Locking
#if canImport(_FoundationICU)
import _FoundationICU
#endif

/// Subscription periods in the customer's language ("3 Monate", "9,99 €/Monat"), as the App Store shows
/// them. Foundation's formatters for calendar units are not implemented on Linux, so this asks the ICU
/// that Foundation itself formats with (the toolchain's `_FoundationICU`) for its measure-unit names;
/// English where that ICU is not there.
public enum PeriodNames {
    /// "1 week", "3 months", "3 Monate", "3か月".
    public static func duration(_ period: Period, locale: String) -> String {
        cached(period, locale, unitOnly: false) ?? period.words
    }

    /// What follows a price and "/": the unit alone for one ("month", "Monat", "か月"), else the duration ("3 months").
    public static func per(_ period: Period, locale: String) -> String {
        period.value == 1 ? cached(period, locale, unitOnly: true) ?? period.perWords : duration(period, locale: locale)
    }

    private struct Key: Hashable { var period: Period; var locale: String; var unitOnly: Bool }
    /// Opening an ICU formatter costs more than drawing a row: every name is made once.
    private static let cache = Locked<[Key: String]>([:])

    private static func cached(_ period: Period, _ locale: String, unitOnly: Bool) -> String? {
        let key = Key(period: period, locale: locale, unitOnly: unitOnly)
        if let name = cache.withLock({ $0[key] }) { return name }
        guard let name = format(period, locale: locale, unitOnly: unitOnly) else { return nil }
        cache.withLock { $0[key] = name }
        return name
    }

    private static func format(_ period: Period, locale: String, unitOnly: Bool) -> String? {
        #if canImport(_FoundationICU)
        // The toolchain's ICU renames its C functions with a `swift_` prefix (urename.h macros, which Swift does not see).
        let unit = switch period.unit { case .day: "day"; case .week: "week"; case .month: "month"; case .year: "year" }
        let skeleton = Array("measure-unit/duration-\(unit) unit-width-full-name".utf16)
        var status = U_ZERO_ERROR
        guard let formatter = swift_unumf_openForSkeletonAndLocale(skeleton, Int32(skeleton.count), locale, &status) else { return nil }
        defer { swift_unumf_close(formatter) }
        guard let result = swift_unumf_openResult(&status) else { return nil }
        defer { swift_unumf_closeResult(result) }
        swift_unumf_formatInt(formatter, Int64(period.value), result, &status)
        var buffer = [UChar](repeating: 0, count: 128)
        let length = Int(swift_unumf_resultToString(result, &buffer, Int32(buffer.count), &status))
        guard status.rawValue <= 0, length <= buffer.count else { return nil }
        guard unitOnly else { return String(decoding: buffer[..<length], as: UTF16.self) }
        var field = UFieldPosition(field: Int32(UNUM_MEASURE_UNIT_FIELD.rawValue), beginIndex: 0, endIndex: 0)
        guard swift_unumf_resultNextFieldPosition(result, &field, &status) != 0, field.endIndex <= length else { return nil }
        return String(decoding: buffer[Int(field.beginIndex)..<Int(field.endIndex)], as: UTF16.self)
        #else
        return nil
        #endif
    }
}
