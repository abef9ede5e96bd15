import Foundation
import StoreClient
import StoreCore
import TerminalUI

// The walk's and the demo's keys, and their reducer: `WalkEvent`s and `WalkAction`s change `WalkState`.

// MARK: Keys

extension KeyMap {
    static let walk: [Binding] = [
        Binding(keys: [.character("n")], name: "n", label: "Step done, next", action: .walk(.next), hint: "Next step"),
        Binding(keys: [.character("p")], name: "p", label: "Back to last action", action: .walk(.previous), footer: false),
        Binding(keys: [.character("x")], name: "x", label: "Apply step for me", action: .walk(.apply), hint: "Apply"),
        Binding(keys: [.character("w")], name: "w", label: "Checklist on/off", action: .walk(.togglePanel), hint: "Checklist"),
        Binding(keys: [.character("s")], name: "s", label: "Save walk report", action: .walk(.save), footer: false),
    ]

    /// In a demo every key pauses: the footer and help say so.
    static let demo: [Binding] = [
        Binding(keys: [], name: "any key", label: "Pause / resume", action: .walk(.next)),
        Binding(keys: [.character("q"), .control("c")], name: "q", label: "Quit", action: .quit),
    ]
}

// MARK: Reducer

/// The walk's reducer around the app's: its own events, its keys (and clicks on their footer hints),
/// a demo's pause key; everything else goes on to the app's `reduce`. The walk's keys read the same
/// table the footer and help show (`Layering.bindings`), so they are its keys exactly where they are
/// shown; they never wait for a QA control's answer, as they do not read the store.
func reduce(_ state: inout WalkthroughState, _ input: WalkthroughInput) -> [WalkthroughEffect] {
    switch input {
    case .message(let event): return reduceWalk(&state, event)
    case .event(let event): return reduce(&state, event)
    }
}

func reduce(_ state: inout WalkthroughState, _ event: Event) -> [WalkthroughEffect] {
    guard case .key(let key) = event else { return reduce(&state.app, event).map(WalkthroughEffect.app) }
    if state.walk.isDemo { return demoKey(key, &state) }
    let action = if case .mouse(let mouse) = key { MouseInput.footerAction(mouse, state.app) } else { KeyMap.action(for: key, in: state.app) }
    if case .layer(let name)? = action, let own = WalkAction(rawValue: name) { return walkAction(own, &state) }
    // q asks first: a walk left before its end marks the rest not reached (Ctrl-C still quits at once).
    if action == .quit, key != .control("c"), !state.walk.isFinished, state.app.top == nil {
        let left = state.walk.items.count - state.walk.current
        state.app.sheets.append(.confirm(title: "Quit the walk?", message: "\(left) step\(left == 1 ? "" : "s") not done yet: the report marks them not reached.",
                                         effect: .quit, yes: "Quit Walk", no: "Keep Walking"))
        return []
    }
    return reduce(&state.app, event).map(WalkthroughEffect.app)
}

/// Terminal keys during a demo: q quits, any other key pauses or resumes.
private func demoKey(_ key: Key, _ state: inout WalkthroughState) -> [WalkthroughEffect] {
    if key == .character("q") || key == .control("c") { state.shouldQuit = true; return [.app(.quit)] }
    state.walk.paused.toggle()
    state.status = state.walk.paused ? "⏸ Paused: press any key to resume, q to quit" : "▶ Resumed"
    return []
}

private func reduceWalk(_ state: inout WalkthroughState, _ event: WalkEvent) -> [WalkthroughEffect] {
    var walk = state.walk
    defer { state.walk = walk }
    switch event {
    case .begin:
        return arrive(&walk, &state)
    case .checked(let checks):
        for c in checks where walk.items.indices.contains(c.index) && walk.items[c.index].mark == .pending {
            walk.items[c.index].actual = c.actual
            if c.passed { walk.items[c.index].mark = .passed }
        }
        guard !walk.isDemo else { return [] }
        // Skip over what already holds, to the next thing the tester must do or look at.
        var moved = false
        while !walk.isFinished, walk.items[walk.current].expectation != nil, walk.items[walk.current].mark == .passed {
            walk.current += 1
            moved = true
        }
        return moved ? arrive(&walk, &state) : []
    case .applied(let i, let result):
        guard walk.items.indices.contains(i) else { return [] }
        walk.items[i].mark = result.outcome == .failed ? .failed : .passed
        walk.items[i].note = WalkState.appliedNote + (result.note.map { ": " + $0 } ?? "")
        state.status = result.outcome == .failed ? "✗ \(walk.items[i].step.text): \(result.note ?? "failed")" : "✓ Applied: \(walk.items[i].step.text)"
        guard !walk.isDemo, walk.current == i else { return [] }
        walk.current += 1
        return arrive(&walk, &state)
    case .saved(let message):
        state.status = message
    case .demoCaption(let text):
        walk.caption = text
    case .demoFinished:
        let (passed, failed) = walk.counts
        walk.current = walk.items.count
        walk.isDemo = false
        walk.wasDemo = true
        walk.paused = false
        walk.caption = "Demo finished: ✓\(passed) ✗\(failed) · the storefront is yours · w: checklist · q: quit"
        state.status = "Your turn"
    case .demoKey(let key):
        // The app's own keys, as the presenter would press them: not the demo's pause key.
        walk.isDemo = false
        state.walk = walk
        let label = KeyMap.bindings(state.app).first { $0.keys.contains(key) }?.label
        let effects = reduce(&state, .key(key))
        walk = state.walk
        walk.isDemo = true
        state.status = "⌨ " + key.name + (label.map { "  " + $0 } ?? "")
        return effects
    case .demoCursor(let i):
        walk.current = i
    case .demoDone(let i, let result):
        guard walk.items.indices.contains(i) else { return [] }
        walk.items[i].mark = switch result.outcome { case .passed: .passed; case .failed: .failed; case .skipped, .notReached: .skipped }
        walk.items[i].actual = result.actual ?? walk.items[i].actual
        walk.items[i].note = result.note ?? walk.items[i].note
    }
    return []
}

/// The walk keys (n, p, x, w, s).
private func walkAction(_ action: WalkAction, _ state: inout WalkthroughState) -> [WalkthroughEffect] {
    var walk = state.walk
    defer { state.walk = walk }
    switch action {
    case .next:
        guard !walk.isFinished else { return [.walk(.save)] }
        var item = walk.items[walk.current]
        if item.expectation != nil {
            // Moving past an expectation that does not hold is the verdict: ✗, with what was there.
            item.mark = .failed
            state.status = "✗ \(item.step.text): got \(item.actual ?? "nothing yet")"
        } else {
            item.mark = .passed
            item.note = item.note ?? WalkState.byHandNote
        }
        walk.items[walk.current] = item
        walk.current += 1
        return arrive(&walk, &state)
    case .previous:
        // Back to the action before the cursor, to redo it: what it was judged on is open again.
        var i = min(walk.current, walk.items.count) - 1
        while i > 0, walk.items[i].action == nil { i -= 1 }
        guard i >= 0 else { return [] }
        let byHand = (i..<min(walk.current + 1, walk.items.count)).contains { walk.items[$0].note == WalkState.byHandNote }
        for j in i..<min(walk.current + 1, walk.items.count) { walk.items[j].mark = .pending; walk.items[j].note = nil }
        walk.current = i
        // The walk cannot take back what was done in the store: it says so, and how to undo it by hand.
        state.status = "Back to line \(walk.items[i].step.line): \(walk.items[i].step.text)"
            + (byHand ? ". What you did stays in the store: undo it in QA (4: refund or delete the transaction)" : "")
    case .apply:
        guard !walk.isFinished else { return [] }
        let item = walk.items[walk.current]
        guard let a = item.action else { state.status = "Only actions can be applied: this is a check"; return [] }
        if a.needsRelaunch { state.status = "'\(item.step.text)' needs the app restarted: press n to skip it"; return [] }
        state.status = "Applying \(item.step.text)…"
        return [.walk(.apply(walk.current))]
    case .togglePanel:
        walk.showsPanel.toggle()
    case .save:
        return [.walk(.save)]
    }
    return []
}

/// The cursor reached a step: set-up steps apply themselves; the end writes the report.
private func arrive(_ walk: inout WalkState, _ state: inout WalkthroughState) -> [WalkthroughEffect] {
    guard !walk.isDemo else { return [] }
    guard !walk.isFinished else {
        let (passed, failed) = walk.counts
        state.status = "Walk finished: \(passed) checks passed, \(failed) failed"
        return walk.writesReport ? [.walk(.save)] : []
    }
    let item = walk.items[walk.current]
    if let a = item.action, a.isSetUp { return [.walk(.apply(walk.current))] }
    if let a = item.action, !a.needsRelaunch, WalkState.onlyApplied(a, state.app) {
        state.status = "Press x: '\(item.step.text)' cannot be done with the storefront's keys"
    }
    if let a = item.action, a.needsRelaunch {
        walk.items[walk.current].mark = .skipped
        walk.items[walk.current].note = "the app cannot restart inside the walk"
        walk.current += 1
        return arrive(&walk, &state)
    }
    return []
}
