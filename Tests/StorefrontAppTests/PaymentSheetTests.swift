import Foundation
import StoreClient
import StoreCore
import Testing
@testable import StorefrontApp

@Suite("Payment sheet")
struct PaymentSheetTests {
    @Test("before Confirm the payment sheet says an owned non-consumable comes again for free, and the subscription is the customer's already")
    func alreadyPurchasedNotice() async throws {
        let state = try await fixtureState()  // owns Pro, subscribed to Plus Monthly, Remove Ads waiting for approval
        #expect(PaymentSheet(productID: "com.lumenquest.pro").body(state)
                    .contains("You've already purchased this. Would you like to get it again for free?"))
        #expect(PaymentSheet(productID: "com.lumenquest.plus.monthly").body(state).contains { $0.hasPrefix("You're currently subscribed to this.") })
        // Seen in tmux: the notice said "Environment: Local" while every other sheet said the store's environment.
        #expect(PaymentSheet(productID: "com.lumenquest.pro").body(state).contains("Account: local tester · Environment: Sandbox"))
        for fresh in ["com.lumenquest.removeads", "com.lumenquest.plus.yearly", "com.lumenquest.coins.100"] {
            #expect(!PaymentSheet(productID: fresh).body(state).contains { $0.hasPrefix("You") }, "\(fresh)")
        }
    }

    @Test("confirming an owned product reports it was given back at no charge")
    func alreadyPurchasedOutcome() async throws {
        var state = try await fixtureState()
        var sheet = PaymentSheet(productID: "com.lumenquest.pro")
        _ = sheet.perform(.activate, &state)
        #expect(sheet.wasAlreadyPurchased)
        state.sheets.append(.payment(sheet))
        let transaction = state.snapshot.history.compactMap(\.payload).first { $0.productID == "com.lumenquest.pro" }
        let verified = try #require(transaction)
        PaymentSheet.finish("com.lumenquest.pro", .success(.verified(verified)), &state)
        #expect(state.status == "Already yours: Lumen Quest Pro, at no charge")
    }
}
