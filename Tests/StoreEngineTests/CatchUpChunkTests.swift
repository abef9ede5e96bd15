import Foundation
import Testing
import StoreCore
import StoreSigning
@testable import StoreEngine
import StorefrontTestSupport

/// A catch-up writes its renewals a few hundred at a time inside its one transaction (held to its end,
/// a simulated year of a thousand subscribers held 90 MB): written in pieces, it must leave exactly
/// what it leaves written whole.
@Suite("A catch-up written a piece at a time")
struct CatchUpChunkTests {
    static let subscribers = 6

    /// The bundled catalog with a group per subscriber, each product a copy of Pro Monthly.
    static var catalog: Catalog {
        var catalog = Repo.catalog
        for g in 0..<subscribers {
            var product = catalog.product(ID.proMonthly)!
            product.id = "com.lumenquest.group\(g).monthly"
            product.subscription?.groupID = "lumenquest.group\(g)"
            catalog.products.append(product)
            catalog.subscriptionGroups.append(SubscriptionGroup(id: "lumenquest.group\(g)", referenceName: "Group \(g)"))
        }
        return catalog
    }

    /// A year of the subscribers' renewals, written `chunk` renewals at a time: each transaction's payload, whether its
    /// token verifies and carries that payload, and each notification with its renewal info.
    func year(chunk: Int) async throws -> (transactions: [String], notifications: [String]) {
        let store = try LocalAppStore(catalog: Self.catalog, stateDirectory: nil, ledger: PostgresTestServer.defaultLedger(for: nil), time: ManualTime())
        for g in 0..<Self.subscribers { try await store.buyOutsideApp(productID: "com.lumenquest.group\(g).monthly", familyShared: false) }
        await store.setCatchUpChunk(chunk)
        try await store.advanceTime(by: Period(1, .year))
        let verifier = JWSVerifier(trustedRoots: [store.certificate])
        let transactions = await store.ledgerEntries().map { entry in
            let token = entry.jws.map { verifier.verify($0, at: .now) }
            let carried = token?.payload.flatMap { try? JSONParser.parse($0) }.flatMap(TransactionPayload.init(json:))
            return entry.payload.json.compact + " verified: \(token?.isVerified == true) carried: \(carried == entry.payload)"
        }
        let notifications = await store.notifications().map { n in
            let body = JWSVerifier(trustedRoots: [store.certificate]).verify(n.signedPayload, at: .now).payload.flatMap { try? JSONParser.parse($0) }
            let renewal = body?["data"]?["signedRenewalInfo"]?.stringValue.flatMap { verifier.verify($0, at: .now).payload }
            return "\(n.type) \(n.subtype ?? "-") \(n.transactionID ?? 0) \(n.createdDate.timeIntervalSince1970) " + String(decoding: renewal ?? Data(), as: UTF8.self)
        }
        await store.shutdown()
        // Each store is another install of the app, with an app transaction of its own.
        let own = try Regex(#""appTransactionId":"[0-9]+""#)
        return (transactions.map { $0.replacing(own, with: "") }, notifications.map { $0.replacing(own, with: "") })
    }

    @Test func aCatchUpWrittenAPieceAtATimeLeavesWhatOneWrittenWholeDoes() async throws {
        let whole = try await year(chunk: .max)
        #expect(whole.transactions.count >= Self.subscribers * 12, "a year of monthly renewals for each")
        #expect(whole.transactions.allSatisfy { $0.hasSuffix("verified: true carried: true") })
        #expect(whole.notifications.filter { $0.hasPrefix("DID_RENEW") }.count >= Self.subscribers * 11)
        let pieces = try await year(chunk: 5)
        #expect(pieces.transactions.count == whole.transactions.count)
        #expect(pieces.notifications.count == whole.notifications.count)
        // The first difference alone, readable.
        #expect(zip(pieces.transactions, whole.transactions).first { $0 != $1 } == nil)
        #expect(zip(pieces.notifications, whole.notifications).first { $0 != $1 } == nil)
    }
}

extension LocalAppStore {
    func setCatchUpChunk(_ renewals: Int) { catchUpChunk = renewals }
}
