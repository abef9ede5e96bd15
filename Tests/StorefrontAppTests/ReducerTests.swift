import Foundation
import StoreClient
import StoreCore
import StoreEngine
import Testing
import TerminalUI
@testable import StorefrontApp
import StorefrontTestSupport

@Suite struct ReducerTests {
    @Test func tabsAndNumbersSwitchScreens() async throws {
        var state = try await fixtureState(purchases: false)
        press(&state, .tab)
        #expect(state.screen == .subscriptions)
        press(&state, .backTab, .backTab)
        #expect(state.screen == .notifications)
        press(&state, .character("3"))
        #expect(state.screen == .history)
    }

    @Test("a screen whose list shrank while another was shown opens with its selection inside the list")
    func aListThatShrankBehindAnotherScreenKeepsItsSelectionInside() async throws {
        var state = try await fixtureState()
        press(&state, .character("4"), .character("G"))
        let last = state.selected(.qa)
        #expect(last > 1 && !state.ledger.isEmpty)
        press(&state, .character("1"))
        _ = reduce(&state, .qaData(state.settings, []))  // the ledger cleared while the Store is shown
        press(&state, .character("4"))
        #expect(state.selected(.qa) == QAPanel.itemCount(state) - 1 && state.selected(.qa) < last)
    }

    @Test func arrowsAndJKMoveWithinBounds() async throws {
        var state = try await fixtureState(purchases: false)
        press(&state, .up)
        #expect(state.selected(.store) == 0)
        press(&state, .down, .character("j"), .character("k"))
        #expect(state.selected(.store) == 1)
        for _ in 0..<50 { press(&state, .down) }
        #expect(state.selected(.store) == StoreScreen.products(state).count - 1)
    }

    @Test func confirmingThePaymentSheetPurchases() async throws {
        var state = try await fixtureState(purchases: false)
        #expect(press(&state, .enter).isEmpty)
        guard case .payment? = state.top else { Issue.record("no payment sheet"); return }
        let effects = press(&state, .character("+"), .enter)
        #expect(effects == [.command(.buy("com.lumenquest.coins.100", quantity: 2, offer: nil, signature: .valid, askToBuy: false, answer: .confirm))])
        // A second Enter while the purchase is in flight does not buy twice.
        #expect(press(&state, .enter).isEmpty)
        _ = reduce(&state, .finished(.purchase(productID: "com.lumenquest.coins.100", .userCancelled)))
        #expect(state.sheets.isEmpty)
        #expect(state.status == "Purchase cancelled")
    }

    @Test func escapeCancelsThePaymentSheetThroughTheStore() async throws {
        var state = try await fixtureState(purchases: false)
        press(&state, .enter)
        let effects = press(&state, .escape)
        #expect(effects == [.command(.buy("com.lumenquest.coins.100", quantity: 1, offer: nil, signature: .valid, askToBuy: false, answer: .cancel))])
        #expect(state.sheets.isEmpty)
    }

    @Test func cancelButtonCancels() async throws {
        var state = try await fixtureState(purchases: false)
        press(&state, .enter, .right)
        #expect(press(&state, .enter).first == .command(.buy("com.lumenquest.coins.100", quantity: 1, offer: nil, signature: .valid, askToBuy: false, answer: .cancel)))
    }

    /// A read may come from the idle look or a store event, begun before the purchase was saved: the keys
    /// typed meanwhile act once the purchase's own read is in, not at the first read.
    @Test func keysHeldForAPurchaseWaitForItsOwnReadNotAnyRead() async throws {
        var state = try await fixtureState(purchases: false)
        press(&state, .enter, .enter)
        #expect(state.isPurchasing && state.awaitingStore)
        press(&state, .character("3"))
        _ = reduce(&state, .finished(.purchase(productID: "com.lumenquest.coins.100", .userCancelled)))
        _ = reduce(&state, .qaData(state.settings, state.ledger))
        #expect(state.screen == .store && state.waitingKeys == [.character("3")])
        _ = reduce(&state, .storeSettled)
        #expect(state.screen == .history && state.isSettled)
    }

    @Test func thePaymentSheetOffersAQuantityWhereStoreKitSellsMany() async throws {
        let state = try await fixtureState(purchases: false)
        func allows(_ id: String) throws -> Bool { draft(for: try #require(state.product(id)), state).allowsQuantity }
        #expect(try allows("com.lumenquest.coins.100") && allows("com.lumenquest.seasonpass"))
        #expect(try !allows("com.lumenquest.pro") && !allows("com.lumenquest.pro.yearly"))
    }

    @Test func failedPurchaseShowsTheMessage() async throws {
        var state = try await fixtureState(purchases: false)
        press(&state, .enter, .enter)
        _ = reduce(&state, .finished(.purchase(productID: "com.lumenquest.coins.100", .failed(.storeKit(.networkError)))))
        #expect(state.top == .message(title: "Purchase failed", text: StoreFailure.storeKit(.networkError).message))
        _ = reduce(&state, .storeSettled)  // the read the outcome's effect asked for is in
        press(&state, .escape)
        #expect(state.sheets.isEmpty)
    }

    @Test func redeemSheetTypesUppercaseAndRedeems() async throws {
        var state = try await fixtureState(purchases: false)
        press(&state, .character("c"), .character("a"), .character("d"), .character("q"))
        #expect(state.screen == .store)  // q was typed, not quit
        press(&state, .backspace)
        #expect(press(&state, .enter) == [.command(.redeem("AD"))])
    }

    @Test func escPopsOnlyTheTopSheet() async throws {
        var state = try await fixtureState(purchases: false)
        press(&state, .character("i"), .character("?"))
        #expect(state.sheets.count == 1)  // ? is not bound inside the detail sheet
        state.sheets.append(.help)
        press(&state, .escape)
        #expect(state.sheets == [.productDetail("com.lumenquest.coins.100")])
        press(&state, .escape)
        #expect(state.sheets.isEmpty)
    }

    @Test func filterNarrowsAndEscClears() async throws {
        var state = try await fixtureState(purchases: false)
        press(&state, .character("/"), .character("g"), .character("e"), .character("m"))
        #expect(StoreScreen.products(state).map(\.id) == ["com.lumenquest.gems.500"])
        press(&state, .enter)
        #expect(!state.isEditingFilter && state.filter.text == "gem")
        press(&state, .character("/"), .escape)
        #expect(state.filter.text.isEmpty)
        #expect(StoreScreen.products(state).count == state.snapshot.products.count)
    }

    @Test func filterNarrowsTheQAPanelUnderItsHeadingsAndEnterRunsTheMatch() async throws {
        var state = try await fixtureState()
        press(&state, .character("4"), .character("/"))
        for c in "ask to" { press(&state, .character(c)) }
        press(&state, .enter)
        #expect(QAPanel.rows(state).map(\.label) == ["Store", "Ask to Buy"])
        press(&state, .down)
        #expect(press(&state, .enter) == [.command(.toggle(.askToBuy))])
        storeAnswers(&state)
        press(&state, .character("/"))
        for c in "zzz" { press(&state, .character(c)) }
        #expect(QAPanel.rows(state).isEmpty)
        #expect(QAPanel.lines(state, width: 80).map(\.text) == ["No controls or transactions match “ask tozzz”."])
    }

    @Test func filterNarrowsTheSubscriptionGroups() async throws {
        var state = try await fixtureState(purchases: false)
        press(&state, .character("2"), .character("/"))
        for c in "membership" { press(&state, .character(c)) }
        #expect(SubscriptionsScreen.groups(state) == ["lumenquest.membership"])
        #expect(StoreScreen.products(state).count == 9, "a filter belongs to its screen: the store is not narrowed")
        press(&state, .escape, .character("/"))
        for c in "plus" { press(&state, .character(c)) }
        #expect(SubscriptionsScreen.groups(state) == ["lumenquest.membership"])
        for c in "zzz" { press(&state, .character(c)) }
        #expect(SubscriptionsScreen.groups(state).isEmpty)
    }

    @Test func quitFromAnywhere() async throws {
        var state = try await fixtureState(purchases: false)
        #expect(press(&state, .character("q")) == [.quit])
        var sheet = try await fixtureState(purchases: false)
        press(&sheet, .enter)
        #expect(press(&sheet, .control("c")) == [.quit])
    }

    @Test func qaTogglesAndResetAsksFirst() async throws {
        var state = try await fixtureState()
        press(&state, .character("4"))
        let rows = QAPanel.rows(state)
        state.selection[.qa] = rows.firstIndex { $0.label == "Ask to Buy" }!
        #expect(press(&state, .enter) == [.command(.toggle(.askToBuy))])
        storeAnswers(&state)
        state.selection[.qa] = rows.firstIndex { $0.label == "Purchase" }!
        #expect(press(&state, .right) == [.command(.fail(.purchase, .purchase(.purchaseNotAllowed)))])
        storeAnswers(&state)
        state.selection[.qa] = rows.firstIndex { $0.label == "Reset store" }!
        #expect(press(&state, .enter).isEmpty)
        #expect(press(&state, .character("y")) == [.command(.reset)])
    }

    @Test func qaLedgerEntryOffersApproval() async throws {
        var state = try await fixtureState()
        press(&state, .character("4"))
        let pending = state.ledger.first { $0.status == .pendingApproval }!
        state.selection[.qa] = QAPanel.rows(state).firstIndex { $0.label.hasPrefix("#\(pending.id)") }!
        press(&state, .enter)
        #expect(press(&state, .enter) == [.command(.control(.approve, .id(pending.id)))])
    }

    @Test("a damaged ledger row is said on the status line, not shown as less than was bought")
    func damageIsSaid() async throws {
        var state = try await fixtureState(purchases: false)
        var snapshot = state.snapshot
        snapshot.damage = "ledger.sqlite: row 7 of transactions is damaged"
        _ = reduce(&state, .snapshot(snapshot))
        #expect(state.status == "⚠ ledger.sqlite: row 7 of transactions is damaged")
    }

    @Test("a shared ledger back in reach after a lost connection is said, so the warning does not linger")
    func ledgerBackInReachIsSaid() async throws {
        var state = try await fixtureState(purchases: false)
        var snapshot = state.snapshot
        snapshot.damage = "postgresql://qa@db/store: the connection to the ledger's database was lost"
        _ = reduce(&state, .snapshot(snapshot))
        snapshot.damage = nil
        _ = reduce(&state, .snapshot(snapshot))
        #expect(state.status == "✓ The ledger can be read again")
    }

    @Test("under a time rate the store clock and renewal dates show seconds; in real time, minutes")
    func secondsUnderATimeRate() async throws {
        var state = try await fixtureState(purchases: false)
        let clock = Format.dateTime(state.snapshot.now)
        #expect(render(state, size: Size(width: 100, height: 24)).text.contains(clock + "Z"))
        state.settings.timeRate = .monthlyRenewalEveryThirtySeconds
        #expect(render(state, size: Size(width: 100, height: 24)).text.contains(Format.dateTime(state.snapshot.now, seconds: true) + "Z"))
        #expect(Format.dateTime(Date(timeIntervalSince1970: 1_796_105_696), seconds: true) == "2026-12-01 06:14:56")
    }

    @Test("the clock's remembered minute reads as Foundation formats each date, in any order, before 1970 and to the second")
    func rememberedMinuteIsFoundations() {
        let style = Date.VerbatimFormatStyle(
            format: "\(year: .defaultDigits)-\(month: .twoDigits)-\(day: .twoDigits) \(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits):\(second: .twoDigits)",
            timeZone: .gmt, calendar: Calendar(identifier: .gregorian))
        let instants: [TimeInterval] = [1_796_105_696, 1_796_105_699.999, 1_796_105_700, 1_796_105_659.5, 0, -0.25, -61, -86_400 * 400 - 1, 4_102_444_799.9,
                                        1e15, -1e15]  // far out, Foundation's own (it cannot format an infinite date at all)
        for since1970 in instants + instants.reversed() + instants.map({ $0 + 60 }) {
            let date = Date(timeIntervalSince1970: since1970)
            let expected = date.formatted(style)
            #expect(Format.dateTime(date, seconds: true) == expected, "\(since1970)")
            #expect(Format.dateTime(date) == String(expected.dropLast(3)), "\(since1970)")
        }
    }

    @Test("a catalog of one product says \"1 product\", not \"1 products\"")
    func oneProductIsSingular() async throws {
        var state = try await fixtureState(purchases: false)
        state.snapshot.products = Array(state.snapshot.products.prefix(1))
        #expect(render(state, size: Size(width: 80, height: 24)).text.contains(" 1 product · "))
        #expect(Format.count(2, "attempt") == "2 attempts")
    }

    @Test func helpListsTheSameBindingsAsTheFooter() async throws {
        let state = try await fixtureState(purchases: false)
        let help = KeyMap.helpLines(for: state).joined(separator: "\n")
        // "↑↓ Move" and "Tab 1-6 Screens" each stand for several rows of the help.
        for hint in KeyMap.footer(state) where !["↑↓", "Tab 1-6"].contains(hint.key) { #expect(help.contains(hint.label)) }
    }
}

@Suite("The History detail's signed token")
struct HistoryTokenTests {
    @Test("the detail shows the token and w writes the whole of it to transaction-ID.jws")
    func writeToken() async throws {
        var state = try await fixtureState(purchases: true)
        press(&state, .character("3"), .down, .enter)  // the newest is a pending Ask to Buy, which has no token yet
        guard case .transactionDetail(let sheet)? = state.top else { Issue.record("no transaction detail"); return }
        let id = sheet.transactionID
        let token = try #require(state.ledger.first { $0.id == id }?.jws)
        #expect(sheet.lines(state).contains { $0.hasPrefix("token: \(token.prefix(24))…") && $0.contains("transaction-\(id).jws") })
        #expect(press(&state, .character("w")) == [.writeFile(path: "transaction-\(id).jws", contents: token + "\n")])
        let path = NSTemporaryDirectory() + "storefront-token-\(UUID().uuidString).jws"
        let (store, manager) = try await liveStore()
        let reply = await EffectRunner(manager: manager, controls: store).run(.writeFile(path: path, contents: token + "\n"))
        await manager.stop()
        await store.shutdown()
        guard case .finished(.done) = reply.event else { Issue.record("\(reply.event)"); return }
        #expect(reply.changed.isEmpty, "a file written changes nothing in the store")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == token + "\n")
    }
}
