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
