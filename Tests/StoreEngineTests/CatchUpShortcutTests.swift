import Foundation
import Testing
import StoreCore
import StoreClient
@testable import StoreEngine
import StorefrontTestSupport
import StoreVerification

/// What a catch-up (a simulated year) leaves out: the events nobody listens to, a price converted
/// again. Each must give what the long way gives.
@Suite("Catch-up shortcuts")
struct CatchUpShortcutTests {
    @Test("a price's milliunits are its thousandths, truncated, whether remembered or not")
    func milliunitsAreTruncatedThousandths() {
        let amounts: [(Decimal, Int64)] = [(Decimal(string: "4.99")!, 4990), (Decimal(string: "0.0019")!, 1), (Decimal(string: "-0.0015")!, -1),
                                          (Decimal(string: "12.3456")!, 12345), (0, 0), (Decimal(string: "1234.5")!, 1_234_500)]
        for (amount, expected) in amounts {
            #expect(LocalAppStore.milliunits(amount) == expected, "first: \(amount)")
            #expect(LocalAppStore.milliunits(amount) == expected, "remembered: \(amount)")
        }
        // More amounts than are remembered: the oldest go, and each still converts.
        for cents in 0..<10_500 { #expect(LocalAppStore.milliunits(Decimal(cents) / 100) == Int64(cents) * 10) }
        #expect(LocalAppStore.milliunits(Decimal(string: "4.99")!) == 4990)
    }

    @Test("events made while no app listens are passed over: a later one gets the unfinished renewals once, then new ones")
    func eventsNobodyListensToArePassedOver() async throws {
        let directory = try createdTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try LocalAppStore(catalog: Repo.instantCatalog, stateDirectory: directory, time: ManualTime())
        try await store.buyOutsideApp(productID: ID.proMonthly, familyShared: false)
        try await store.advanceTime(by: Period(2, .month))
        let updates = await store.updates()  // redelivers the purchase and its two renewals, unfinished
        await store.tick()
        try await store.advanceTime(by: Period(1, .month))
        await store.shutdown()  // ends the stream: what it holds was delivered by now
        var delivered: [Int64] = []
        for await jws in updates {
            delivered += [SignedDataVerifier(trustedRoots: [store.certificate]).transaction(jws).payload?.transactionID ?? 0]
        }
        #expect(delivered.count == 4 && Set(delivered).count == 4, "\(delivered)")
    }
}

@Suite("SQLite text binding")
struct TextBindingTests {
    @Test("text is bound from its own bytes: empty, short, long and non-ASCII texts read back as written, an empty one not as NULL")
    func textReadsBackAsWritten() throws {
        let db = try SQLiteDatabase(path: nil)
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, value TEXT)")
        let texts = ["", "a", "short, in place", String(repeating: "a payload of some length ", count: 60), "Grüße, 東京 🎉",
                     String("a slice of a longer string".dropFirst(2)), NSString(string: "bridged").description]
        for (i, text) in texts.enumerated() { try db.query("INSERT INTO t(id, value) VALUES (?, ?)", [.int(Int64(i)), .text(text)]) }
        let read = try db.query("SELECT value, value IS NULL FROM t ORDER BY id")
        #expect(read.map { $0[0].text } == texts.map { $0 })
        #expect(read.allSatisfy { $0[1].int == 0 })
    }
}
