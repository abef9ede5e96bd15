import Foundation
import Testing
import StoreCore
@testable import StoreEngine

@Suite("Transaction controls: Ask to Buy, refunds and revocation on one ledger row (plain values)")
struct TransactionControlsTests {
    static let now = Fixture.date("2027-01-16T00:00:00Z")
    static let controls = TransactionControls(now: now)

    static func row(_ status: LedgerEntry.Status = .completed, expires: Date? = Fixture.date("2027-01-31T00:00:00Z")) -> Ledger.Row {
        Ledger.Row(payload: Fixture.payload(purchased: Fixture.date("2027-01-01T00:00:00Z"), expires: expires), status: status,
                   finished: true, jws: "signed")
    }

    @Test("a control for a pending purchase names what is wrong with any other")
    func pending() throws {
        #expect(try Self.controls.pending(Self.row(.pendingApproval), id: 7, .pendingApproval).status == .pendingApproval)
        #expect(throws: TestControlError("transaction 7 is completed, not pendingApproval")) {
            try Self.controls.pending(Self.row(), id: 7, .pendingApproval)
        }
        #expect(throws: TestControlError("no transaction 8")) { try Self.controls.pending(nil, id: 8, .interrupted) }
    }

    @Test("a revocation is dated now, to be delivered again unfinished; twice is refused")
    func revokes() throws {
        let revoked = try Self.controls.revoked(Self.row(), id: 7, reason: .other, type: .refundFull, percentage: Proration.fullRefund)
        #expect(revoked.payload.revocationDate == Self.now)
        #expect(revoked.payload.signedDate == Self.now)
        #expect(revoked.payload.revocationType == .refundFull)
        #expect(!revoked.finished)
        #expect(throws: TestControlError("transaction 7 is already revoked")) {
            try Self.controls.revoked(revoked, id: 7, reason: .other, type: .refundFull, percentage: nil)
        }
        #expect(throws: TestControlError("no completed transaction 7")) {
            try Self.controls.revoked(Self.row(.pendingApproval), id: 7, reason: .other, type: .refundFull, percentage: nil)
        }
    }

    @Test("a reversed refund clears the revocation; a family member's revoked access has no refund to reverse")
    func reverses() throws {
        let refunded = try Self.controls.revoked(Self.row(), id: 7, reason: .other, type: .refundFull, percentage: Proration.fullRefund)
        let reversed = try Self.controls.reversed(refunded, id: 7)
        #expect(!reversed.payload.isRevoked && reversed.payload.revocationType == nil && reversed.payload.revocationPercentage == nil)
        let family = try Self.controls.revoked(Self.row(), id: 7, reason: .other, type: .familyRevoke, percentage: nil)
        #expect(throws: TestControlError("transaction 7 has no refund to reverse")) { try Self.controls.reversed(family, id: 7) }
        #expect(throws: TestControlError("transaction 7 has no refund to reverse")) { try Self.controls.reversed(Self.row(), id: 7) }
    }

    @Test("a prorated refund gives back the unused part of the period; without a period, all of it")
    func refunds() {
        let prorated = Self.controls.refund(of: Self.row(), prorated: true)
        #expect(prorated.type == .refundProrated)
        #expect(prorated.percentage == Proration(start: Fixture.date("2027-01-01T00:00:00Z"), end: Fixture.date("2027-01-31T00:00:00Z"))
            .revocationPercentage(at: Self.now))
        #expect(Self.controls.refund(of: Self.row(expires: nil), prorated: true) == (.refundFull, Proration.fullRefund))
        #expect(Self.controls.refund(of: Self.row(), prorated: false) == (.refundFull, Proration.fullRefund))
    }

    @Test("a refund request is refused for what cannot be refunded, and asked once: again while it waits or once approved is a duplicate")
    func refundRequests() throws {
        let requested = try Self.controls.refundRequested(Self.row())
        #expect(requested.refundRequest == .pending)
        #expect(throws: StoreFailure.refund(.duplicateRequest)) { try Self.controls.refundRequested(requested) }
        var approved = try Self.controls.refundDecided(requested, id: 7, approve: true)
        approved.payload.revocationDate = Self.now  // what the approval's refund does next
        #expect(throws: StoreFailure.refund(.duplicateRequest)) { try Self.controls.refundRequested(approved) }
        approved.payload.revocationDate = nil  // the refund reversed: the customer may ask again
        #expect(try Self.controls.refundRequested(approved).refundRequest == .pending)
        #expect(throws: StoreFailure.refund(.failed)) { try Self.controls.refundRequested(Self.row(.pendingApproval)) }
        #expect(throws: StoreFailure.refund(.failed)) { try Self.controls.refundRequested(nil) }
        #expect(try Self.controls.refundDecided(requested, id: 7, approve: false).refundRequest == .declined)
        #expect(throws: TestControlError("transaction 7 has no pending refund request")) {
            try Self.controls.refundDecided(Self.row(), id: 7, approve: true)
        }
    }

    @Test("revoking a subscription's latest transaction ends it; reversing reinstates it until it expires")
    func subscriptions() {
        let running = Fixture.record(expires: Fixture.days(10, after: Self.now)), lapsed = Fixture.record(expires: Fixture.days(-1, after: Self.now))
        let ended = Self.controls.ended(running, by: 1)
        #expect(ended?.state == .revoked && ended?.willAutoRenew == false)
        #expect(Self.controls.ended(running, by: 2) == nil)
        #expect(Self.controls.ended(nil, by: 1) == nil)
        #expect(Self.controls.reinstated(ended, by: 1)?.state == .subscribed)
        #expect(Self.controls.reinstated(Self.controls.ended(lapsed, by: 1), by: 1)?.state == .expired)
        #expect(Self.controls.reinstated(running, by: 1) == nil)
    }
}
