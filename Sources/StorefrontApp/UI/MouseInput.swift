import Foundation
import TerminalUI

/// Clicks and the wheel, turned into the actions keys have, so the one key table (`KeyMap`)
/// decides what happens: a tab shows its screen; a footer hint (`[Enter] Buy`) or a sheet's button
/// (`[ Cancel ]`) does what its key does; a row is selected, and a click on the selected row
/// activates it as Enter does (the QA panel's rows are controls: one click runs them); a menu's
/// item runs; the wheel moves the selection. Where things are is read off the rendered screen.
enum MouseInput {
    /// Rows one notch of the wheel moves.
    static let wheelStep = 3

    static func handle(_ mouse: Mouse, _ state: inout AppState) -> [Effect] {
        state.isEditingFilter = false  // a click ends typing and keeps the filter, as Enter does
        switch mouse.kind {
        case .wheelUp, .wheelDown:
            let action: Action = mouse.kind == .wheelUp ? .up : .down
            return (0..<wheelStep).flatMap { _ in perform(action, &state) }
        case .click:
            return click(x: mouse.x, y: mouse.y, &state)
        }
    }

    private static func perform(_ action: Action, _ state: inout AppState) -> [Effect] {
        state.top != nil ? sheetAction(action, &state) : screenAction(action, &state)
    }

    private static func click(x: Int, y: Int, _ state: inout AppState) -> [Effect] {
        let canvas = render(state, size: state.size)
        guard canvas.bounds.contains(x: x, y: y) else { return [] }
        if y == canvas.size.height - 1 {
            guard let key = footerHint(x: x, state)?.key else { return [] }
            return KeyMap.bindings(state).first { $0.name == key }.map { perform($0.action, &state) } ?? []
        }
        if let label = bracketed(canvas, x: x, y: y), let binding = KeyMap.bindings(state).first(where: { $0.label == label }) {
            return perform(binding.action, &state)  // a sheet's button: `[ Cancel ]`
        }
        if state.top == nil, y == 0, let tab = tabs(state, width: state.size.width).first(where: { $0.columns.contains(x) }) {
            return perform(.show(tab.screen), &state)
        }
        if case .menu(var menu)? = state.top {
            let row = rowText(canvas, y: y)
            guard let index = menu.items.firstIndex(where: { row.contains("· " + $0.label) || row.contains("› " + $0.label) }) else { return [] }
            menu.selected = index
            state.sheets[state.sheets.count - 1] = .menu(menu)
            return perform(.activate, &state)
        }
        guard state.top == nil, let item = item(x: x, y: y, state), !state.screen.view.isHeading(item, state) else { return [] }
        if item == state.selected(state.screen) || state.screen == .qa { state.selection[state.screen] = item; return perform(.activate, &state) }
        state.selection[state.screen] = item
        return []
    }

    /// The action of the footer hint a click lands on: a layer reads its own keys' clicks here.
    static func footerAction(_ mouse: Mouse, _ state: AppState) -> Action? {
        guard mouse.kind == .click, mouse.y == state.size.height - 1, let key = footerHint(x: mouse.x, state)?.key else { return nil }
        return KeyMap.bindings(state).first { $0.name == key }?.action
    }

    /// The footer's hint drawn at column x (`[Enter] Buy`, key and label alike).
    static func footerHint(x: Int, _ state: AppState) -> KeyHint? {
        var start = 0
        for hint in Footer.fit(KeyMap.footer(state), width: state.size.width) {
            let end = start + DisplayWidth.of(hint.text)
            if (start..<end).contains(x) { return hint }
            start = end + DisplayWidth.of(Footer.separator)
        }
        return nil
    }

    /// The item of the current screen's list drawn at (x, y), if any.
    static func item(x: Int, y: Int, _ state: AppState) -> Int? {
        let area = listArea(state, size: state.size)
        guard area.contains(x: x, y: y) else { return nil }
        let lines = state.screen.view.lines(state, width: area.width, rows: area.height)
        let selected = lines.indices.filter { lines[$0].item == state.selected(state.screen) }
        let offset = ListView.scrollOffset(selectedLines: selected.first.map { $0...selected.last! }, visibleRows: area.height)
        return lines[safe: offset + y - area.y]?.item
    }

    /// The text between the brackets around (x, y), trimmed: `Enter` in `[Enter] Buy`, `Cancel` in `[ Cancel ]`.
    static func bracketed(_ canvas: Canvas, x: Int, y: Int) -> String? {
        let texts = (0..<canvas.size.width).map { canvas[$0, y].text }
        guard let open = texts[...x].lastIndex(of: "["), let close = texts[x...].firstIndex(of: "]"),
              !texts[open..<x].contains("]"), !texts[(x + 1)..<max(x + 1, close)].contains("["),
              close - open < 40 else { return nil }
        let label = texts[open + 1..<close].joined().trimmingCharacters(in: .whitespaces)
        return label.isEmpty ? nil : label
    }

    private static func rowText(_ canvas: Canvas, y: Int) -> String {
        (0..<canvas.size.width).map { canvas[$0, y].text }.joined()
    }
}
