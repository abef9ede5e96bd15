import Foundation
import Testing
@testable import StorefrontApp

/// The checks issue 33 added to the scenario language, each run on the real runner.
extension ScenarioRunnerTests {
    func outcomes(_ text: String) async throws -> [StepResult.Outcome] {
        try await run(text).steps.map(\.outcome)
    }

    @Test("expect message none: nothing reached the app since the last action")
    func expectMessageNone() async throws {
        #expect(try await outcomes("buy com.lumenquest.pro\nrefresh\nexpect message none") == [.passed, .passed, .passed])
        #expect(try await outcomes("buy com.lumenquest.pro\nexpect message none") == [.passed, .failed])
    }

    @Test("expect message hears what the app reports during launch (redelivered transactions)")
    func expectMessageDuringLaunch() async throws {
        let text = "quit\nbuy-elsewhere com.lumenquest.pro\nlaunch\nexpect message \"Transaction arrived: com.lumenquest.pro\""
        #expect(try await outcomes(text) == [.passed, .passed, .passed, .passed])
    }

    @Test("expect all and expect latest read the app's Transaction.all and Transaction.latest(for:)")
    func expectAllAndLatest() async throws {
        let text = """
            buy com.lumenquest.pro
            expect all 1
            expect latest com.lumenquest.pro productId com.lumenquest.pro
            expect latest com.lumenquest.pro verification verified
            expect latest com.lumenquest.removeads productId none
            """
        #expect(try await outcomes(text) == [.passed, .passed, .passed, .passed, .passed])
        #expect(try await outcomes("buy com.lumenquest.pro\nexpect all 2") == [.passed, .failed])
    }

    @Test("expect transaction PRODUCT FIELD = FIELD (or !=) compares two fields of one transaction")
    func expectFieldAgainstField() async throws {
        let text = """
            set timeRate monthlyRenewalEveryHour
            buy com.lumenquest.pro.yearly
            expect transaction com.lumenquest.pro.yearly purchaseDate = originalPurchaseDate
            advance P1Y
            expect transaction com.lumenquest.pro.yearly purchaseDate != originalPurchaseDate
            expect transaction com.lumenquest.pro.yearly purchaseDate = originalPurchaseDate
            """
        #expect(try await outcomes(text) == [.passed, .passed, .passed, .passed, .passed, .failed])
        #expect(throws: ScenarioError.self) { try ScenarioParser.parse("expect transaction p purchaseDate = nonsense", path: "/tmp/t.scenario") }
    }

    @Test("expect refused: a step the next check expects refused is its outcome, and the scenario goes on")
    func expectRefused() async throws {
        let text = "buy-elsewhere com.lumenquest.coins.100 family\nexpect refused \"not family shareable\"\nexpect ledger 0"
        #expect(try await outcomes(text) == [.passed, .passed, .passed])
        #expect(try await outcomes("buy com.lumenquest.pro\nexpect refused \"anything\"") == [.passed, .failed])
        #expect(try await outcomes("approve com.lumenquest.pro\nexpect refused \"no such words\"") == [.passed, .failed])
    }

    @Test("clear keeps the app's wallet (Xcode's Delete All Transactions touches only the store); reset empties it")
    func clearKeepsTheAppsWallet() async throws {
        let text = """
            buy com.lumenquest.coins.100 quantity 5
            clear
            buy com.lumenquest.coins.100 quantity 3
            expect balance com.lumenquest.coins.100 8
            reset
            expect balance com.lumenquest.coins.100 0
            """
        #expect(try await outcomes(text) == [.passed, .passed, .passed, .passed, .passed, .passed])
    }
}

extension ScenarioRunnerTests {
    @Test("promote: the customer taps a promotion on the App Store, and the app hears a PurchaseIntent; a wrong offer is refused")
    func promoteSendsAPurchaseIntentToTheApp() async throws {
        let text = """
            promote com.lumenquest.plus.monthly offer plus.loyalty
            expect message "Purchase begun on the App Store: com.lumenquest.plus.monthly"
            promote com.lumenquest.coins.100 offer plus.winback
            expect refused "not an auto-renewable subscription"
            expect ledger 0
            """
        let report = try await run(text)
        #expect(report.steps.map(\.outcome) == [.passed, .passed, .passed, .passed, .passed], "\(report.steps)")
    }
}
