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

    /// Accepts the Swift case name or the integer.
    public init?(name: String) {
        if let int = Int(name), let rate = TimeRate(rawValue: int) { self = rate; return }
        guard let rate = Self.allCases.first(where: { "\($0)" == name }) else { return nil }
        self = rate
    }

    public var name: String { "\(self)" }

    /// How many store seconds pass per real second, for rates that scale time uniformly.
    /// `oneRenewalEvery…` rates scale each subscription by its own period: see `renewalInterval`.
    public var speed: Double {
        let day = 86_400.0, month = 30 * day
        switch self {
        case .realTime: return 1
        case .oneHourIsOneDay: return day / 3600
        case .thirtyMinutesIsOneDay: return day / 1800
        case .fiveMinutesIsOneDay: return day / 300
        case .oneMinuteIsOneDay: return day / 60
        case .thirtySecondsIsOneDay: return day / 30
        case .oneSecondIsOneDay: return day
        case .monthlyRenewalEveryHour: return month / 3600
        case .monthlyRenewalEveryThirtyMinutes: return month / 1800
        case .monthlyRenewalEveryFifteenMinutes: return month / 900
        case .monthlyRenewalEveryFiveMinutes: return month / 300
        case .monthlyRenewalEveryThirtySeconds: return month / 30
        // One renewal of any period every N seconds: a month's speed is a reasonable global clock speed.
        case .oneRenewalEveryFifteenMinutes: return month / 900
        case .oneRenewalEveryFiveMinutes: return month / 300
        case .oneRenewalEveryMinute: return month / 60
        case .oneRenewalEveryThirtySeconds: return month / 30
        case .oneRenewalEveryTenSeconds: return month / 10
        case .oneRenewalEveryTwoSeconds: return month / 2
        }
    }

    /// Real seconds between renewals under `oneRenewalEvery…`; nil for rates that scale the calendar.
    public var renewalInterval: TimeInterval? {
        switch self {
        case .oneRenewalEveryFifteenMinutes: 900
        case .oneRenewalEveryFiveMinutes: 300
        case .oneRenewalEveryMinute: 60
        case .oneRenewalEveryThirtySeconds: 30
        case .oneRenewalEveryTenSeconds: 10
        case .oneRenewalEveryTwoSeconds: 2
        default: nil
        }
    }

    public var isDeprecated: Bool { (1...6).contains(rawValue) }

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
        }
    }
}
