import StoreCore
import StoreClient

/// Checks of what the app itself was handed (its `Transaction.all` and `latest(for:)`), and of a refused step.
extension ScenarioRunner {
    func appView(_ e: ScenarioExpectation, _ s: StoreSnapshot) -> String {
        switch e.probe {
        case .all: return String(s.history.count)
        case .latest:
            guard let latest = s.history.first(where: { $0.payload?.productID == e.subject[0] }) else { return "none" }
            if e.subject[1] == "verification" { return latest.error?.rawValue ?? "verified" }
            return Self.text(latest.payload?.json[e.subject[1]])
        default: return lastRefusal ?? "none"
        }
    }

    /// Whether `step` is `expect refused "TEXT"`: the step before it is meant to be refused.
    static func expectsRefusal(_ step: ScenarioStep?) -> Bool {
        guard case .expect(let e)? = step?.kind else { return false }
        return e.probe == .refused && e.expected != "none"
    }
}
