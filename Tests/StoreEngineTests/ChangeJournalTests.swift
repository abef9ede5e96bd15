import Testing
import StoreCore
@testable import StoreEngine

@Suite("Change journal: what changed since a stamp (plain values)")
struct ChangeJournalTests {
    static func stamp(_ version: Int64, _ written: Int64) -> ChangeStamp { ChangeStamp(version: version, written: written) }

    @Test("a chain of described writes gives their transactions, oldest first; standing still gives none")
    func followsTheChain() {
        var journal = ChangeJournal()
        journal.record(from: Self.stamp(1, 0), to: Self.stamp(1, 3), transaction: "a")
        journal.record(from: Self.stamp(1, 3), to: Self.stamp(1, 4), transaction: nil)
        journal.record(from: Self.stamp(1, 4), to: Self.stamp(1, 7), transaction: "b")
        #expect(journal.transactions(from: Self.stamp(1, 0), to: Self.stamp(1, 7)) == ["a", "b"])
        #expect(journal.transactions(from: Self.stamp(1, 3), to: Self.stamp(1, 7)) == ["b"])
        #expect(journal.transactions(from: Self.stamp(1, 7), to: Self.stamp(1, 7)) == [])
    }

    @Test("a write not described breaks the chain: the app reads everything")
    func undescribedWriteBreaksTheChain() {
        var journal = ChangeJournal()
        journal.record(from: Self.stamp(1, 0), to: Self.stamp(1, 3), transaction: "a")
        journal.record(from: Self.stamp(1, 5), to: Self.stamp(1, 8), transaction: "b")
        #expect(journal.transactions(from: Self.stamp(1, 0), to: Self.stamp(1, 8)) == nil)
        #expect(journal.transactions(from: Self.stamp(1, 0), to: Self.stamp(1, 9)) == nil)
    }

    @Test("a write another connection's commit joined, or one that wrote nothing, is not recorded")
    func foreignOrEmptyWritesAreNotRecorded() {
        var journal = ChangeJournal()
        journal.record(from: Self.stamp(1, 0), to: Self.stamp(2, 3), transaction: "a")
        journal.record(from: Self.stamp(2, 3), to: Self.stamp(2, 3), transaction: "b")
        #expect(journal.entries.isEmpty)
        #expect(journal.transactions(from: Self.stamp(1, 0), to: Self.stamp(2, 3)) == nil)
    }

    @Test("only the newest writes are kept")
    func keepsTheNewest() {
        var journal = ChangeJournal()
        for written in 0..<Int64(ChangeJournal.length + 10) {
            journal.record(from: Self.stamp(1, written), to: Self.stamp(1, written + 1), transaction: "\(written)")
        }
        #expect(journal.entries.count == ChangeJournal.length)
        #expect(journal.transactions(from: Self.stamp(1, 0), to: Self.stamp(1, 2)) == nil)
        let last = Int64(ChangeJournal.length + 10)
        #expect(journal.transactions(from: Self.stamp(1, last - 2), to: Self.stamp(1, last)) == ["\(last - 2)", "\(last - 1)"])
    }

    @Test("a run of finishes is one entry: the chain outlasts thousands of them, from any stamp within the run")
    func finishesRunIsOneEntry() {
        var journal = ChangeJournal()
        journal.record(from: Self.stamp(1, 0), to: Self.stamp(1, 3), transaction: "a")
        for written in 3..<Int64(3 + 1000) { journal.record(from: Self.stamp(1, written), to: Self.stamp(1, written + 1), transaction: nil) }
        journal.record(from: Self.stamp(1, 1003), to: Self.stamp(1, 1006), transaction: "b")
        #expect(journal.entries.count == 3)
        #expect(journal.transactions(from: Self.stamp(1, 0), to: Self.stamp(1, 1006)) == ["a", "b"])
        #expect(journal.transactions(from: Self.stamp(1, 500), to: Self.stamp(1, 1006)) == ["b"])
        #expect(journal.transactions(from: Self.stamp(1, 1006), to: Self.stamp(1, 1006)) == [])
    }

    @Test("the completed and unfinished counts are carried along described writes, and lost at any other")
    func countsCarried() {
        var journal = ChangeJournal()
        journal.counted(.init(completed: 10, unfinished: 5), at: Self.stamp(1, 0))
        journal.record(from: Self.stamp(1, 0), to: Self.stamp(1, 3), transaction: "a", unfinishedChange: 1)
        journal.record(from: Self.stamp(1, 3), to: Self.stamp(1, 4), transaction: nil, unfinishedChange: -1)
        journal.record(from: Self.stamp(1, 4), to: Self.stamp(1, 4), transaction: nil, unfinishedChange: 0)
        #expect(journal.counts(at: Self.stamp(1, 4)) == .init(completed: 11, unfinished: 5))
        #expect(journal.counts(at: Self.stamp(1, 3)) == nil, "only where they were carried to")
        journal.record(from: Self.stamp(1, 4), to: Self.stamp(2, 5), transaction: nil, unfinishedChange: -1)
        #expect(journal.counts(at: Self.stamp(2, 5)) == nil, "another connection's commit joined")
    }
}

