import Foundation
import TerminalUI

/// Draws the walk checklist: beside the store on wide terminals, below it (toggled with `w`) on narrow ones.
enum WalkPanel {
    /// Wide enough to keep the store readable beside the panel.
    static let sideBySideWidth = 100
    static let bottomHeight = 9

    /// Splits the content area into the store's part and the panel's (nil: no panel).
    static func split(_ area: Rect, _ state: AppState) -> (content: Rect, panel: Rect?) {
        guard let walk = state.walk else { return (area, nil) }
        if area.width >= sideBySideWidth {
            let (content, panel) = area.splitLeft(area.width - max(40, area.width * 2 / 5))
            return (content, panel)
        }
        guard walk.showsPanel, area.height >= bottomHeight + 6 else { return (area, nil) }
        let (content, panel) = area.splitTop(area.height - bottomHeight)
        return (content, panel)
    }

    static func draw(_ state: AppState, in rect: Rect, on canvas: inout Canvas) {
        guard let walk = state.walk else { return }
        canvas.fill(rect)
        let step = walk.isFinished ? "done" : "\(walk.current + 1)/\(walk.items.count)"
        let mode = walk.isDemo ? (walk.paused ? "Demo ⏸" : "Demo") : "Walk"
        let (passed, failed) = walk.counts
        let title = "\(mode) \(step) · ✓\(passed) ✗\(failed) · \(walk.title)"
        let inner = Box(title: title).draw(in: rect, on: &canvas)
        guard inner.height > 0 else { return }
        let lines = lines(walk, width: inner.width)
        // Scroll so the current step shows with a little of what came before it.
        let at = lines.firstIndex { $0.current } ?? lines.count - 1
        let offset = max(0, min(at - inner.height / 3, lines.count - inner.height))
        for (row, line) in lines.dropFirst(offset).prefix(inner.height).enumerated() {
            let y = inner.y + row
            var style = line.style
            if line.current { style.reverse = true; canvas.fill(Rect(x: inner.x, y: y, width: inner.width, height: 1), style: style) }
            canvas.put(line.text, at: inner.x, y, maxWidth: inner.width, style: style)
        }
    }

    struct Line: Equatable {
        var text: String
        var style: Style = .plain
        var current = false
    }

    /// One line a step, expectations indented under their action, and a second line saying why for ✗ and
    /// for the current check that does not hold yet.
    static func lines(_ walk: WalkState, width: Int) -> [Line] {
        var out: [Line] = []
        let live = Set(walk.live)
        for (i, item) in walk.items.enumerated() {
            let isCurrent = i == walk.current
            let indent = item.step.isExpectation ? "  " : ""
            let mark: String, style: Style
            switch item.mark {
            case .passed: (mark, style) = ("✓", Style(foreground: .green))
            case .failed: (mark, style) = ("✗", Style(foreground: .red, bold: true))
            case .skipped: (mark, style) = ("-", .dim)
            case .pending: (mark, style) = (isCurrent ? "›" : "·", isCurrent || live.contains(i) ? .plain : .dim)
            }
            let text = DisplayWidth.truncate(indent + mark + " " + item.step.text, toWidth: width)
            out.append(Line(text: text, style: style, current: isCurrent))
            let detail: String? = switch item.mark {
            case .failed: item.expectation.map { "expected \($0.expected), got \(item.actual ?? "nothing")" } ?? item.note
            case .pending where live.contains(i): item.actual.map { "now: \($0)" }
            case .skipped: item.note
            default: nil
            }
            if let detail {
                out.append(Line(text: DisplayWidth.truncate(indent + "    " + detail, toWidth: width),
                                style: item.mark == .failed ? Style(foreground: .red) : .dim))
            }
        }
        if walk.isFinished {
            let (passed, failed) = walk.counts
            out.append(Line(text: "Finished: \(passed) passed, \(failed) failed", style: .bold, current: true))
        }
        return out
    }
}
