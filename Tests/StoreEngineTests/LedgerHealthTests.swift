import Foundation
import Testing
import StoreCore
@testable import StoreEngine

@Suite("Ledger health: what reading the ledger met (plain values)")
struct LedgerHealthTests {
    @Test("the first damaged row a read meets is kept, later ones do not replace it")
    func keepsTheFirstDamage() {
        var health = LedgerHealth()
        #expect(health.description == nil)
        health.readFailed(LedgerError.damaged(path: "a.sqlite", detail: "first"))
        health.readFailed(LedgerError.damaged(path: "a.sqlite", detail: "second"))
        health.readSucceeded()
        #expect(health.damage == .damaged(path: "a.sqlite", detail: "first"))
        #expect(health.description?.contains("first") == true)
        health.checked(.damaged(path: "a.sqlite", detail: "found by the check"))
        #expect(health.damage == .damaged(path: "a.sqlite", detail: "first"))
    }

    @Test("a check's damage counts when no read met any; it is not asked for once one did")
    func checkFindsDamage() {
        var health = LedgerHealth()
        health.checked(nil)
        #expect(health.description == nil)
        health.checked(.damaged(path: ":memory:", detail: "malformed page"))
        var asked = false
        health.checked({ asked = true; return nil }())
        #expect(!asked)
        #expect(health.damage == .damaged(path: ":memory:", detail: "malformed page"))
    }

    @Test("an error that is not the ledger's is neither damage nor out of reach")
    func foreignErrorIsIgnored() {
        var health = LedgerHealth()
        health.readFailed(CocoaError(.fileReadUnknown))
        #expect(health.description == nil)
    }

    @Test("a shared ledger out of reach is reported until a read succeeds")
    func outOfReachUntilARead() throws {
        var health = LedgerHealth()
        let trouble = LedgerError.unreachable(path: "postgresql://localhost/store", detail: "connection refused")
        health.readFailed(trouble)
        #expect(health.description == trouble.description)
        health.readSucceeded()
        #expect(health.description == nil)
    }
}
