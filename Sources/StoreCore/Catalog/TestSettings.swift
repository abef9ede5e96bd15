import Foundation

/// StoreKit testing settings a catalog may set by default (as a `.storekit` file's `settings`),
/// and that the QA panel and scenarios change at run time.
public struct TestSettings: Hashable, Sendable {
    public var storefront: String?
    public var locale: String?
    public var timeRate: TimeRate = .realTime
    public var askToBuy = false
    /// Purchases need a "resolve" step before completing (Xcode's interrupted purchases).
    public var interruptedPurchases = false
    /// Renewals fail and enter billing retry.
    public var billingRetryOnRenewal = false
    public var gracePeriod = false
    /// Signed data fails verification, to test the unverified path.
    public var invalidSignatures = false
    /// Refund requests from the app are approved at once (Xcode's behaviour) instead of waiting for the tester.
    public var autoApproveRefunds = false
    /// Seconds a purchase stays "in flight", to show a realistic spinner.
    public var networkDelay: Double = 0
    /// Errors injected per API, as `SKTestSession.setSimulatedError(_:forAPI:)`.
    public var failures: [StoreAPI: StoreFailure] = [:]
    /// What signed data names as its environment.
    public var environment = StoreEnvironment.standard
    /// Where App Store Server Notifications V2 are POSTed; nil: recorded, not sent (as with no URL in App Store Connect).
    public var notificationURL: String?
    /// The account token the storefront's own app passes with every purchase (`.appAccountToken(_:)`),
    /// as an app passes its signed-in user's; a purchase that names one keeps its own. nil: none.
    public var appAccountToken: UUID?

    public init() {}

    /// Why `text` cannot be a notification URL (an absolute http or https URL with a host); nil when it can.
    public static func notificationURLProblem(_ text: String) -> String? {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              let host = url.host, !host.isEmpty else {
            return "\"\(redacted(text))\" is not an http or https URL (for example http://127.0.0.1:8080/notifications)"
        }
        if let port = url.port, !(1...65535).contains(port) {
            return "\"\(redacted(text))\": port \(port) is out of range (1–65535)"
        }
        return nil
    }

    /// The URL as it may be shown: a password in it (`http://user:secret@host/`) as `***`, since
    /// banners, screens and logs are read over shoulders and pasted into tickets.
    public static func redacted(_ text: String) -> String {
        guard let start = text.range(of: "://")?.upperBound else { return text }
        let authority = text[start...].prefix { !"/?#".contains($0) }
        guard let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") else { return text }
        return String(text[..<text.index(after: colon)]) + "***" + String(text[at...])
    }
}

/// The on/off test settings, one vocabulary: the catalog's `settings` keys, the scenario's
/// `set NAME on|off`, and the QA panel's rows all read this table.
public enum TestSetting: String, CaseIterable, Sendable {
    case askToBuy, interruptedPurchases, billingRetryOnRenewal, gracePeriod, invalidSignatures, autoApproveRefunds

    /// By its catalog key, or the shorter name older scenarios use (`billingRetry`).
    public init?(name: String) {
        if name == "billingRetry" { self = .billingRetryOnRenewal; return }
        self.init(rawValue: name)
    }

    public var title: String {
        switch self {
        case .askToBuy: "Ask to Buy"
        case .interruptedPurchases: "Interrupted purchases"
        case .billingRetryOnRenewal: "Billing retry on renewal"
        case .gracePeriod: "Billing grace period"
        case .invalidSignatures: "Invalid signatures"
        case .autoApproveRefunds: "Approve refund requests at once"
        }
    }

    public var keyPath: WritableKeyPath<TestSettings, Bool> {
        switch self {
        case .askToBuy: \.askToBuy
        case .interruptedPurchases: \.interruptedPurchases
        case .billingRetryOnRenewal: \.billingRetryOnRenewal
        case .gracePeriod: \.gracePeriod
        case .invalidSignatures: \.invalidSignatures
        case .autoApproveRefunds: \.autoApproveRefunds
        }
    }
}
