import Foundation

/// The store's dates end with year 9999: four-digit years, as ISO 8601 and every report print
/// them, and far inside what calendar arithmetic handles (it fails near year 500,000, where a
/// renewal would end where it began and renewals would never end).
public enum SupportedDates {
    public static let latest = Date(timeIntervalSince1970: 253_402_300_799)  // 9999-12-31T23:59:59Z
    public static let latestText = "9999-12-31"

    /// Why the clock cannot be advanced by `period` from `now`, or nil when it can.
    public static func problem(advancing now: Date, by period: Period) -> String? {
        guard period.advance(now) > latest else { return nil }
        return "the store clock cannot go past \(latestText) (advancing \(period.words) from \(now.formatted(.iso8601.year().month().day())) would pass it)"
    }
}
