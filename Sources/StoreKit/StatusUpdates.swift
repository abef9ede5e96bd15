import Foundation
import StoreCore
import StoreEngine
import Locking

extension Product.SubscriptionInfo.Status {
    /// Each status as it changes: a renewal, an expiry, a grace period or billing retry starting or ending,
    /// auto-renew turned off or on, a price increase agreed to, a refund. The statuses the app last read
    /// (`status`, `status(for:)`, or an earlier `updates`) are where it starts from; before any read, the first
    /// statuses it gives are the current ones. The store is looked at four times a second, as its clock ticks:
    /// a status moves with time alone (an expiry), with nothing written.
    public static var updates: Statuses { Statuses() }

    /// The customer's statuses in every subscription group they have been in, a group at a time, then the
    /// sequence ends (as `Transaction.all` does): a launch's one look at all of them.
    public static var all: AsyncStream<(groupID: String, statuses: [Product.SubscriptionInfo.Status])> {
        let connection = StoreKitRuntime.current
        return AsyncStream { continuation in
            let reading = Task {
                for group in await connection?.statusesByGroup() ?? [] where !group.statuses.isEmpty { continuation.yield(group) }
                continuation.finish()
            }
            continuation.onTermination = { _ in reading.cancel() }
        }
    }

    /// `updates`: an asynchronous sequence of subscription statuses.
    public struct Statuses: AsyncSequence, Sendable {
        public typealias Element = Product.SubscriptionInfo.Status

        public func makeAsyncIterator() -> AsyncIterator {
            let connection = StoreKitRuntime.current
            return AsyncIterator(connection: connection, seen: connection?.seenStatuses.seen() ?? [:])
        }

        public struct AsyncIterator: AsyncIteratorProtocol {
            var connection: StoreConnection?
            var seen: [String: StatusFingerprint]
            var ready: [Element] = []

            public mutating func next() async -> Element? {
                while !Task.isCancelled {
                    if !ready.isEmpty { return ready.removeFirst() }
                    // It lasts the app's life: on another store (a test's new session), it starts from what the app saw there.
                    guard let connection = await StoreKitRuntime.listening() else { return nil }
                    if !(self.connection.map { $0.isOnSameStoreOrConnection(as: connection) } ?? false) {
                        self.connection = connection
                        seen = connection.seenStatuses.seen()
                    }
                    let now = await connection.allStatuses()
                    ready = now.filter { seen[$0.subscriptionKey] != $0.fingerprint }
                    for status in now { seen[status.subscriptionKey] = status.fingerprint }
                    if ready.isEmpty, (try? await Task.sleep(for: .milliseconds(250))) == nil { return nil }
                }
                return nil
            }
        }
    }

    /// One subscription of the customer's (theirs, or a family member's shared one): its original transaction.
    var subscriptionKey: String { "\(transaction.unsafePayloadValue.originalID):\(transaction.unsafePayloadValue.ownershipType.rawValue)" }

    /// What makes two statuses of a subscription the same: state, latest transaction and renewal info, not when they were signed.
    var fingerprint: StatusFingerprint {
        var info = renewalInfo.unsafePayloadValue.payload
        info.signedDate = Date(timeIntervalSince1970: 0)
        return StatusFingerprint(state: state, transactionID: transaction.unsafePayloadValue.id, renewalInfo: info)
    }
}

/// A subscription's status, as far as `Status.updates` tells one from another.
public struct StatusFingerprint: Hashable, Sendable {
    let state: Product.SubscriptionInfo.RenewalState
    let transactionID: UInt64
    let renewalInfo: RenewalInfoPayload
}

/// The statuses the app last read through one connection, by subscription: where `Status.updates` starts.
final class SeenStatuses: Sendable {
    private let byKey = Locked<[String: StatusFingerprint]>([:])

    func seen() -> [String: StatusFingerprint] { byKey.withLock { $0 } }

    func record(_ statuses: [Product.SubscriptionInfo.Status]) {
        byKey.withLock { seen in for status in statuses { seen[status.subscriptionKey] = status.fingerprint } }
    }
}

extension StoreConnection {
    /// Every group's statuses, verified (none when the store cannot say: the next look tries again).
    func allStatuses() async -> [Product.SubscriptionInfo.Status] {
        await statusesByGroup().flatMap(\.statuses)
    }

    /// Each of the catalog's subscription groups with its statuses, verified, in the groups' order.
    func statusesByGroup() async -> [(groupID: String, statuses: [Product.SubscriptionInfo.Status])] {
        guard let products = try? await source.products(for: nil) else { return [] }
        let groups = Array(Set(products.compactMap(\.subscription?.groupID))).sorted()
        guard let signed = try? await source.subscriptionStatuses(groupIDs: groups) else { return [] }
        return groups.map { ($0, statuses(signed[$0] ?? [])) }
    }

    /// StoreKit's statuses for signed ones, remembered as what the app last saw.
    func statuses(_ signed: [SignedSubscriptionStatus]) -> [Product.SubscriptionInfo.Status] {
        let statuses = signed.compactMap { signed -> Product.SubscriptionInfo.Status? in
            guard let transaction = transaction(signed.transaction), let renewalInfo = renewalInfo(signed.renewalInfo) else { return nil }
            return Product.SubscriptionInfo.Status(state: .init(signed.state), transaction: transaction, renewalInfo: renewalInfo)
        }
        seenStatuses.record(statuses)
        return statuses
    }
}

