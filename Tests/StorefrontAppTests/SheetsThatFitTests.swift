import Testing
import StorefrontTestSupport
import TerminalUI
@testable import StorefrontApp

/// A sheet fits any terminal down to the smallest: a tall body scrolls above a button row of its
/// own, and what lies under a sheet steps back instead of being sliced into look-alike text.
@Suite struct SheetsThatFitTests {
    /// The newest transaction's detail sheet on a terminal of `size`.
    func detailSheet(at size: Size) async throws -> AppState {
        var state = try await fixtureState()
        state.size = size
        press(&state, .character("3"), .end, .enter)
        guard case .transactionDetail? = state.top else { throw SheetMissing() }
        return state
    }

    struct SheetMissing: Error {}

    @Test("a detail sheet taller than the terminal keeps its buttons on a row of their own and says more lies below")
    func tallSheetKeepsItsButtonRow() async throws {
        let state = try await detailSheet(at: minimumSize)
        let lines = render(state, size: minimumSize).text.split(separator: "\n").map(String.init)
        let buttonRow = try #require(lines.first { $0.contains("[ OK ]") })
        #expect(!buttonRow.contains(":"), "no field is drawn into the button row: \(buttonRow)")
        #expect(lines.contains { $0.contains("↓ more") })
        #expect(!lines.contains { $0.contains("verification:") }, "the last fields are below the fold")
        #expect(KeyMap.footer(state).contains { $0.label == "Scroll" })
    }

    @Test("↓ and PgDn scroll a tall sheet's body to its last line, ↑ and PgUp back to its first")
    func tallSheetScrolls() async throws {
        var state = try await detailSheet(at: minimumSize)
        for _ in 0..<3 { press(&state, .pageDown) }
        var text = render(state, size: minimumSize).text
        #expect(text.contains("verification:"))
        #expect(text.contains("↑ more") && !text.contains("↓ more"))
        let bottom = state.sheetScroll
        press(&state, .down)
        #expect(state.sheetScroll == bottom, "no scrolling past the last line")
        press(&state, .up)
        #expect(state.sheetScroll == bottom - 1)
        for _ in 0..<3 { press(&state, .pageUp) }
        text = render(state, size: minimumSize).text
        #expect(state.sheetScroll == 0 && text.contains("transactionId:") && !text.contains("↑ more"))
    }

    @Test("a sheet that fits takes no scroll keys, and a new sheet opens at its first line")
    func shortSheetDoesNotScroll() async throws {
        var state = try await detailSheet(at: Size(width: 140, height: 40))
        #expect(!KeyMap.footer(state).contains { $0.label == "Scroll" })
        press(&state, .down)
        #expect(state.sheetScroll == 0)
        state.size = minimumSize
        press(&state, .pageDown)
        #expect(state.sheetScroll > 0)
        press(&state, .escape, .enter)
        #expect(state.sheetScroll == 0)
    }

    @Test("what lies under a sheet is dimmed, and no word is cut at the sheet's edges")
    func underSheetIsDimmedNotSliced() async throws {
        var state = try await fixtureState(purchases: false)
        state.selection[.store] = StoreScreen.products(state).firstIndex { $0.id == "com.lumenquest.pro.monthly" }!
        press(&state, .enter)
        let size = Size(width: 80, height: 24)
        let canvas = render(state, size: size)
        let area = sheetArea(state, size: size)
        let frame = try #require(state.top).view.sheet(state, in: area).frame(in: area)
        for y in frame.y..<frame.maxY {
            #expect(canvas[frame.x - 1, y].text == " " && canvas[frame.maxX, y].text == " ", "row \(y) is cut at the edge")
        }
        let beside = (area.y..<area.maxY).flatMap { y in (area.x..<frame.x).map { canvas[$0, y] } }.filter { $0.text != " " }
        #expect(!beside.isEmpty && beside.allSatisfy(\.style.dim))
    }
}
