import Foundation
import StoreCore
import TerminalUI

/// The smallest terminal the layout works in.
let minimumSize = Size(width: 60, height: 18)

extension Size {
    func fits(_ minimum: Size) -> Bool { width >= minimum.width && height >= minimum.height }
}

/// The whole screen for a state: pure, no I/O, so goldens test exactly what the terminal shows.
/// - Parameter layer: a layer's own drawing, into the space it took (see `Layering`), under the sheets.
func render(_ state: AppState, size: Size, layer: (_ area: Rect, inout Canvas) -> Void = { _, _ in }) -> Canvas {
    var canvas = Canvas(size: size)
    guard size.fits(minimumSize) else {
        let text = "Terminal too small (\(size.width)×\(size.height), need ≥ \(minimumSize.width)×\(minimumSize.height))"
        for (i, line) in DisplayWidth.wrap(text, width: max(1, size.width - 2)).enumerated() {
            canvas.put(line, at: max(0, (size.width - DisplayWidth.of(line)) / 2), size.height / 2 + i)
        }
        return canvas
    }
    let parts = canvas.bounds.rows([1, 1, size.height - 4, 1])
    drawHeader(state, in: parts[0], on: &canvas)
    drawSubheader(state, in: parts[1], on: &canvas)
    state.screen.view.draw(state, in: listArea(state, size: size), on: &canvas)
    drawStatus(state, in: parts[3], on: &canvas)
    Footer.draw(KeyMap.footer(state), in: parts[4], on: &canvas)
    layer(parts[2], &canvas)
    let area = sheetArea(state, size: size)
    for (i, sheet) in state.sheets.enumerated() {
        if i == 0 { canvas.restyle(area) { $0.dim = true } }  // what lies under the sheets steps back
        let frame = sheet.view.draw(state, scroll: i == state.sheets.count - 1 ? state.sheetScroll : 0, in: area, on: &canvas)
        clearCutWords(beside: frame, on: &canvas)
    }
    return canvas
}

/// Where sheets are drawn: the app's part of the content area, so a layer's panel stays in view
/// (below the store, the panel folds to make room: see `Layering.content`).
func sheetArea(_ state: AppState, size: Size) -> Rect {
    let whole = Rect(x: 0, y: 0, width: size.width, height: size.height).rows([1, 1, size.height - 4, 1])[2]
    return state.layering.content(whole, true)
}

/// Blanks the ends of words a sheet's edges cut, so what shows beside it never reads as something
/// else (`$99.99/year` cut to `│9.99/year`, a different price on a projector).
private func clearCutWords(beside frame: Rect, on canvas: inout Canvas) {
    for y in frame.y..<min(frame.maxY, canvas.height) {
        var x = frame.x - 1
        while x >= 0, canvas[x, y].text != " " { canvas.put(" ", at: x, y, style: canvas[x, y].style); x -= 1 }
        x = frame.maxX
        while x < canvas.width, canvas[x, y].text != " " { canvas.put(" ", at: x, y, style: canvas[x, y].style); x += 1 }
    }
}

/// Where the current screen's list is drawn (and clicked).
func listArea(_ state: AppState, size: Size) -> Rect {
    let parts = Rect(x: 0, y: 0, width: size.width, height: size.height).rows([1, 1, size.height - 4, 1])
    return state.layering.content(parts[2], state.top != nil).inset(dx: 1, dy: 0)
}

/// The header's tabs and the columns each takes, after the app's name when there is room for both.
func tabs(_ state: AppState, width: Int) -> [(screen: Screen, label: String, columns: Range<Int>)] {
    let labels = Screen.allCases.map { " \($0.rawValue + 1) \($0.title) " }
    let name = DisplayWidth.of(appTitle(state)) + 1
    var x = name + DisplayWidth.of(labels.joined()) <= width ? name : 0
    return Screen.allCases.map { screen in
        let label = " \(screen.rawValue + 1) \(screen.title) "
        defer { x += DisplayWidth.of(label) }
        return (screen, label, x..<x + DisplayWidth.of(label))
    }
}

private func appTitle(_ state: AppState) -> String { " " + state.appName + " " }

private func drawHeader(_ state: AppState, in rect: Rect, on canvas: inout Canvas) {
    canvas.fill(rect, style: Style(foreground: .white, background: .blue))
    let tabs = tabs(state, width: rect.width)
    if tabs.first?.columns.lowerBound != 0 {
        canvas.put(appTitle(state), at: rect.x, rect.y, style: Style(foreground: .white, background: .blue, bold: true))
    }
    for tab in tabs where tab.columns.lowerBound < rect.maxX {
        let style = tab.screen == state.screen ? Style(reverse: true) : Style(foreground: .white, background: .blue)
        canvas.put(tab.label, at: rect.x + tab.columns.lowerBound, rect.y, maxWidth: rect.maxX - tab.columns.lowerBound, style: style)
    }
}

private func drawSubheader(_ state: AppState, in rect: Rect, on canvas: inout Canvas) {
    if state.isEditingFilter || !state.filter.text.isEmpty {
        let label = "Filter: "
        canvas.put(label, at: rect.x + 1, rect.y, style: .bold)
        let x = rect.x + 1 + DisplayWidth.of(label)
        if state.isEditingFilter {
            state.filter.draw(at: x, rect.y, width: min(30, rect.maxX - x), on: &canvas)
        } else {
            canvas.put(state.filter.text + "  (/ to edit)", at: x, rect.y, style: .dim)
        }
    } else {
        // Cut with an ellipsis, and a space short of the list's "↑↓ more" at the right.
        let info = DisplayWidth.truncate(state.screen.view.summary(state), toWidth: rect.width - 11)
        canvas.put(info, at: rect.x + 1, rect.y, style: .dim)
    }
}

private func drawStatus(_ state: AppState, in rect: Rect, on canvas: inout Canvas) {
    let snap = state.snapshot
    let base = Style(reverse: true)
    canvas.fill(rect, style: base)
    let said = (state.inFlight > 0 ? Spinner.frame(state.tick) + " " : "") + state.status
    let message = "│ " + said
    // The last event matters most: the time rate, then the locale, give way before it is cut.
    let parts = [snap.storefront.code, snap.locale, Format.dateTime(snap.now, seconds: state.timeIsCompressed) + "Z", state.settings.timeRate.title]
    let fitting = [parts, [parts[0], parts[1], parts[2]], [parts[0], parts[2]]].map { " " + $0.joined(separator: " · ") + " " } + [""]
    let left = fitting.first { DisplayWidth.of($0) + DisplayWidth.of(message) <= rect.width } ?? ""
    let x = rect.x + canvas.put(left, at: rect.x, rect.y, style: base)
    // Alone on the line, the message needs no separator; too long even alone, it is cut, saying where it is whole.
    let text = left.isEmpty ? " " + said : message
    let fits = DisplayWidth.of(text) <= rect.maxX - x
    let shown = fits ? text : DisplayWidth.truncate(text, toWidth: rect.maxX - x - 8) + " (5 Log)"
    canvas.put(shown, at: x, rect.y, maxWidth: rect.maxX - x, style: base)
}

extension Style {
    func merged(bold: Bool) -> Style { var s = self; s.bold = s.bold || bold; return s }
}
