import Foundation
@testable import StoreKit
import Locking
import Testing

extension StoreKitSuites {
    /// `finish()` calls that arrive while one is written are written together: an app finishing a burst of
    /// updates at once costs the store a write a burst.
    @Suite("Finishes written together")
    struct FinishQueueTests {
        /// What the store was asked to write, and when each caller got its answer.
        final class Store: Sendable {
            let writes = Locked<[[Int64]]>([])
            let returned = Locked<[(id: Int64, writtenBefore: Bool)]>([])

            func write(_ ids: [Int64]) async {
                try? await Task.sleep(for: .milliseconds(20))  // a write takes a while: the others arrive meanwhile
                writes.withLock { $0.append(ids) }
            }
            var written: [Int64] { writes.withLock { $0.flatMap { $0 } } }
        }

        @Test func finishesThatArriveWhileOneIsWrittenAreWrittenTogetherAndEachReturnsOnceItsOwnIsWritten() async {
            let store = Store()
            let queue = FinishQueue { await store.write($0) }
            await withTaskGroup(of: Void.self) { group in
                for id in Int64(1)...100 {
                    group.addTask {
                        await queue.finish(id)
                        store.returned.withLock { $0.append((id, store.written.contains(id))) }
                    }
                }
            }
            #expect(store.written.sorted() == Array(1...100), "each finished once")
            #expect(store.writes.withLock { $0.count } < 10, "in a few writes, not one each: \(store.writes.withLock { $0.map(\.count) })")
            #expect(store.returned.withLock { $0.allSatisfy(\.writtenBefore) }, "no call returns before its finish is written")
        }

        @Test func aFinishAloneIsWrittenAtOnce() async {
            let store = Store()
            let queue = FinishQueue { await store.write($0) }
            await queue.finish(7)
            await queue.finish(8)
            #expect(store.writes.withLock { $0 } == [[7], [8]])
        }
    }
}
