import Foundation
import StoreClient
import StoreCore
import StoreEngine
import Testing
import StorefrontTestSupport
import TerminalUI
@testable import StorefrontApp

/// The storefront's launch draws before the history is loaded, and an idle storefront reads the
/// store only when something changed or a time it knew of arrives.
@Suite("Launch and idle in the storefront")
struct LaunchAndIdleTests {
    let now = Date(timeIntervalSince1970: 1_780_000_000)

    @Test("an idle look with nothing changed reads nothing; the first look, a changed version or an unknown one reads")
    func idleLookReadsOnlyOnChange() {
        var refresh = IdleRefresh<Int>()
        #expect(refresh.isDue(1, now: now), "the first look reads: what the launch read is not known to it")
        refresh.read(at: 1, giving: StoreSnapshot())
        #expect(!refresh.isDue(1, now: now.addingTimeInterval(86_400 * 365)), "time alone, with nothing to end, reads nothing")
        #expect(refresh.isDue(2, now: now), "a commit (this process's or another's) moved the version")
        #expect(refresh.isDue(nil, now: now), "a store that cannot say (a shared ledger out of reach) is read")
    }

    @Test("an idle look reads when the store clock reaches the end of a non-renewing entitlement")
    func idleLookReadsWhenAnEntitlementEnds() {
        var snapshot = StoreSnapshot()
        snapshot.entitlements = ["season"]
        snapshot.nonRenewingEnds = ["season": now.addingTimeInterval(60)]
        var refresh = IdleRefresh<Int>()
        refresh.read(at: 1, giving: snapshot)
        #expect(!refresh.isDue(1, now: now.addingTimeInterval(59)))
        #expect(refresh.isDue(1, now: now.addingTimeInterval(60)))
        refresh.read(at: 1, giving: StoreSnapshot())  // read again: it has ended
        #expect(!refresh.isDue(1, now: now.addingTimeInterval(61)))
    }

    @Test("a refresh that ends after the read its event caused is shown at the next idle look (another storefront credited the shared wallet)")
    @MainActor func refreshAfterTheReadIsShown() async throws {
        let temporary = TemporaryDirectory()
        let directory = temporary.path
        let stack = try await StoreStack.open(catalog: Repo.catalog, stateDirectory: directory)
        let reader = StoreReader(store: stack.store, manager: stack.manager)
        _ = await reader.read(.all)
        _ = await reader.look()
        let reads = reader.reads
        #expect(await reader.look().count == 1 && reader.reads == reads, "nothing changed: the clock alone")
        // The other storefront's credit of the wallet both share, and this app's refresh after it, a
        // moment after the read: the ledger's version is where it was.
        let other = try ConsumableWallet(path: directory + "/wallet.sqlite")
        try await other.credit(transactionID: 2_000_000_001, productID: ID.coins, quantity: 1)
        await stack.manager.refresh()
        let events = await reader.look()
        #expect(reader.reads == reads + 1)
        #expect(events.contains { if case .snapshot(let s) = $0 { s.balances[ID.coins] == 1 } else { false } })
        await stack.close()
    }

    @Test("the clock alone moves the status line's time and nothing else")
    func clockMovesTheStatusLine() async throws {
        var state = try await fixtureState(purchases: true)
        let before = state.snapshot
        let later = before.now.addingTimeInterval(3 * 3600)
        _ = reduce(&state, .clock(later))
        var expected = before
        expected.now = later
        #expect(state.snapshot == expected)
        #expect(render(state, size: Size(width: 120, height: 30)).text.contains(Format.dateTime(later, seconds: false) + "Z"))
    }

    @Test("until the history and the ledger arrive after the first frame, the History screen says it is loading")
    func historyScreenSaysLoading() async throws {
        let loaded = try await fixtureState(purchases: true)
        var state = loaded
        state.snapshot.isLoadingHistory = true
        state.snapshot.history = []
        state.ledger = []
        state.isLoadingLedger = true
        state.screen = .history
        let size = Size(width: 120, height: 30)
        #expect(render(state, size: size).text.contains("Loading transactions…"))
        #expect(HistoryScreen.itemCount(state) == 0, "no row to act on while loading")
        state.screen = .qa
        #expect(QAPanel.rows(state).contains { $0.label == "  loading…" })
        state.screen = .history
        _ = reduce(&state, .snapshot(loaded.snapshot))
        #expect(render(state, size: size).text.contains("Loading transactions…"), "the ledger's side is still on its way")
        _ = reduce(&state, .qaData(loaded.settings, loaded.ledger))
        #expect(!render(state, size: size).text.contains("Loading"))
        #expect(HistoryScreen.itemCount(state) == HistoryScreen.itemCount(loaded) && HistoryScreen.itemCount(state) > 0)
    }
}
