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
    private let signer: JWSSigner
    private let queue = DispatchQueue(label: "storefront.signing")
    private let signed = Locked<[(id: Int64, result: Result<String, any Error>)]>([])

    init(_ signer: JWSSigner) { self.signer = signer }

    /// Queues `payload` (a transaction's exact JSON) for signing. Only the token's signature is kept,
    /// as the ledger stores it: keeping a year of whole tokens (4 KB each) grew the heap by 50 MB.
    func submit(_ payload: String, for id: Int64) {
        queue.async {
            let result = Result { Ledger.signature(of: try self.signer.sign(payload: Data(payload.utf8))) }
            self.signed.withLock { $0.append((id, result)) }
        }
    }

    private let rendered = Locked<[Int: String]>([:])

    /// Makes text on the same core (a notification's renewal info: see `LocalAppStore.enqueueNotification`).
    func render(as slot: Int, _ make: @escaping @Sendable () -> String) {
        queue.async {
            let text = make()
            self.rendered.withLock { $0[slot] = text }
        }
    }

    /// Waits for everything submitted and rendered, and hands it over: each transaction's signature (or
    /// the first error), and the texts by slot. The next call returns only what came after.
    func take() throws -> (signatures: [(id: Int64, signature: String)], texts: [Int: String]) {
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
}
