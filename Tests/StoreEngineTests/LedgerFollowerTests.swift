import Foundation
import Testing
import StoreCore
@testable import StoreEngine

@Suite("Ledger follower: other processes' writes to the same ledger (plain values)")
struct LedgerFollowerTests {
    static func text(_ clock: StoreClock) -> String { String(decoding: try! JSONEncoder().encode(clock), as: UTF8.self) }

    @Test("without a feed, another process committed when the ledger's data version moved (yes when it cannot say)")
    func dataVersionSays() {
        var follower = LedgerFollower(clock: nil, settings: nil)
        let said = [4, 4, 5, 5, nil].map { follower.othersCommittedSinceLastTick(dataVersion: $0) }
        #expect(said == [true, false, true, false, true])
    }

    @Test("this process's own clock is not news; another's is taken up once")
    func movedClock() {
        let start = Date(timeIntervalSince1970: 1_780_000_000)
        let own = StoreClock(rate: .realTime, realAnchor: start, storeAnchor: start)
        var moved = own
        moved.advance(to: start.addingTimeInterval(86_400 * 30), real: start)
        var later = moved
        later.advance(to: start.addingTimeInterval(86_400 * 60), real: start)
        // Each clock's text as saved once: the ledger holds one text, and the follower compares texts.
        let (ownText, movedText, laterText) = (Self.text(own), Self.text(moved), Self.text(later))
        var follower = LedgerFollower(clock: ownText, settings: nil)
        var taken = [ownText, nil, movedText, movedText].map { follower.movedClock($0) }
        follower.wrote(clock: laterText)
        taken.append(follower.movedClock(laterText))
        #expect(taken == [nil, nil, moved, nil, nil])
    }

    @Test("settings are news when they differ from what this process last wrote or read, a reset's nil included")
    func settingsChanged() {
        let off = "{\"askToBuy\":false}", on = "{\"askToBuy\":true}"
        var follower = LedgerFollower(clock: nil, settings: off)
        var changed = [off, on, on, nil].map { follower.settingsChanged($0) }
        follower.wrote(settings: off)
        changed.append(follower.settingsChanged(off))
        #expect(changed == [false, true, false, true, false])
    }

    @Test("following starts and stops the ticks")
    func ticks() async {
        var follower = LedgerFollower(clock: nil, settings: nil)
        #expect(!follower.isFollowing)
        let ticks = Task<Void, Never> { while (try? await Task.sleep(for: .seconds(60))) != nil {} }
        follower.follow(wake: nil, ticks: ticks)
        #expect(follower.isFollowing)
        follower.stop()
        #expect(!follower.isFollowing)
        await ticks.value
        #expect(ticks.isCancelled)
    }

    final class FileWake: LedgerWake {
        var meansOthersCommitted: Bool { false }
        func stop() {}
    }

    @Test("a watched file's wake is news only when the data version moved since the last tick (its own writes wake it too)")
    func fileWakeNews() {
        var follower = LedgerFollower(clock: nil, settings: nil)
        follower.follow(wake: FileWake(), ticks: Task {})
        _ = follower.othersCommittedSinceLastTick(dataVersion: 4)
        #expect([4, 5, nil].map { follower.wakeMayBeNews(dataVersion: $0) } == [false, true, true])
        follower.stop()
    }
}
