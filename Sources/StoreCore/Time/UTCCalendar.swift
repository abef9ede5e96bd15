import Foundation

/// Day and month arithmetic in UTC on the Gregorian calendar, by counting days (Howard Hinnant's
/// civil-date algorithms), for the dates a store keeps. It gives exactly what Foundation's UTC
/// Gregorian `Calendar` gives (a test compares them) in an eighth of the time: a renewal asks it
/// several times, and a simulated year spent a sixth of its time outside signing in `Calendar`.
/// Dates before 1583, where Foundation's calendar turns Julian, and from 10000 on are nil: callers
/// fall back to `Calendar` there.
enum UTCCalendar {
    static let secondsPerDay = 86_400.0
    /// 1583-01-01 to 9999-12-31, in seconds since 1970.
    static let supported = -12_212_553_600.0 ..< 253_402_300_800.0

    /// Year, month (1–12) and day of the month of the day `days` after 1970-01-01.
    static func civil(days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)  // from March 1
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, dayOfYear - (153 * shiftedMonth + 2) / 5 + 1)
    }

    /// Days from 1970-01-01 to the given day.
    static func days(year: Int, month: Int, day: Int) -> Int {
        let year = month <= 2 ? year - 1 : year
        let era = (year >= 0 ? year : year - 399) / 400
        let yearOfEra = year - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        return era * 146_097 + yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear - 719_468
    }

    static func lastDay(year: Int, month: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// The day `date` falls on, and how many days it is after 1970-01-01; nil outside `supported`.
    static func day(of date: Date) -> (days: Int, year: Int, month: Int, day: Int)? {
        let seconds = date.timeIntervalSince1970
        guard supported.contains(seconds) else { return nil }
        let days = Int((seconds / secondsPerDay).rounded(.down))
        let (year, month, day) = civil(days: days)
        return (days, year, month, day)
    }

    /// `date` moved by whole days, its time of day kept.
    static func adding(days: Int, to date: Date) -> Date? {
        within(date.addingTimeInterval(Double(days) * secondsPerDay))
    }

    /// `date` moved by `months` (≥ 0), on the same day of the month or the last day of a shorter
    /// month (Jan 31 + 1 month = Feb 28), its time of day kept.
    static func adding(months: Int, to date: Date) -> Date? {
        guard months >= 0, let start = day(of: date) else { return nil }
        let total = start.year * 12 + (start.month - 1) + months
        let (year, month) = (total / 12, total % 12 + 1)
        let end = days(year: year, month: month, day: min(start.day, lastDay(year: year, month: month)))
        return adding(days: end - start.days, to: date)
    }

    private static func within(_ date: Date) -> Date? { supported.contains(date.timeIntervalSince1970) ? date : nil }
}
