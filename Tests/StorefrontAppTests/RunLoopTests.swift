import Foundation
import StoreClient
import StoreCore
import StoreEngine
import Testing
import StorefrontTestSupport
import TerminalUI
@testable import StorefrontApp

/// The real run loop, in-process, on a `MemoryTerminal` (ratatui's `TestBackend`): keys, clicks,
/// ticks, resizes and store events go in as they would from a terminal, and the screen is read back.
@MainActor
final class RunningStorefront {
    let terminal: MemoryTerminal
    let loop: StorefrontLoop<AppState>
    let store: LocalAppStore
    let manager: StoreManager
    private let tick: AsyncStream<Void>.Continuation
    private var running: Task<Int32, Never>?

    init(size: Size = Size(width: 80, height: 24), askToBuy: Bool = false) async throws {
        let catalog = try CatalogLoader.load(path: Repo.catalogPath)
        (store, manager) = try await liveStore()
        if askToBuy { await store.update { $0.askToBuy = true } }
        terminal = MemoryTerminal(size: size)
        let state = await AppState.opening(catalog, manager: manager, controls: store, ledgerAfterFirstFrame: true)
        loop = StorefrontLoop(backend: terminal, store: store, manager: manager, state: state)
        let ticks: AsyncStream<Void>
        (ticks, tick) = AsyncStream<Void>.makeStream()
        running = Task { [loop] in await loop.run(ticks: ticks) }
        try await waitUntil("the launch's read") { !self.loop.state.isLoadingLedger && self.loop.reader.reads == 1 }
    }

    var state: AppState { loop.state }

    /// Quarter seconds of the store's clock.
    func ticks(_ n: Int) async throws {
        let target = state.tick + n
        for _ in 0..<n { tick.yield() }
        try await waitUntil("\(n) ticks") { self.state.tick >= target }
    }

    func waitFor(_ text: String) async throws {
        try await waitUntil("\"\(text)\" on the screen:\n\(terminal.text)") { self.terminal.text.contains(text) }
    }

    /// Waited for, not timed: a loaded machine runs the loop's tasks seldom (CI once took over 20 s
    /// for 4 ticks while other suites loaded both cores); the minute only catches a loop that hangs.
    func waitUntil(_ what: @autoclosure () -> String, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while !condition() {
            guard ContinuousClock.now < deadline else { Issue.record("waited 60 s for \(what())"); throw CancellationError() }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// The frames drawn from Confirm on the payment sheet of the first product until "Purchased", as
    /// drawn rather than the screen as polled (a loaded machine polled too seldom to see a spinner).
    func framesConfirming(networkDelay: TimeInterval, frameDelay: Duration) async throws -> [String] {
        await store.update { $0.networkDelay = networkDelay }
        loop.effectFrameDelay = frameDelay
        terminal.type(.enter)
        try await waitFor("[ Confirm ]")
        var drawn: [String] = []
        loop.onFrame = { drawn.append($0.text) }
        terminal.type(.enter)
        try await waitFor("Purchased 100 Coins")
        return drawn
    }

    /// Confirms the first product's payment sheet and waits until it has drawn its spinner (it purchases
    /// for `networkDelay` seconds). Waited for among the frames drawn, not on the screen as polled: under
    /// load (ThreadSanitizer, both cores busy) the outcome had replaced the spinner before a poll saw it.
    func confirmFirstProduct(networkDelay: TimeInterval) async throws {
        await store.update { $0.networkDelay = networkDelay }
        terminal.type(.enter)
        try await waitFor("[ Confirm ]")
        var purchasingDrawn = false
        loop.onFrame = { if $0.text.contains("Purchasing") { purchasingDrawn = true } }
        terminal.type(.enter)
        try await waitUntil("a frame with \"Purchasing\" on it, now:\n\(terminal.text)") { purchasingDrawn }
    }

    /// The cell a label starts at on the screen.
    func position(of label: String) throws -> (x: Int, y: Int) {
        let lines = terminal.text.components(separatedBy: "\n")
        let y = try #require(lines.firstIndex { $0.contains(label) }, "\(label) on the screen")
        let prefix = lines[y][..<lines[y].range(of: label)!.lowerBound]
        return (DisplayWidth.of(String(prefix)), y)
    }

    /// Quits, with Ctrl-C unless told: it quits whatever is on screen, so a test whose expectation failed
    /// with a sheet left open (one that takes no q) ends rather than hanging the whole run.
    func quit(with key: Key = .control("c")) async -> Int32 {
        terminal.type(key)
        return await running!.value
    }
}

@Suite("The run loop, in-process")
struct RunLoopTests {
    @Test("A purchase by keys is reported once and reads the store once")
    @MainActor
    func purchaseByKeys() async throws {
        let app = try await RunningStorefront()
        try await app.ticks(8)
        #expect(app.loop.reader.reads == 1, "idle, the loop reads nothing")
        let reads = app.loop.reader.reads
        app.terminal.type(.enter)
        try await app.waitFor("[ Confirm ]")
        let frames = app.terminal.frames
        app.terminal.type(.enter)
        try await app.waitFor("Purchased 100 Coins")
        try await app.waitUntil("the purchase's read") { app.state.inFlight == 0 && app.loop.reader.reads > reads }
        // Purchasing…, Purchased, and what the read found as one frame (not one for each thing it read).
        #expect(app.terminal.frames - frames <= 3, "frames drawn for one purchase")
        try await app.ticks(8)  // two idle looks: nothing changed since the purchase's read
        #expect(app.loop.reader.reads - reads == 1, "one read of the store per purchase")
        #expect(app.state.log.filter { $0.text == "Purchased 100 Coins" }.count == 1, "reported once: \(app.state.log.map(\.text))")
        #expect(await app.manager.snapshot.balances.values.reduce(0, +) > 0)
        #expect(await app.quit() == 0)
    }

    @Test("A quick answer is drawn once: no spinner frame on the way to \"Purchased\"")
    @MainActor
    func quickAnswerDrawsOnce() async throws {
        let app = try await RunningStorefront()
        // The frame delay longer than any purchase, however loaded the machine.
        let drawn = try await app.framesConfirming(networkDelay: 0, frameDelay: .seconds(60))
        #expect(drawn.count == 1 && drawn[0].contains("Purchased 100 Coins"), "frames up to the outcome: \(drawn)")
        #expect(await app.quit() == 0)
    }

    @Test("A slow answer shows its spinner after the frame delay, then the outcome")
    @MainActor
    func slowAnswerShowsItsSpinner() async throws {
        let app = try await RunningStorefront()
        let drawn = try await app.framesConfirming(networkDelay: 2, frameDelay: .milliseconds(10))
        let spinner = drawn.firstIndex { $0.contains("Purchasing") }, outcome = drawn.firstIndex { $0.contains("Purchased 100 Coins") }
        #expect(spinner != nil && outcome != nil && spinner! < outcome!, "the spinner came first: \(drawn)")
        #expect(await app.quit() == 0)
    }

    @Test("Keys typed while the payment sheet is purchasing act once the outcome is shown, in order")
    @MainActor
    func keysTypedWhilePurchasingAreKept() async throws {
        let app = try await RunningStorefront()
        try await app.confirmFirstProduct(networkDelay: 2)
        #expect(app.state.isPurchasing, "the keys below are typed while it purchases")
        app.terminal.type(.character("3"))  // History, then down to the first transaction's details
        app.terminal.type(.enter)
        try await app.waitFor("Purchased 100 Coins")
        // 3 shows the history; Enter, typed after it, opens the newest transaction's details.
        try await app.waitUntil("History with a transaction's details open: \(app.state.screen), \(String(describing: app.state.top)); "
                                + "awaiting the store: \(app.state.awaitingStore), waiting keys: \(app.state.waitingKeys), in flight: \(app.state.inFlight)") {
            app.state.screen == .history && app.state.top != nil
        }
        #expect(await app.quit() == 0)
    }

    @Test("While the payment sheet is purchasing, q quits at once, as its key hints say")
    @MainActor
    func quitActsAtOnceWhilePurchasing() async throws {
        let app = try await RunningStorefront()
        try await app.confirmFirstProduct(networkDelay: 5)
        #expect(await app.quit(with: .character("q")) == 0)
        #expect(app.state.isPurchasing, "the loop ended before the store answered")
    }

    @Test("An impatient second Enter on Confirm opens no other payment sheet once the purchase is done")
    @MainActor
    func aSecondEnterOnConfirmIsDropped() async throws {
        let app = try await RunningStorefront()
        // Long enough that the second Enter surely comes while the sheet is purchasing, however loaded the machine.
        try await app.confirmFirstProduct(networkDelay: 1.5)
        app.terminal.type(.enter)
        try await app.waitFor("Purchased 100 Coins")
        try await app.waitUntil("the store settled") { app.state.isSettled }
        #expect(app.state.top == nil, "\(String(describing: app.state.top))")
        #expect(await app.quit() == 0)
    }

    @Test("A click on [ Confirm ], press then release, buys without waiting for another key")
    @MainActor
    func purchaseByClick() async throws {
        let app = try await RunningStorefront()
        app.terminal.type(.enter)
        try await app.waitFor("[ Confirm ]")
        let confirm = try app.position(of: "Confirm")
        app.terminal.click(x: confirm.x, y: confirm.y)
        try await app.waitFor("Purchased 100 Coins")
        try await app.ticks(4)
        #expect(!app.terminal.text.contains("Purchasing"))
        #expect(await app.quit() == 0)
    }

    @Test("A resize lays the screen out again at the new size")
    @MainActor
    func resize() async throws {
        let app = try await RunningStorefront()
        app.terminal.resize(to: Size(width: 100, height: 30))
        try await app.waitUntil("a frame at 100×30") { app.terminal.screen.size == Size(width: 100, height: 30) }
        #expect(app.state.size == Size(width: 100, height: 30))
        app.terminal.resize(to: Size(width: 30, height: 8))
        try await app.waitFor("too small")
        #expect(await app.quit() == 0)
    }

    @Test("An Ask to Buy approval arrives as a store event and is shown")
    @MainActor
    func askToBuyApproval() async throws {
        let app = try await RunningStorefront(askToBuy: true)
        app.terminal.type(.enter)
        try await app.waitFor("[ Confirm ]")
        app.terminal.type(.enter)
        try await app.waitFor("Waiting for approval")
        let pending = try #require(await app.store.ledgerEntries().first { $0.status == .pendingApproval })
        // The QA panel shows it waiting (the purchase's read) before the parent approves, as a tester sees it.
        try await app.waitUntil("the ledger shows it waiting") { app.state.ledger.contains { $0.id == pending.id && $0.status == .pendingApproval } }
        // The parent approves on their device: the tester's control, outside the storefront's loop.
        _ = try await CommandPerformer(manager: app.manager, controls: app.store).perform(.control(.approve, .id(pending.id)))
        try await app.waitFor("Ask to Buy approved: 100 Coins")
        try await app.waitUntil("the ledger shows it approved") { app.state.ledger.contains { $0.id == pending.id && $0.status != .pendingApproval } }
        #expect(app.state.log.filter { $0.text == "Waiting for approval (Ask to Buy)" }.count == 1)
        #expect(await app.quit() == 0)
    }

    @Test("A purchase begun on the App Store opens the app's payment sheet on the product, with the offer chosen there")
    @MainActor
    func aPromotionOpensThePaymentSheet() async throws {
        let app = try await RunningStorefront()
        // The customer taps the promotion on the App Store: the tester's control, outside the storefront's loop.
        _ = try await CommandPerformer(manager: app.manager, controls: app.store).perform(.promote("com.lumenquest.plus.monthly", offer: "plus.loyalty"))
        try await app.waitFor("[ Confirm ]")
        guard case .payment(let sheet)? = app.state.sheets.last else { Issue.record("no payment sheet: \(app.state.sheets)"); return }
        #expect(sheet.productID == "com.lumenquest.plus.monthly" && sheet.offers[sheet.offerIndex] == .promotional("plus.loyalty"))
        // A promotional offer is for a customer who subscribed before (this one never did): the store says so.
        app.terminal.type(.enter)
        try await app.waitFor("You are not eligible for this offer.")
        #expect(await app.store.ledgerEntries().isEmpty)
        #expect(await app.quit() == 0)
    }
}
