import Foundation
import TerminalUI

/// Draws the walk checklist: beside the store on wide terminals, below it on narrow ones; `w` folds it to one line.
enum WalkPanel {
    /// Wide enough to keep the store readable beside the panel.
    static let sideBySideWidth = 100
    static let bottomHeight = 9

    /// Where the store, the checklist and the demo's caption bar go.
    struct Layout {
        var content: Rect
        var panel: Rect?
        var caption: Rect?
    }

    /// Splits the content area: the caption bar (a demo) across the bottom, then the panel beside the
    /// store's part on wide terminals, below it on narrow ones, where it folds to its one line while a
    /// sheet is up: the sheet gets the room, and is never drawn over the checklist.
    static func layout(_ area: Rect, _ walk: WalkState, sheetShown: Bool = false) -> Layout {
        var area = area, caption: Rect?
        if walk.caption != nil {
            let (rest, bar) = area.splitTop(area.height - 1)
            (area, caption) = (rest, bar)
        }
        if walk.showsPanel, area.width >= sideBySideWidth {
            let (content, panel) = area.splitLeft(area.width - max(40, area.width * 2 / 5))
            return Layout(content: content, panel: panel, caption: caption)
        }
        // Hidden (or no room): one line keeps the current step in view.
        let height = walk.showsPanel && !sheetShown && area.height >= bottomHeight + 6 ? bottomHeight : 1
        let (content, panel) = area.splitTop(area.height - height)
        return Layout(content: content, panel: panel, caption: caption)
    }

    /// The demo's caption: what the audience is watching, in words, where every eye finds it.
    static func drawCaption(_ walk: WalkState, in rect: Rect, on canvas: inout Canvas) {
        guard let text = walk.caption else { return }
        let style = Style(foreground: .black, background: .yellow, bold: true)
        canvas.fill(rect, style: style)
        canvas.put(" " + DisplayWidth.truncate(text, toWidth: rect.width - 2), at: rect.x, rect.y, maxWidth: rect.width, style: style)
    }

    static func draw(_ walk: WalkState, in rect: Rect, on canvas: inout Canvas) {
        canvas.fill(rect)
        if rect.height == 1 { return drawLine(walk, in: rect, on: &canvas) }
        let step = walk.isFinished ? "done" : "\(walk.current + 1)/\(walk.items.count)"
        let mode = walk.isDemo ? (walk.paused ? "Demo ⏸" : "Demo") : walk.wasDemo ? "Demo" : "Walk"
        let (passed, failed) = walk.counts
        let title = "\(mode) \(step) · ✓\(passed) ✗\(failed) · \(walk.title)"
        let inner = Box(title: title).draw(in: rect, on: &canvas)
        guard inner.height > 0 else { return }
        let lines = lines(walk, width: inner.width)
        // Scroll so the current step shows with a little of what came before it.
        let at = lines.lastIndex { $0.current } ?? lines.count - 1
        let offset = max(0, min(at - inner.height / 3, lines.count - inner.height))
        for (row, line) in lines.dropFirst(offset).prefix(inner.height).enumerated() {
            let y = inner.y + row
            var style = line.style
            if line.current { style.reverse = true; canvas.fill(Rect(x: inner.x, y: y, width: inner.width, height: 1), style: style) }
            canvas.put(line.text, at: inner.x, y, maxWidth: inner.width, style: style)
        }
    }

    /// The hidden panel: where the walk is, and how to bring the checklist back.
    static func drawLine(_ walk: WalkState, in rect: Rect, on canvas: inout Canvas) {
        let style = Style(reverse: true)
        canvas.fill(rect, style: style)
        let (passed, failed) = walk.counts
        let now = walk.isFinished ? "finished" : "› " + walk.items[walk.current].label
        let hint = "  [w] checklist "
        canvas.put(" \(walk.isDemo || walk.wasDemo ? "Demo" : "Walk") \(min(walk.current + 1, walk.items.count))/\(walk.items.count) ✓\(passed) ✗\(failed) \(now)", at: rect.x, rect.y,
                   maxWidth: rect.width - DisplayWidth.of(hint), style: style)
        canvas.put(hint, at: rect.maxX - DisplayWidth.of(hint), rect.y, style: style.merged(bold: true))
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
            // One line a step, so the list reads as steps; a ✗ says the whole of what was expected below it.
            let lead = indent + mark + " "
            out.append(Line(text: lead + DisplayWidth.truncate(item.label, toWidth: max(8, width - DisplayWidth.of(lead))), style: style, current: isCurrent))
            let detail: String? = switch item.mark {
            case .failed: item.expectation.map { "expected \($0.expected), got \(item.actual ?? "nothing")" } ?? item.note
            case .pending where live.contains(i): item.actual.map { "now: \($0)" }
            case .skipped: item.note
            default: nil
            }
            if let detail {
                let pad = indent + "    "
                for part in DisplayWidth.wrap(detail, width: max(8, width - DisplayWidth.of(pad))).prefix(3) {
                    out.append(Line(text: pad + part, style: item.mark == .failed ? Style(foreground: .red) : .dim))
                }
            }
        }
        if walk.isFinished {
            let (passed, failed) = walk.counts
            out.append(Line(text: "Finished: \(passed) passed, \(failed) failed", style: .bold, current: true))
        }
        return out
    }
}
