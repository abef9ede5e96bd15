import Foundation
import StoreClient
import StoreCore
import StoreEngine
import Testing
import TerminalUI
import StorefrontTestSupport
@testable import StorefrontApp

/// Status lines say what happened and when, in display names, with amounts (seen at the QA desk).
@Suite struct StatusWordingTests {
    @Test("The cancel confirmation's buttons name the action and the way out, and opens on Keep")
    func cancelConfirmationNamesItsButtons() async throws {
        var state = try await fixtureState()
        press(&state, .character("2"), .character("m"))
        #expect(press(&state, .enter) == [.command(.retentionOffer("lumenquest.membership"))], "the store is asked what the developer offers first")
        ManageSubscriptionsSheet.retention(nil, group: "lumenquest.membership", &state)  // its answer: no message
        let screen = render(state, size: Size(width: 80, height: 24)).text
        #expect(screen.contains("[ Cancel Subscription ]") && screen.contains("[ Keep ]"), "\(screen)")
        #expect(!screen.contains("[ Cancel ]"))
        #expect(press(&state, .enter).isEmpty && state.top == nil, "Enter keeps it")
    }

    @Test("A downgrade says it waits for the renewal, with its date, not that the plan changed")
    func aDowngradeSaysWhenItHappens() async throws {
        let (store, manager) = try await liveStore()
        await manager.purchase(ID.proMonthly)
        let performer = CommandPerformer(manager: manager, controls: store)
        let outcome = try await performer.perform(.manage("lumenquest.membership", .switchTo(productID: ID.plusMonthly)))
        guard case .done(let text) = outcome else { Issue.record("\(outcome)"); return }
        #expect(text.hasPrefix("\(ID.plusMonthly) from the next renewal, 2026-"), "\(text)")
        #expect(text.hasSuffix("; \(ID.proMonthly) until then"))
        await manager.stop()
        await store.shutdown()
    }

    @Test("Tester controls name the product, not only the transaction number")
    func testerControlsNameTheProduct() async throws {
        let (store, manager) = try await liveStore()
        await store.update { $0.askToBuy = true }
        await manager.purchase(ID.removeAds)
        let performer = CommandPerformer(manager: manager, controls: store)
        guard case .done(let text) = try await performer.perform(.control(.approve, .newest(productID: ID.removeAds))) else { Issue.record("refused"); return }
        #expect(text.hasPrefix("Ask to Buy approved: \(ID.removeAds) (#"), "\(text)")
        await store.update { $0.askToBuy = false }
        await manager.purchase(ID.coins)
        guard case .done(let refund) = try await performer.perform(.control(.refund(prorated: false, reason: .other), .newest(productID: ID.coins))) else { Issue.record("refused"); return }
        #expect(refund.hasSuffix(": $0.99"), "\(refund)")
        await manager.stop()
        await store.shutdown()
    }

    @Test("A refund arriving says how much; an approval, a family purchase and an upgrade each say what they are")
    func arrivalsSayWhatTheyAre() async throws {
        var state = try await fixtureState()
        _ = reduce(&state, .appEvent(.revoked(productID: ID.coins, refund: "$0.99")))
        #expect(state.status == "Refunded 100 Coins: $0.99")
        _ = reduce(&state, .appEvent(.revoked(productID: ID.pro)))
        #expect(state.status == "Family Sharing revoked: Lumen Quest Pro")
        _ = reduce(&state, .appEvent(.transactionArrived(productID: ID.pro, offer: nil, familyShared: true)))
        #expect(state.status == "Family member bought Lumen Quest Pro: shared with you")
        // The fixture's Remove Ads waits for approval in the ledger the QA panel shows.
        _ = reduce(&state, .appEvent(.transactionArrived(productID: ID.removeAds, offer: nil)))
        #expect(state.status == "Ask to Buy approved: Remove Ads")
        // The fixture is subscribed to Plus Monthly: Pro Monthly arriving replaces it.
        _ = reduce(&state, .appEvent(.transactionArrived(productID: ID.proMonthly, offer: nil)))
        #expect(state.status == "Upgraded to Pro Monthly from Plus Monthly, starting now")
        _ = reduce(&state, .appEvent(.transactionArrived(productID: ID.gems, offer: nil)))
        #expect(state.status == "Bought elsewhere: Bag of 500 Gems")
    }

    @Test("The store's refund event carries what was given back")
    func theRefundEventCarriesTheAmount() async throws {
        let (store, manager) = try await liveStore()
        await manager.purchase(ID.coins)
        let performer = CommandPerformer(manager: manager, controls: store)
        _ = try await performer.perform(.control(.refund(prorated: false, reason: .other), .newest(productID: ID.coins)))
        var event: AppEvent?
        for _ in 0..<300 where event == nil {
            if case .revoked? = await manager.snapshot.lastEvent { event = await manager.snapshot.lastEvent } else { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(event == .revoked(productID: ID.coins, refund: "$0.99"))
        await manager.stop()
        await store.shutdown()
    }

    @Test("A code that fails says which code, not the API's name")
    func aFailedCodeSaysWhichCode() async throws {
        var state = try await fixtureState()
        RedeemSheet.finish(code: "NOPE", .offerCode(.unknownCode), &state)
        #expect(state.status.hasPrefix("Code NOPE not redeemed: "), "\(state.status)")
        #expect(AppEvent.failed(.offerCodeRedeem, .offerCode(.unknownCode)).answersACall, "the sheet says it: not twice")
    }
}
