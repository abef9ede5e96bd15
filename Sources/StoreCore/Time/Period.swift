import Foundation

/// An ISO 8601 duration of one unit, as StoreKit uses for subscription periods (`P1W`, `P3M`, `P1Y`, `P3D`).
public struct Period: Hashable, Sendable, CustomStringConvertible {
    public enum Unit: String, Sendable, CaseIterable {
        case day = "D", week = "W", month = "M", year = "Y"

        var calendarComponent: Calendar.Component {
            switch self { case .day: .day; case .week: .weekOfYear; case .month: .month; case .year: .year }
        }

        var approximateSeconds: Double {
            switch self { case .day: 86_400; case .week: 7 * 86_400; case .month: 30.44 * 86_400; case .year: 365.25 * 86_400 }
        }

        var word: String {
            switch self { case .day: "day"; case .week: "week"; case .month: "month"; case .year: "year" }
        }
    }

    public var value: Int
    public var unit: Unit

    public init(_ value: Int, _ unit: Unit) {
        self.value = value
        self.unit = unit
    }

    /// Parses `P<n><D|W|M|Y>`; anything else is nil.
    public init?(iso: String) {
        guard iso.count >= 3, iso.first == "P", let unit = Unit(rawValue: String(iso.last!)),
              let value = Int(iso.dropFirst().dropLast()), value > 0, value <= 1000 else { return nil }
        self.init(value, unit)
    }

    public var iso: String { "P\(value)\(unit.rawValue)" }
    public var description: String { iso }

    /// "1 week", "3 months".
    public var words: String { value == 1 ? "1 \(unit.word)" : "\(value) \(unit.word)s" }
    /// "week", "3 months": the form that follows "per" or "/".
    public var perWords: String { value == 1 ? unit.word : words }

    /// Calendar arithmetic in UTC, so a monthly subscription bought on Jan 31 renews on the last day of February.
    /// Past what the calendar handles, an approximation that still moves forward: a renewal must never end where it began.
    public func advance(_ date: Date, by times: Int = 1) -> Date {
        let count = value * times
        let fast = switch unit {
        case .day: times >= 0 ? UTCCalendar.adding(days: count, to: date) : nil
        case .week: times >= 0 ? UTCCalendar.adding(days: 7 * count, to: date) : nil
        case .month: UTCCalendar.adding(months: count, to: date)
        case .year: UTCCalendar.adding(months: 12 * count, to: date)
        }
        return fast ?? Self.calendar.date(byAdding: unit.calendarComponent, value: count, to: date)
            ?? date.addingTimeInterval(Double(count) * unit.approximateSeconds)
    }

    /// The end of a period that starts at `start`, in a run whose first period began on day
    /// `anchorDay` of its month: monthly and yearly periods end on that day wherever the month has
    /// it, as the App Store renews (Jan 31 → Feb 28 → Mar 31), not a day earlier after every short month.
    public func advance(_ start: Date, anchorDay: Int) -> Date {
        let end = advance(start)
        guard unit == .month || unit == .year else { return end }
        let day = Self.day(of: end), last = Self.lastDay(ofMonthOf: end)
        guard day < anchorDay, day < last else { return end }
        return UTCCalendar.adding(days: min(anchorDay, last) - day, to: end)
            ?? Self.calendar.date(byAdding: .day, value: min(anchorDay, last) - day, to: end) ?? end
    }

    /// The anchor day of a run whose period ends at `date`: `anchor` if `date` falls on it (or on
    /// the last day of a month too short for it); otherwise the run was broken (an offer's weeks,
    /// a plan change, a forced renewal) and `date` starts a new one.
    public static func anchorDay(_ anchor: Int?, at date: Date) -> Int {
        let day = day(of: date)
        guard let anchor, anchor > day, day == lastDay(ofMonthOf: date) else { return day }
        return anchor
    }

    public static func day(of date: Date) -> Int { UTCCalendar.day(of: date)?.day ?? calendar.component(.day, from: date) }

    static func lastDay(ofMonthOf date: Date) -> Int {
        guard let day = UTCCalendar.day(of: date) else { return calendar.range(of: .day, in: .month, for: date)?.count ?? 31 }
        return UTCCalendar.lastDay(year: day.year, month: day.month)
    }

    static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()
}
