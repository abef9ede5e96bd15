import Foundation
import Testing
import TerminalUI
@testable import StorefrontApp

/// The keys mean one thing each and work alike on every screen and sheet (issue 17).
@Suite struct KeysThatAgreeTests {
    @Test func pageDownAndPageUpMoveHalfAScreenInEveryList() async throws {
        var state = try await fixtureState()
        state.size = Size(width: 80, height: 15)  // a page is (15 - 5) / 2 = 5 items
        for screen in Screen.allCases {
            state.screen = screen
            let count = itemCount(screen, state)
            press(&state, .home)
            let first = state.selected(screen)
            press(&state, .pageDown)
            #expect(state.selected(screen) == min(count - 1, first + 5) || screen.view.isHeading(first + 5, state),
                    "PgDn on \(screen)")
            for _ in 0..<count { press(&state, .pageDown) }
            #expect(state.selected(screen) == count - 1, "PgDn stops at the last item on \(screen)")
            press(&state, .pageUp)
            #expect(state.selected(screen) < count - 1 || count == 1, "PgUp on \(screen)")
        }
    }

    @Test func pageDownMovesInAMenu() async throws {
        var state = try await fixtureState()
        state.size = Size(width: 80, height: 15)
        state.sheets = [.menu(title: "Pick", items: (0..<12).map { MenuItem(label: "\($0)", effect: .quit) })]
        press(&state, .pageDown)
        guard case .menu(let menu)? = state.top else { Issue.record("the menu closed"); return }
        #expect(menu.selected == 5)
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
            if walk { state.walk = WalkState(scenario: Scenario(path: "w.scenario", title: "w", steps: [])) }
            for screen in Screen.allCases {
                state.screen = screen
                let keys = KeyMap.bindings(state).flatMap(\.keys)
                #expect(Set(keys).count == keys.count, "a key bound twice on \(screen), walk: \(walk)")
            }
        }
    }

    @Test func theFooterShowsTabAndTheScreenNumbers() async throws {
        let state = try await fixtureState()
        #expect(KeyMap.footer(state).contains { $0.key == "Tab 1-4" })
    }

    /// The QA panel lists transactions oldest first, so End / G reach the newest.
    @Test func endInTheQAPanelGoesToTheNewestTransaction() async throws {
        var state = try await fixtureState()
        press(&state, .character("4"), .character("G"))
        let newest = state.ledger.map(\.id).max()!
        #expect(QAPanel.rows(state)[state.selected(.qa)].label.hasPrefix("#\(newest) "))
    }
}
