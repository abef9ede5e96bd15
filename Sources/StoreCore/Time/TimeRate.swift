import Foundation

/// Xcode's StoreKit testing time rates (`SKTestSession.TimeRate`, the `.storekit` `_timeRate` integers).
public enum TimeRate: Int, CaseIterable, Sendable, Codable {
    case realTime = 0
    case oneHourIsOneDay = 1, thirtyMinutesIsOneDay = 2, fiveMinutesIsOneDay = 3
    case oneMinuteIsOneDay = 4, thirtySecondsIsOneDay = 5, oneSecondIsOneDay = 6
    case monthlyRenewalEveryHour = 10, monthlyRenewalEveryThirtyMinutes = 11
    case monthlyRenewalEveryFifteenMinutes = 12, monthlyRenewalEveryFiveMinutes = 13
    case monthlyRenewalEveryThirtySeconds = 15
    case oneRenewalEveryFifteenMinutes = 1000, oneRenewalEveryFiveMinutes = 1001
    case oneRenewalEveryMinute = 1002, oneRenewalEveryThirtySeconds = 1003
    case oneRenewalEveryTenSeconds = 1004, oneRenewalEveryTwoSeconds = 1005
    /// Apple's sandbox tiers (a Sandbox Apple Account's renewal rate), not Xcode's: Storefront's own
    /// integers, never found in a `.storekit` file. A subscription renews at most 12 times under them.
    case sandboxMonthlyEveryThreeMinutes = 2000, sandboxMonthlyEveryFiveMinutes = 2001
    case sandboxMonthlyEveryThirtyMinutes = 2002, sandboxMonthlyEveryHour = 2003

    /// Accepts the Swift case name or the integer.
    public init?(name: String) {
        if let int = Int(name), let rate = TimeRate(rawValue: int) { self = rate; return }
        guard let rate = Self.allCases.first(where: { "\($0)" == name }) else { return nil }
        self = rate
    }

    public var name: String { "\(self)" }

    /// How a rate compresses time. Xcode does not run a fast clock: dates stay wall-clock dates and
    /// *durations* are compressed (storekit.md, "Dates under a time rate").
    enum Compression {
        /// Real time: the calendar decides (anniversary days).
        case none
        /// The deprecated "N is one day" rates: every calendar day of a duration lasts N seconds.
        case secondsPerDay(Double)
        /// `monthlyRenewalEvery…` and the sandbox's tiers: a month lasts `month` seconds, a week `week`
        /// (Apple's tables: not always a third of the month), a day a seventh of the week.
        case secondsPerMonth(Double, week: Double)
        /// `oneRenewalEvery…`: every subscription period lasts N seconds, whatever its length.
        case secondsPerRenewal(Double)
    }

    var compression: Compression {
        switch self {
        case .realTime: .none
        case .oneHourIsOneDay: .secondsPerDay(3600)
        case .thirtyMinutesIsOneDay: .secondsPerDay(1800)
        case .fiveMinutesIsOneDay: .secondsPerDay(300)
        case .oneMinuteIsOneDay: .secondsPerDay(60)
        case .thirtySecondsIsOneDay: .secondsPerDay(30)
        case .oneSecondIsOneDay: .secondsPerDay(1)
        case .monthlyRenewalEveryHour, .sandboxMonthlyEveryHour: .secondsPerMonth(3600, week: 900)
        case .monthlyRenewalEveryThirtyMinutes, .sandboxMonthlyEveryThirtyMinutes: .secondsPerMonth(1800, week: 600)
        case .monthlyRenewalEveryFifteenMinutes: .secondsPerMonth(900, week: 300)
        case .monthlyRenewalEveryFiveMinutes, .sandboxMonthlyEveryFiveMinutes: .secondsPerMonth(300, week: 180)
        case .sandboxMonthlyEveryThreeMinutes: .secondsPerMonth(180, week: 180)
        case .monthlyRenewalEveryThirtySeconds: .secondsPerMonth(30, week: 10)
        case .oneRenewalEveryFifteenMinutes: .secondsPerRenewal(900)
        case .oneRenewalEveryFiveMinutes: .secondsPerRenewal(300)
        case .oneRenewalEveryMinute: .secondsPerRenewal(60)
        case .oneRenewalEveryThirtySeconds: .secondsPerRenewal(30)
        case .oneRenewalEveryTenSeconds: .secondsPerRenewal(10)
        case .oneRenewalEveryTwoSeconds: .secondsPerRenewal(2)
        }
    }

    /// How long a subscription (or offer) `period` starting at `start` lasts; nil under real time,
    /// where it ends on the calendar's anniversary. Under `monthlyRenewalEveryThirtySeconds`, Xcode's
    /// table: weekly 10 s, monthly 30 s, 2 months 1 min, 3 months 1 min 30 s, 6 months 3 min, yearly 6 min;
    /// under every 5 minutes (Xcode's and the sandbox's) a week is 3 min, under every hour 15 min.
    public func duration(of period: Period, from start: Date) -> TimeInterval? {
        let count = Double(period.value)
        switch compression {
        case .none: return nil
        case .secondsPerDay(let day): return period.advance(start).timeIntervalSince(start) / 86_400 * day
        case .secondsPerRenewal(let interval): return interval
        case .secondsPerMonth(let month, let week):
            switch period.unit {
            case .day: return count * week / 7
            case .week: return count * week
            case .month: return count * month
            case .year: return count * 12 * month
            }
        }
    }

    /// The billing grace period: 16 days, 6 for a weekly subscription, compressed under a time rate
    /// (Xcode's table under `monthlyRenewalEveryThirtySeconds`: 15 s, 9 s for a weekly one).
    public func gracePeriod(weekly: Bool) -> TimeInterval {
        switch compression {
        case .none, .secondsPerDay: compressed((weekly ? 6 : 16) * 86_400)
        case .secondsPerMonth(let unit, _), .secondsPerRenewal(let unit): (weekly ? 0.3 : 0.5) * unit
        }
    }

    /// How long `seconds` of the App Store's real time last (billing retry's 60 days, notification
    /// retries' hours); unchanged under real time. Xcode's billing retry under a 30-second month: 1 min.
    public func compressed(_ seconds: TimeInterval) -> TimeInterval {
        switch compression {
        case .none: seconds
        case .secondsPerDay(let day): seconds / 86_400 * day
        case .secondsPerMonth(let unit, _), .secondsPerRenewal(let unit): seconds / (30 * 86_400) * unit
        }
    }

    public var isDeprecated: Bool { (1...6).contains(rawValue) }

    /// How many times a subscription renews before it stops (auto-renew off, then expired): the
    /// sandbox's 12; nil, without end, under Xcode's rates and real time.
    public var renewalLimit: Int? { rawValue >= 2000 ? 12 : nil }

    public var title: String {
        switch self {
        case .realTime: "Real time"
        case .oneHourIsOneDay: "1 hour = 1 day"
        case .thirtyMinutesIsOneDay: "30 minutes = 1 day"
        case .fiveMinutesIsOneDay: "5 minutes = 1 day"
        case .oneMinuteIsOneDay: "1 minute = 1 day"
        case .thirtySecondsIsOneDay: "30 seconds = 1 day"
        case .oneSecondIsOneDay: "1 second = 1 day"
        case .monthlyRenewalEveryHour: "Monthly renewal every hour"
        case .monthlyRenewalEveryThirtyMinutes: "Monthly renewal every 30 minutes"
        case .monthlyRenewalEveryFifteenMinutes: "Monthly renewal every 15 minutes"
        case .monthlyRenewalEveryFiveMinutes: "Monthly renewal every 5 minutes"
        case .monthlyRenewalEveryThirtySeconds: "Monthly renewal every 30 seconds"
        case .oneRenewalEveryFifteenMinutes: "One renewal every 15 minutes"
        case .oneRenewalEveryFiveMinutes: "One renewal every 5 minutes"
        case .oneRenewalEveryMinute: "One renewal every minute"
        case .oneRenewalEveryThirtySeconds: "One renewal every 30 seconds"
        case .oneRenewalEveryTenSeconds: "One renewal every 10 seconds"
        case .oneRenewalEveryTwoSeconds: "One renewal every 2 seconds"
        case .sandboxMonthlyEveryThreeMinutes: "Sandbox: monthly every 3 minutes"
        case .sandboxMonthlyEveryFiveMinutes: "Sandbox: monthly every 5 minutes"
        case .sandboxMonthlyEveryThirtyMinutes: "Sandbox: monthly every 30 minutes"
        case .sandboxMonthlyEveryHour: "Sandbox: monthly every hour"
        }
    }
}
