import Dispatch
import Foundation
import StoreCore
import StoreSigning
import Locking

/// Signs tokens on another core while a catch-up goes on building the next renewals. A simulated
/// year is mostly signing; done beside the payloads and inserts rather than between them, it
/// leaves the critical path. The catch-up writes the tokens before its write transaction commits,
/// so a crash loses the whole catch-up or nothing.
final class SigningPipeline: Sendable {
    private enum Job {
        case sign(payload: String, id: Int64)
        case render(slot: Int, make: @Sendable () -> String)
    }

    /// Work goes to the signing core this many jobs at a time: a year's CPU time fell about 4% against
    /// one hand-off (a queued block, its lock) per job (figure 7, six alternating runs each).
    private static let handOff = 32

    private let signer: JWSSigner
    private let queue = DispatchQueue(label: "storefront.signing")
    private let pending = Locked<[Job]>([])
    private let signed = Locked<[(id: Int64, result: Result<String, any Error>)]>([])
    private let rendered = Locked<[Int: String]>([:])

    init(_ signer: JWSSigner) { self.signer = signer }

    /// Queues `payload` (a transaction's exact JSON) for signing. Only the token's signature is kept,
    /// as the ledger stores it: keeping a year of whole tokens (4 KB each) grew the heap by 50 MB.
    func submit(_ payload: String, for id: Int64) { add(.sign(payload: payload, id: id)) }

    /// Makes text on the same core (a notification's renewal info: see `LocalAppStore.enqueueNotification`).
    func render(as slot: Int, _ make: @escaping @Sendable () -> String) { add(.render(slot: slot, make: make)) }

    /// Waits for everything submitted and rendered, and hands it over: each transaction's signature (or
    /// the first error), and the texts by slot. The next call returns only what came after.
    func take() throws -> (signatures: [(id: Int64, signature: String)], texts: [Int: String]) {
        flush()
        queue.sync {}
        let texts = rendered.withLock { texts in
            defer { texts = [:] }
            return texts
        }
        let results = signed.withLock { signed in
            defer { signed = [] }
            return signed
        }
        return (try results.map { ($0.id, try $0.result.get()) }, texts)
    }

    /// Called by one caller at a time (the store's actor, whose catch-up owns this pipeline): batches then
    /// reach the serial queue in the order they were filled.
    private func add(_ job: Job) {
        let full = pending.withLock { pending in
            pending.append(job)
            return pending.count >= Self.handOff
        }
        if full { flush() }
    }

    private func flush() {
        let jobs = pending.withLock { pending in
            defer { pending = [] }
            return pending
        }
        guard !jobs.isEmpty else { return }
        queue.async { jobs.forEach(self.run) }
    }

    private func run(_ job: Job) {
        switch job {
        case .sign(let payload, let id):
            let result = Result { Ledger.signature(of: try self.signer.sign(payload: Data(payload.utf8))) }
            signed.withLock { $0.append((id, result)) }
        case .render(let slot, let make):
            let text = make()
            rendered.withLock { $0[slot] = text }
        }
    }
}
