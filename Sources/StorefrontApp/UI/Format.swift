import Foundation

/// Dates in UTC with a fixed pattern, so the store clock reads the same on every machine and in goldens.
enum Format {
    /// "1 product", "9 products".
    static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

    static func date(_ date: Date) -> String {
        date.formatted(Date.VerbatimFormatStyle(format: "\(year: .defaultDigits)-\(month: .twoDigits)-\(day: .twoDigits)",
                                                timeZone: .gmt, calendar: Calendar(identifier: .gregorian)))
    }

    /// `seconds`: under a time rate, where a period lasts seconds, they are worth showing.
    static func dateTime(_ date: Date, seconds: Bool = false) -> String {
        let minutes = date.formatted(Date.VerbatimFormatStyle(
            format: "\(year: .defaultDigits)-\(month: .twoDigits)-\(day: .twoDigits) \(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits)",
            timeZone: .gmt, calendar: Calendar(identifier: .gregorian)))
        guard seconds else { return minutes }
        return minutes + date.formatted(Date.VerbatimFormatStyle(format: ":\(second: .twoDigits)", timeZone: .gmt, calendar: Calendar(identifier: .gregorian)))
    }
}
