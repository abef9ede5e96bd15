import Foundation
import StoreCore

/// `Transaction.updates`: the app's listeners, and how far this process has read the ledger's events.
/// Its own purchases came back from `purchase()`; its own updates and everything another process did
/// are delivered to every listener.
struct UpdateDelivery {
    typealias Event = (seq: Int64, transactionID: Int64, kind: Ledger.EventKind, origin: String)

    /// Tells this process's events from another's on the same ledger.
    let origin = UUID().uuidString
    /// The newest event read (or passed over).
    private(set) var lastSeenEvent: Int64
    private var listeners: [UUID: AsyncStream<String>.Continuation] = [:]
    /// What came live for listeners still being redelivered their unfinished transactions, held until
    /// they have been: StoreKit hands those out first.
    private var held: [UUID: [String]] = [:]

    init(lastSeenEvent: Int64) { self.lastSeenEvent = lastSeenEvent }

    var hasListeners: Bool { !listeners.isEmpty }

    /// A listener; `redelivering`: its unfinished transactions come first, until `redelivered`.
    mutating func add(_ listener: AsyncStream<String>.Continuation, redelivering: Bool = false) -> UUID {
        let id = UUID()
        listeners[id] = listener
        if redelivering { held[id] = [] }
        return id
    }

    /// Listener `id` has been redelivered its unfinished transactions: what came live meanwhile follows.
    mutating func redelivered(_ id: UUID) {
        for jws in held.removeValue(forKey: id) ?? [] { listeners[id]?.yield(jws) }
    }

    /// Whether any listener is left.
    mutating func remove(_ id: UUID) -> Bool {
        listeners[id] = nil
        held[id] = nil
        return hasListeners
    }

    /// This process has just written event `seq` of `kind`: true when it follows the last one seen and
    /// is not delivered here (its own purchase), so there is nothing to read; false when the events must be read.
    mutating func passOver(_ seq: Int64?, of kind: Ledger.EventKind) -> Bool {
        guard kind != .update, let seq, seq == lastSeenEvent + 1 else { return false }
        lastSeenEvent = seq
        return true
    }

    /// With no one to deliver to, the events up to `seq` are passed over unread (a simulated year makes twelve thousand).
    mutating func passOver(upTo seq: Int64) {
        lastSeenEvent = max(lastSeenEvent, seq)
    }

    /// Whether an event reaches the listeners: every update, and another process's purchase.
    func isDelivered(_ event: Event) -> Bool {
        event.kind == .update || (event.kind == .purchase && event.origin != origin)
    }

    /// Delivers `events` (those after `lastSeenEvent`, in order) to every listener: `token` is the
    /// transaction as handed out, nil when it cannot be.
    mutating func deliver(_ events: [Event], token: (Int64) -> String?) {
        for event in events {
            lastSeenEvent = event.seq
            guard isDelivered(event), let jws = token(event.transactionID) else { continue }
            for (id, listener) in listeners {
                if held[id] != nil { held[id]?.append(jws) } else { listener.yield(jws) }
            }
        }
    }

    /// Ends every listener's stream.
    mutating func finish() {
        for id in held.keys { redelivered(id) }  // what came live is not lost with the redelivery cut short
        for listener in listeners.values { listener.finish() }
        listeners.removeAll()
        held.removeAll()
    }
}
