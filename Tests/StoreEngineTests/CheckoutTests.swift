import Foundation
import Testing
import StoreCore
@testable import StoreEngine

@Suite("Checkout: quantity, Ask to Buy, interrupted purchases (plain values)")
struct CheckoutTests {
    @Test("up to 10 of a consumable or a non-renewing subscription in one purchase, exactly one of anything else")
    func quantities() {
        #expect(Checkout.allowedQuantities(of: .consumable) == 1...10)
        #expect(Checkout.allowedQuantities(of: .nonRenewing) == 1...10)
        for type in [ProductType.nonConsumable, .autoRenewable] {
            #expect(Checkout.allowedQuantities(of: type) == 1...1, "\(type)")
        }
    }

    @Test("Ask to Buy holds a purchase for approval, before an interruption; nothing set completes it at once")
    func holds() {
        var settings = TestSettings()
        #expect(Checkout.hold(settings, PurchaseOptions()) == nil)
        #expect(Checkout.hold(settings, PurchaseOptions(simulatesAskToBuy: true)) == .pendingApproval)
        settings.environment = .xcode
        #expect(Checkout.hold(settings, PurchaseOptions(simulatesAskToBuy: true)) == nil, "the option is the Sandbox's")
        settings.environment = .sandbox
        settings.interruptedPurchases = true
        #expect(Checkout.hold(settings, PurchaseOptions()) == .interrupted)
        settings.askToBuy = true
        #expect(Checkout.hold(settings, PurchaseOptions()) == .pendingApproval)
    }

    @Test("a held purchase's period starts when it completes, not when it was asked for")
    func periodStartsOnCompletion() {
        let asked = Fixture.date("2027-01-01T00:00:00Z"), approved = Fixture.date("2027-01-05T12:00:00Z")
        let held = Fixture.payload(purchased: asked, expires: Fixture.days(7, after: asked))
        let done = Checkout.completed(held, at: approved)
        #expect(done.purchaseDate == approved)
        #expect(done.originalPurchaseDate == approved)
        #expect(done.expirationDate == Fixture.days(7, after: approved))
        #expect(Checkout.completed(Fixture.payload(type: .nonConsumable, purchased: asked), at: approved).expirationDate == nil)
    }

    @Test("a held resubscription keeps its group's original purchase date when it completes")
    func heldResubscriptionKeepsOriginalDate() {
        let first = Fixture.date("2026-01-01T00:00:00Z"), asked = Fixture.date("2027-01-01T00:00:00Z")
        var held = Fixture.payload(purchased: asked, expires: Fixture.days(30, after: asked))
        held.originalTransactionID = 3
        held.originalPurchaseDate = first
        #expect(Checkout.completed(held, at: Fixture.days(1, after: asked)).originalPurchaseDate == first)
    }
}
