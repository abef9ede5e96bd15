import Foundation
import Testing
import StorefrontTestSupport
@testable import StorefrontApp

/// Every number a scenario line carries, at the edges of Int64: an error with file:line and the limit, never a trap.
@Suite("Scenario parser limits")
struct ScenarioParserLimitTests {
    func error(_ text: String) -> String? {
        do { _ = try ScenarioParser.parse(text, path: "/q/limits.scenario"); return nil } catch { return error.description }
    }

    static let huge = ["9223372036854775807", "9223372036854775808", "18446744073709551616", "99999999999999999999999", "-9223372036854775808"]

    @Test("a wait longer than 10 minutes, in any unit and however long, names the limit", arguments: huge)
    func longWaits(number: String) {
        for unit in ["ms", "s", "m"] {
            let message = error("wait \(number)\(unit)")
            #expect(message?.hasPrefix("limits.scenario:1: '\(number)\(unit)'") == true, "\(String(describing: message))")
            #expect(number.hasPrefix("-") || message?.contains("longer than 10m") == true, "\(String(describing: message))")
        }
    }

    @Test("the longest wait is allowed; one millisecond more is not")
    func waitLimit() {
        #expect(error("wait 10m") == nil)
        #expect(error("wait 600000ms") == nil)
        #expect(error("wait 600001ms")?.contains("longer than 10m") == true)
        #expect(error("wait 0s")?.contains("is not a duration") == true)
    }

    @Test("an advance too long for one step names the clock's last day", arguments: ["P5000Y", "P1001D", "P9223372036854775808M", "P99999999999999999999W"])
    func longAdvances(period: String) {
        let message = error("advance \(period)")
        #expect(message?.hasPrefix("limits.scenario:1: '\(period)' is too long") == true, "\(String(describing: message))")
        #expect(message?.contains("9999-12-31") == true)
    }

    @Test("huge quantities and counts are errors or values, never traps", arguments: huge)
    func quantities(number: String) {
        _ = error("buy p quantity \(number)")
        _ = error("expect transactions \(number)")
        _ = error("expect balance p \(number)")
        _ = error("original-app 1.0 date \(number)-01-01")
        #expect(error("advance P\(number)Y") != nil)
    }
}
