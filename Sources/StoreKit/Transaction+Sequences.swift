import Foundation
import StoreEngine
import StoreVerification

extension Transaction {
    /// An asynchronous sequence of verified (or unverified) transactions, read from the store when iterated.
    public struct Transactions: AsyncSequence, Sendable {
        public typealias Element = VerificationResult<Transaction>
        let tokens: @Sendable (StoreConnection) async -> AsyncStream<String>
        /// Which transactions the sequence hands out.
        var keep: @Sendable (Transaction) -> Bool = { _ in true }
        /// Verified through the entitlements' cache (see `StoreConnection.entitlementsVerified`).
        var isEntitlements = false
        /// Lasts the app's life: it waits for a store, and moves to the next when its store is replaced
        /// (see `StoreKitRuntime.listening(after:)`); a listing reads the store there is and ends.
        var follows = false

        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(tokens: tokens, keep: keep, isEntitlements: isEntitlements, follows: follows)
        }

        public struct AsyncIterator: AsyncIteratorProtocol {
            let tokens: @Sendable (StoreConnection) async -> AsyncStream<String>
            let keep: @Sendable (Transaction) -> Bool
            let isEntitlements: Bool
            let follows: Bool
            var started = false
            var connection: StoreConnection?
            var base: AsyncStream<String>.AsyncIterator?

            public mutating func next() async -> Element? {
                if !started {
                    started = true
                    connection = follows ? await StoreKitRuntime.listening() : StoreKitRuntime.current
                    if let connection { base = await tokens(connection).makeAsyncIterator() }
                    if isEntitlements { connection?.entitlementsVerified.startListing() }
                }
                while let connection {
                    while let jws = await base?.next() {
                        let result = isEntitlements ? connection.entitlement(jws) : connection.transaction(jws)
                        if let result, keep(result.unsafePayloadValue) { return result }
                    }
                    self.connection = follows && !Task.isCancelled ? await StoreKitRuntime.listening(after: connection) : nil
                    if let next = self.connection { base = await tokens(next).makeAsyncIterator() }
                }
                return nil
            }
        }

        /// A sequence of the tokens a store call returns at once.
        static func listing(_ read: @escaping @Sendable (any TransactionSource) async -> [String]) -> Transactions {
            Transactions { connection in
                let tokens = await read(connection.source)
                return AsyncStream { continuation in
                    for token in tokens { continuation.yield(token) }
                    continuation.finish()
                }
            }
        }
    }

    /// Transactions as they happen: every unfinished one first (at launch), then purchases made on other
    /// devices or outside the app, renewals, Ask to Buy approvals, refunds and revocations. Start it at launch.
    /// It lasts the app's life: begun before the app has a store (a test's session not made yet), it waits for one.
    public static var updates: Transactions {
        var updates = Transactions { await $0.source.updates() }
        updates.follows = true
        return updates
    }

    /// `updates`, listening already when this returns (`updates` starts when first iterated). The store hands
    /// out the unfinished transactions at the moment it starts listening, so Storefront's own app, which reads
    /// its first snapshot before it iterates, starts listening first: a purchase made meanwhile is its own, not
    /// an unfinished one to redeliver.
    @_spi(Storefront) public static func listeningUpdates() async -> Transactions {
        guard let connection = StoreKitRuntime.current else { return Transactions { _ in AsyncStream { $0.finish() } } }
        let stream = await connection.source.updates()
        return Transactions { _ in stream }
    }

    /// Every transaction of the customer's, newest first; finished consumables only if the app opts in.
    public static var all: Transactions {
        Transactions { connection in
            let tokens = await connection.source.allTransactions()
            let unfinished = connection.includesConsumableHistory ? [] : Set(await connection.source.unfinishedTransactions()
                .compactMap { connection.verifier.transaction($0).payload?.transactionID })
            let kept = connection.includesConsumableHistory ? tokens : tokens.filter { jws in
                guard let t = connection.verifier.transaction(jws).payload else { return true }
                return t.isInHistory(finished: !unfinished.contains(t.transactionID), includesConsumables: false)
            }
            return AsyncStream { continuation in
                for token in kept { continuation.yield(token) }
                continuation.finish()
            }
        }
    }

    /// The latest transaction of each product the customer is entitled to: non-consumables, subscriptions
    /// subscribed or in grace period, non-renewing subscriptions; never consumables, never revoked ones.
    public static var currentEntitlements: Transactions {
        var entitlements = Transactions.listing { await $0.currentEntitlements() }
        entitlements.isEntitlements = true
        return entitlements
    }

    /// The transactions that entitle the customer to one product (at most one for an In-App Purchase).
    public static func currentEntitlements(for productID: String) -> Transactions {
        var entitlements = currentEntitlements
        entitlements.keep = { $0.productID == productID }
        return entitlements
    }

    /// The transaction that entitles the customer to a product; nil when none does.
    @available(*, deprecated, renamed: "currentEntitlements(for:)")
    public static func currentEntitlement(for productID: String) async -> VerificationResult<Transaction>? {
        for await result in currentEntitlements(for: productID) { return result }
        return nil
    }

    /// Every transaction of the customer's for one product, newest first (as `all`, for that product).
    public static func all(for productID: String) -> Transactions {
        var transactions = all
        transactions.keep = { $0.productID == productID }
        return transactions
    }

    /// The customer's latest transaction for a product; nil when they never bought it.
    public static func latest(for productID: String) async -> VerificationResult<Transaction>? {
        for await result in all(for: productID) { return result }
        return nil
    }

    /// Transactions the app has not finished yet.
    public static var unfinished: Transactions { .listing { await $0.unfinishedTransactions() } }

}
