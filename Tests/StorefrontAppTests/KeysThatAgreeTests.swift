import Foundation
import Testing
import StoreCore
import TerminalUI
@testable import StorefrontApp

/// The keys mean one thing each and work alike on every screen and sheet (issue 17).
@Suite struct KeysThatAgreeTests {
    @Test func pageDownAndPageUpMoveHalfAScreenInEveryList() async throws {
        var state = try await fixtureState()
        state.size = Size(width: 80, height: 19)  // a page is (19 - 5) / 2 = 7 items (a smaller terminal takes no keys)
        for screen in Screen.allCases {
            state.screen = screen
            let count = itemCount(screen, state)
            guard count > 0 else { continue }
            press(&state, .home)
            let first = state.selected(screen)
            press(&state, .pageDown)
            #expect(state.selected(screen) == min(count - 1, first + 7) || screen.view.isHeading(first + 7, state),
                    "PgDn on \(screen)")
            for _ in 0..<count { press(&state, .pageDown) }
            #expect(state.selected(screen) == count - 1, "PgDn stops at the last item on \(screen)")
            press(&state, .pageUp)
            #expect(state.selected(screen) < count - 1 || count == 1, "PgUp on \(screen)")
        }
    }

    @Test func pageDownMovesInAMenu() async throws {
        var state = try await fixtureState()
        state.size = Size(width: 80, height: 19)
        state.sheets = [.menu(title: "Pick", items: (0..<12).map { MenuItem(label: "\($0)", effect: .quit) })]
        press(&state, .pageDown)
        guard case .menu(let menu)? = state.top else { Issue.record("the menu closed"); return }
        #expect(menu.selected == 7)
    }
}

extension KeysThatAgreeTests {
    /// A kept filter emptied the QA pickers ("Buy outside the app: Nothing to choose") and
    /// narrowed every screen at once.
    @Test func aFilterBelongsToOneScreenAndNeverToPickers() async throws {
        var state = try await fixtureState()
        press(&state, .character("/"))
        for c in "coins" { press(&state, .character(c)) }
        press(&state, .enter)
        #expect(StoreScreen.products(state).count == 1)
        press(&state, .character("4"))
        #expect(state.filter.text.isEmpty, "the QA panel has its own filter")
        state.selection[.qa] = QAPanel.rows(state).firstIndex { $0.label == "Buy outside app…" }!
        press(&state, .enter)
        guard case .menu(let menu)? = state.top else { Issue.record("no picker"); return }
        #expect(menu.items.count == state.snapshot.products.count)
        press(&state, .escape, .character("1"))
        #expect(state.filter.text == "coins", "the store keeps its own filter")
    }

    @Test func escapeClearsAKeptFilter() async throws {
        var state = try await fixtureState()
        press(&state, .character("/"))
        for c in "coins" { press(&state, .character(c)) }
        press(&state, .enter)
        #expect(KeyMap.footer(state).contains { $0.key == "Esc" && $0.label == "Clear filter" })
        press(&state, .escape)
        #expect(state.filter.text.isEmpty)
        #expect(StoreScreen.products(state).count == state.snapshot.products.count)
    }

    /// In `walk`, `a` was both "apply step" and "app info".
    @Test func noKeyMeansTwoThings() async throws {
        var state = try await fixtureState()
        for walk in [false, true] {
            if walk { state = WalkthroughState(app: state, walk: WalkState(scenario: Scenario(path: "w.scenario", title: "w", steps: []))).app }
            for screen in Screen.allCases {
                state.screen = screen
                let keys = KeyMap.bindings(state).flatMap(\.keys)
                #expect(Set(keys).count == keys.count, "a key bound twice on \(screen), walk: \(walk)")
            }
        }
    }

    @Test func theFooterShowsTabAndTheScreenNumbers() async throws {
        let state = try await fixtureState()
        #expect(KeyMap.footer(state).contains { $0.key == "Tab 1-6" })
    }

    /// The QA panel lists transactions oldest first, so End / G reach the newest.
    @Test func endInTheQAPanelGoesToTheNewestTransaction() async throws {
        var state = try await fixtureState()
        press(&state, .character("4"), .character("G"))
        let newest = state.ledger.map(\.id).max()!
        #expect(QAPanel.rows(state)[state.selected(.qa)].label.hasPrefix("#\(newest) "))
    }
}

/// Clicks and the wheel do what the keys do (issue 17: "click tabs, rows, sheet buttons and QA toggles").
@Suite struct MouseTests {
    static func click(_ state: inout AppState, _ x: Int, _ y: Int) -> [Effect] {
        reduce(&state, .key(.mouse(Mouse(.click, x: x, y: y))))
    }

    /// Where `text` is drawn on the screen for `state`.
    static func position(of text: String, _ state: AppState) throws -> (x: Int, y: Int) {
        let lines = render(state, size: state.size).lines
        let y = try #require(lines.firstIndex { $0.contains(text) }, "\(text) is not on screen")
        let prefix = lines[y][..<lines[y].range(of: text)!.lowerBound]
        return (DisplayWidth.of(prefix), y)
    }

    @Test func clickingATabShowsItsScreen() async throws {
        var state = try await fixtureState()
        let tab = try Self.position(of: "3 History", state)
        _ = Self.click(&state, tab.x + 2, tab.y)
        #expect(state.screen == .history)
    }

    @Test func clickingARowSelectsItAndASecondClickActivatesIt() async throws {
        var state = try await fixtureState(purchases: false)
        let row = try Self.position(of: "Bag of 500 Gems", state)
        _ = Self.click(&state, row.x, row.y)
        #expect(StoreScreen.products(state)[state.selected(.store)].displayName == "Bag of 500 Gems")
        #expect(state.sheets.isEmpty)
        _ = Self.click(&state, row.x, row.y)
        guard case .payment? = state.top else { Issue.record("no payment sheet"); return }
    }

    @Test func clickingASheetButtonDoesWhatItsKeyDoes() async throws {
        var state = try await fixtureState(purchases: false)
        press(&state, .enter)
        let cancel = try Self.position(of: "[ Cancel ]", state)
        let effects = Self.click(&state, cancel.x + 3, cancel.y)
        #expect(effects.first == .command(.buy("com.lumenquest.coins.100", quantity: 1, offer: nil, signature: .valid, askToBuy: false, answer: .cancel)))
    }

    @Test func clickingAFooterHintPressesItsKey() async throws {
        var state = try await fixtureState(purchases: false)
        let help = try Self.position(of: "[?] Help", state)
        _ = Self.click(&state, help.x + 4, help.y)
        #expect(state.top == .help)
    }

    @Test func clickingAQAToggleTogglesIt() async throws {
        var state = try await fixtureState()
        press(&state, .character("4"))
        let toggle = try Self.position(of: "Ask to Buy", state)
        #expect(Self.click(&state, toggle.x + 45, toggle.y) == [.command(.toggle(.askToBuy))])
    }

    @Test func clickingAMenuItemRunsIt() async throws {
        var state = try await fixtureState()
        state.sheets = [.menu(title: "Pick", items: [MenuItem(label: "First thing", effect: .command(.clear)), MenuItem(label: "Second thing", effect: .command(.reset))])]
        let item = try Self.position(of: "Second thing", state)
        #expect(Self.click(&state, item.x, item.y) == [.command(.reset)])
        #expect(state.sheets.isEmpty)
    }

    @Test func theWheelMovesTheSelection() async throws {
        var state = try await fixtureState()
        _ = reduce(&state, .key(.mouse(Mouse(.wheelDown, x: 10, y: 10))))
        #expect(state.selected(.store) == MouseInput.wheelStep)
        _ = reduce(&state, .key(.mouse(Mouse(.wheelUp, x: 10, y: 10))))
        #expect(state.selected(.store) == 0)
    }

    @Test func bracketsAroundTheClickNameTheButton() {
        var canvas = Canvas(size: Size(width: 30, height: 1))
        canvas.put("[Enter] Buy  [ Cancel ] x]", at: 0, 0)
        #expect(MouseInput.bracketed(canvas, x: 3, y: 0) == "Enter")
        #expect(MouseInput.bracketed(canvas, x: 16, y: 0) == "Cancel")
        #expect(MouseInput.bracketed(canvas, x: 9, y: 0) == nil)
        #expect(MouseInput.bracketed(canvas, x: 25, y: 0) == nil)
    }
}

extension KeysThatAgreeTests {
    /// Five quick → on Storefront moved it one step: each key cycled from the value on screen,
    /// which the store had not yet changed.
    @Test func quickPressesInTheQAPanelActOnTheLatestState() async throws {
        var state = try await fixtureState()
        state.storefronts = ["USA", "JPN", "DEU"]
        press(&state, .character("4"))
        state.selection[.qa] = QAPanel.rows(state).firstIndex { $0.label == "Storefront" }!
        #expect(press(&state, .right) == [.command(.storefront("JPN", locale: nil))])
        #expect(press(&state, .right).isEmpty, "waits for the store's answer")
        _ = reduce(&state, .finished(.done("Storefront JPN")))
        var snapshot = state.snapshot
        snapshot.storefront.code = "JPN"
        _ = reduce(&state, .snapshot(snapshot))
        #expect(reduce(&state, .qaData(state.settings, state.ledger)).isEmpty, "a read alone may be the idle look's, from before the change")
        #expect(reduce(&state, .storeSettled) == [.command(.storefront("DEU", locale: nil))])
    }
}

extension KeysThatAgreeTests {
    /// "Reset store" defaulted to Confirm: Enter, pressed from habit, wiped the store.
    @Test func destructiveConfirmationsDefaultToCancel() async throws {
        var state = try await fixtureState()
        press(&state, .character("4"))
        let reset = QAPanel.rows(state).firstIndex { $0.label == "Reset store" }!
        state.selection[.qa] = reset
        press(&state, .enter)
        #expect(press(&state, .enter).isEmpty, "Enter cancels")
        #expect(state.sheets.isEmpty)
        press(&state, .enter, .left)
        #expect(press(&state, .enter) == [.command(.reset)], "← picks Confirm")
        storeAnswers(&state)
        press(&state, .enter)
        #expect(press(&state, .character("y")) == [.command(.reset)], "y confirms at once")
    }
}
