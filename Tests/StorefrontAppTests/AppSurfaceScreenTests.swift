import Foundation
import Testing
import TerminalUI
import StoreEngine
@testable import StorefrontApp

/// The refund request, manage-subscriptions and app info sheets: goldens and key paths.
@Suite struct AppSurfaceScreenTests {
    let golden = GoldenScreenTests()

    @Test func refundRequestSheet() async throws {
        var state = try await fixtureState()
        press(&state, .character("3"), .down, .character("f"))
        try golden.assertScreen("refund-request", render(state, size: GoldenScreenTests.size).text)
    }

    @Test("choosing a reason requests the refund; Esc is userCancelled and requests nothing")
    func refundRequestKeys() async throws {
        var state = try await fixtureState()
        press(&state, .character("3"), .down, .character("f"))
        let effects = press(&state, .down, .enter)
        guard case .command(.requestRefund(_, let reason))? = effects.first else { Issue.record("expected a refund request, got \(effects)"); return }
        #expect(reason == RefundRequestSheet.reasons[1].reason)
        press(&state, .character("f"))
        #expect(press(&state, .escape).isEmpty)
        #expect(state.status == "Refund request cancelled (userCancelled)")
    }

    @Test func manageSubscriptionsSheet() async throws {
        var state = try await fixtureState()
        press(&state, .character("2"), .character("m"))
        try golden.assertScreen("manage-subscriptions", render(state, size: GoldenScreenTests.size).text)
    }

    @Test("the manage-subscriptions sheet cancels and switches plans through effects, once confirmed")
    func manageKeys() async throws {
        var state = try await fixtureState()
        press(&state, .character("2"), .character("m"))
        #expect(press(&state, .enter) == [.command(.retentionOffer("lumenquest.membership"))], "what the developer offers first")
        #expect(reduce(&state, .finished(.retention(group: "lumenquest.membership", nil))).isEmpty, "no message: only the question")
        #expect(press(&state, .character("y")) == [.command(.manage("lumenquest.membership", .cancel))])
        press(&state, .character("m"))
        let effects = press(&state, .down, .enter, .character("y"))
        guard case .command(.manage(_, .switchTo))? = effects.first else { Issue.record("expected a plan switch, got \(effects)"); return }
    }

    @Test("the cancel sheet shows the developer's retention message and what the backend offers: another plan, a signed promotional offer")
    func retentionMessageOnTheCancelSheet() async throws {
        var state = try await fixtureState()
        press(&state, .character("2"), .character("m"))
        let current = try #require(state.snapshot.effectiveStatus(group: "lumenquest.membership")?.transaction.payload?.productID)
        let offer = RetentionOffer(message: RetentionMessage(header: "Before you go", body: "Stay for half price.", bullets: ["Cloud saves"]),
                                   alternateProductID: "com.lumenquest.plus.monthly",
                                   promotionalOffer: PromotionalOfferChoice(offerID: "pro.comeback50", signature: "a.b.c"), fromBackend: true)
        _ = reduce(&state, .finished(.retention(group: "lumenquest.membership", offer)))
        guard case .menu(let sheet)? = state.top else { Issue.record("no retention sheet: \(String(describing: state.top))"); return }
        #expect(sheet.title == "Before you go" && sheet.note == "Stay for half price.  • Cloud saves")
        #expect(sheet.items.map(\.label).first == "Keep my subscription" && sheet.items.last?.label == "Cancel subscription")
        #expect(sheet.items.contains { $0.effect == .command(.manage("lumenquest.membership", .switchTo(productID: "com.lumenquest.plus.monthly"))) })
        #expect(press(&state, .down, .down, .enter) == [.command(.buy(current, quantity: 1, offer: "pro.comeback50", signature: .given("a.b.c"),
                                                                           askToBuy: false, answer: .confirm))])
    }

    /// iOS confirms a plan change with the price and when it takes effect.
    @Test func manageSubscriptionsConfirmsWithThePriceAndWhen() async throws {
        var state = try await fixtureState()
        press(&state, .character("2"), .character("m"), .down, .enter)
        try golden.assertScreen("manage-subscriptions-confirm", render(state, size: GoldenScreenTests.size).text)
        guard case .confirm(let sheet)? = state.top else { Issue.record("no confirmation"); return }
        #expect(sheet.message.contains("$99.99/year") && sheet.message.contains("starts now"))
        press(&state, .escape, .character("m"), .down, .down, .down, .enter)
        guard case .confirm(let later)? = state.top else { Issue.record("no confirmation"); return }
        #expect(later.message.contains("starts on 2026-06-04"), "\(later.message)")
    }

    @Test func appInfoSheet() async throws {
        var state = try await fixtureState()
        press(&state, .character("a"))
        // The app transaction ID is random per store: mask it.
        let text = render(state, size: GoldenScreenTests.size).text
            .replacingOccurrences(of: #"App transaction ID: \d+"#, with: "App transaction ID: 7…", options: .regularExpression)
        try golden.assertScreen("app-info", text)
    }
}

extension AppSurfaceScreenTests {
    @Test("a pending Ask to Buy request cannot be refunded")
    func pendingNotRefundable() async throws {
        var state = try await fixtureState()
        press(&state, .character("3"), .character("f"))
        #expect(state.top == .message(title: "Request a Refund", text: "Only completed purchases can be refunded."))
    }
}

/// The remaining sheets: product detail, a confirmation, the QA transaction menu, a failure message.
@Suite struct SheetScreenTests {
    let golden = GoldenScreenTests()

    @Test func productDetailSheet() async throws {
        var state = try await fixtureState()
        press(&state, .down, .down, .character("i"))
        try golden.assertScreen("product-detail", render(state, size: GoldenScreenTests.size).text)
    }

    @Test func resetConfirmation() async throws {
        var state = try await fixtureState()
        press(&state, .character("4"))
        let reset = QAPanel.rows(state).firstIndex { $0.label == "Reset store" }!
        state.selection[.qa] = reset
        press(&state, .enter)
        try golden.assertScreen("qa-reset-confirm", render(state, size: GoldenScreenTests.size).text)
    }

    @Test func ledgerActionMenu() async throws {
        var state = try await fixtureState()
        press(&state, .character("4"), .end, .enter)
        try golden.assertScreen("qa-ledger-menu", render(state, size: GoldenScreenTests.size).text)
    }

    @Test("a redeemed code's transaction arriving before the store's answer keeps its line: what the code gave")
    func redeemedCodeArrivingFirstKeepsItsLine() async throws {
        var state = try await fixtureState()
        _ = reduce(&state, .appEvent(.transactionArrived(productID: "com.lumenquest.coins.100", offer: .code)))
        _ = reduce(&state, .finished(.redeem(code: "COINS100", nil)))
        #expect(state.status.hasPrefix("Offer code redeemed: "), "\(state.status)")
        var answeredFirst = try await fixtureState()
        _ = reduce(&answeredFirst, .finished(.redeem(code: "COINS100", nil)))
        #expect(answeredFirst.status == "Code COINS100 accepted")
        _ = reduce(&answeredFirst, .appEvent(.transactionArrived(productID: "com.lumenquest.coins.100", offer: .code)))
        #expect(answeredFirst.status.hasPrefix("Offer code redeemed: "), "\(answeredFirst.status)")
    }

    @Test func purchaseFailedMessage() async throws {
        var state = try await fixtureState()
        _ = reduce(&state, .finished(.purchase(productID: "com.lumenquest.pro", .failed(.storeKit(.networkError)))))
        try golden.assertScreen("purchase-failed", render(state, size: GoldenScreenTests.size).text)
    }
}
