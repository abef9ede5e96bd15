import Foundation
import Testing
@testable import StorefrontApp

/// Offer codes (a `.storekit` file's are made up at load) are shown where a tester looks for them.
@Suite struct OfferCodesShownTests {
    @Test func everyCodeIsInTheQAPanelAndEnterRedeemsItAsTheCustomer() async throws {
        var state = try await fixtureState()
        let rows = QAPanel.rows(state)
        let codes = state.offerCodes
        #expect(!codes.isEmpty)
        for code in codes {
            let index = try #require(rows.firstIndex { $0.label.hasPrefix(code.code + " · ") }, "\(code.code) not in the QA panel")
            state.screen = .qa
            state.selection[.qa] = index
            let effects = press(&state, .enter)
            #expect(effects == [.command(.redeem(code.code))])
            storeAnswers(&state)
        }
    }

    @Test func aProductsCodesAreInItsDetailWithWhoMayRedeemThem() async throws {
        let state = try await fixtureState()
        let code = try #require(state.offerCodes.first { $0.productID == "com.lumenquest.plus.monthly" })
        let lines = ProductDetailSheet(productID: code.productID).lines(state)
        #expect(lines.contains("Offer codes (redeem with c):"))
        #expect(lines.contains { $0.hasPrefix("  \(code.code)") && $0.contains(" · ") })
    }
}
