import Foundation
import Locking

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
        let since1970 = date.timeIntervalSince1970
        // Beyond a few hundred thousand years Foundation's calendar is no longer exact arithmetic: its own answer.
        guard since1970.isFinite, abs(since1970) < 1e13 else {
            return formattedMinute(date) + (seconds ? date.formatted(Date.VerbatimFormatStyle(
                format: ":\(second: .twoDigits)", timeZone: .gmt, calendar: Calendar(identifier: .gregorian))) : "")
        }
        let minute = (since1970 / 60).rounded(.down)
        let minutes = lastMinute.withLock { last in
            if last.minute != minute { last = (minute, formattedMinute(date)) }
            return last.text
        }
        guard seconds else { return minutes }
        let second = Int(since1970 - minute * 60)  // 0...59, a minute being 60 seconds in UTC
        return minutes + (second < 10 ? ":0\(second)" : ":\(second)")
    }

    /// The minute the status line shows on every frame: formatting it again was a sixth of drawing one.
    private static let lastMinute = Locked<(minute: Double, text: String)>((.nan, ""))

    static func formattedMinute(_ date: Date) -> String {
        date.formatted(Date.VerbatimFormatStyle(
            format: "\(year: .defaultDigits)-\(month: .twoDigits)-\(day: .twoDigits) \(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits)",
            timeZone: .gmt, calendar: Calendar(identifier: .gregorian)))
    }
}
