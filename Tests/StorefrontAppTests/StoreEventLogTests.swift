import Foundation
import StoreCore
import StoreEngine
import Testing
import StorefrontTestSupport
@testable import StorefrontApp

/// Every event the store makes on its own reaches the event log (screen 5), once, at its own store
/// time, and the status line when the tester is not in the middle of something.
@Suite("Store events in the log")
struct StoreEventLogTests {
    /// The tester's side, from outside the storefront's keys: the loop sees it at its next look.
    @MainActor
    private func perform(_ app: RunningStorefront, _ commands: StoreCommand...) async throws {
        let performer = CommandPerformer(manager: app.manager, controls: app.store)
        for command in commands { _ = try await performer.perform(command) }
        let count = app.state.log.count
        try await app.ticks(4)
        try await app.waitUntil("the look's read") { app.state.inFlight == 0 && app.state.log.count >= count }
    }

    @MainActor
    private func texts(_ app: RunningStorefront) -> [String] { app.state.log.map(\.text) }

    @Test("A failed renewal, the grace period ending and the expiry are each logged and shown when idle")
    @MainActor
    func billingFailureGraceRetryAndExpiry() async throws {
        let app = try await RunningStorefront()
        await app.manager.purchase("com.lumenquest.plus.monthly")  // a week free, then monthly
        try await perform(app, .set(.billingRetryOnRenewal, true), .set(.gracePeriod, true), .advance(Period(1, .week)))
        try await app.waitUntil("the failure in the log: \(texts(app))") { texts(app).contains { $0.hasPrefix("Billing failed for Plus Monthly: in grace period until 2026-") } }
        #expect(app.state.status.hasPrefix("Billing failed for Plus Monthly"), "idle: on the status line")
        try await perform(app, .advance(Period(3, .week)))
        try await app.waitUntil("grace ended in the log: \(texts(app))") { texts(app).contains { $0.hasPrefix("Grace period ended for Plus Monthly: in billing retry until ") } }
        try await perform(app, .advance(Period(2, .month)))
        try await app.waitFor("Plus Monthly expired (billing retry ended without payment)")
        #expect(texts(app).last == "Plus Monthly expired (billing retry ended without payment)")
        #expect(await app.quit(with: .control("c")) == 0)
    }

    @Test("An expiry's reason in the log is the notification's subtype's; an EXPIRED without one says no more than that")
    func expiryReasons() {
        #expect(StoreEventLog.reason("VOLUNTARY") == "auto-renew turned off")
        #expect(StoreEventLog.reason("BILLING_RETRY") == "billing retry ended without payment")
        #expect(StoreEventLog.reason(nil) == "for another reason")
    }

    @Test("A year's jump logs each renewal at its own time, then one line that sums them up")
    @MainActor
    func aJumpsRenewalsAreListedAndSummed() async throws {
        let app = try await RunningStorefront()
        await app.manager.purchase("com.lumenquest.plus.monthly")
        let before = app.state.snapshot.now
        try await perform(app, .advance(Period(1, .year)))
        try await app.waitFor("12 renewals: Plus Monthly × 12")
        let renewals = app.state.log.filter { $0.text == "Renewed Plus Monthly" }
        #expect(renewals.count == 12, "\(texts(app))")
        #expect(renewals.map(\.time) == renewals.map(\.time).sorted() && Set(renewals.map(\.time)).count == 12, "each at its own time")
        #expect(renewals.allSatisfy { $0.time > before })
        #expect(app.state.status == "12 renewals: Plus Monthly × 12")
        #expect(await app.quit(with: .control("c")) == 0)
    }

    @Test("A forced renewal after a downgrade is logged once, into the plan it renewed to")
    @MainActor
    func aRenewalIsLoggedOnceIntoItsProduct() async throws {
        let app = try await RunningStorefront()
        await app.manager.purchase("com.lumenquest.pro.monthly")
        try await perform(app, .manage("lumenquest.membership", .switchTo(productID: "com.lumenquest.plus.monthly")),
                          .control(.renew, .newest(productID: "com.lumenquest.pro.monthly")))
        try await app.waitFor("Renewed Plus Monthly")
        try await app.ticks(8)
        #expect(texts(app).filter { $0.hasPrefix("Renewed") } == ["Renewed Plus Monthly"])
        #expect(await app.quit(with: .control("c")) == 0)
    }
}
