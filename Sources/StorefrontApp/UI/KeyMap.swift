import TerminalUI

/// What a key does, independent of which key it is.
enum Action: Sendable, Equatable {
    case up, down, pageUp, pageDown, first, last, left, right, activate, back, confirm
    case nextScreen, previousScreen, show(Screen)
    case filter, help, quit, restore, redeem, details, refundRequest, manageSubscriptions, appInfo, resend
    case increment, decrement, nextOffer, nextPlan, offerSignature, writeToken, saveScenario
    /// The paywall and the product card: open them, and switch their style live.
    case paywall, productCard, nextStyle
    /// A layer's own action, by name (see `Layering`): the layer takes it before the app's reducer sees it.
    case layer(String)
}

/// One row of the key map: the keys, how the footer and help name them, and the action.
struct Binding: Sendable {
    var keys: [Key]
    var name: String
    var label: String
    var action: Action
    /// Shown in the footer (everything is shown in `?` help).
    var footer = true
    /// The footer's shorter wording, when it differs from the help's.
    var hint: String?
}

/// The one key map: dispatch, the footer and the `?` help overlay all read it, so they cannot drift.
/// Each screen and sheet declares its own bindings; `bindings(_:)` assembles the table in force.
enum KeyMap {
    static let global: [Binding] = [
        // The footer's one hint for Tab, Shift-Tab and the screens' numbers.
        Binding(keys: [.tab], name: "Tab 1-6", label: "Next screen", action: .nextScreen, hint: "Screens"),
        Binding(keys: [.backTab], name: "Shift-Tab", label: "Previous screen", action: .previousScreen, footer: false),
        Binding(keys: [.character("1")], name: "1", label: "Store", action: .show(.store), footer: false),
        Binding(keys: [.character("2")], name: "2", label: "Subscriptions", action: .show(.subscriptions), footer: false),
        Binding(keys: [.character("3")], name: "3", label: "History", action: .show(.history), footer: false),
        Binding(keys: [.character("4")], name: "4", label: "QA panel", action: .show(.qa), footer: false),
        Binding(keys: [.character("5")], name: "5", label: "Event log", action: .show(.log), footer: false),
        Binding(keys: [.character("6")], name: "6", label: "Notifications", action: .show(.notifications), footer: false),
        Binding(keys: [.character("?")], name: "?", label: "Help", action: .help),
        Binding(keys: [.character("q"), .control("c")], name: "q", label: "Quit", action: .quit),
        Binding(keys: [.character("/")], name: "/", label: "Filter", action: .filter),
        Binding(keys: [.character("r")], name: "r", label: "Restore", action: .restore),
        Binding(keys: [.character("c")], name: "c", label: "Redeem code", action: .redeem),
        Binding(keys: [.character("a")], name: "a", label: "App info", action: .appInfo, footer: false),
    ]

    /// `storefront --record-scenario FILE`: the session so far, written now (it is written at quit too).
    static let recording = [Binding(keys: [.character("W")], name: "W", label: "Save scenario", action: .saveScenario, footer: false)]

    static let move: [Binding] = [
        Binding(keys: [.up, .character("k")], name: "↑↓", label: "Move up", action: .up, hint: "Move"),
        Binding(keys: [.down, .character("j")], name: "↓", label: "Move down", action: .down, footer: false),
        Binding(keys: [.pageUp], name: "PgUp", label: "Page up", action: .pageUp, footer: false),
        Binding(keys: [.pageDown], name: "PgDn", label: "Page down", action: .pageDown, footer: false),
        Binding(keys: [.home, .character("g")], name: "Home", label: "First", action: .first, footer: false),
        Binding(keys: [.end, .character("G")], name: "End", label: "Last", action: .last, footer: false),
    ]

    static let close = Binding(keys: [.escape], name: "Esc", label: "Close", action: .back)

    /// A sheet that is read and dismissed.
    static let acknowledge: [Binding] = [
        Binding(keys: [.enter], name: "Enter", label: "OK", action: .back), close,
        Binding(keys: [.character("q"), .control("c")], name: "q", label: "Quit", action: .quit),
    ]

    /// Esc on a screen whose list a kept filter narrows.
    static let clearFilter = Binding(keys: [.escape], name: "Esc", label: "Clear filter", action: .back)

    static let filterEditing: [Binding] = [
        Binding(keys: [.enter], name: "Enter", label: "Keep filter", action: .activate),
        Binding(keys: [.escape], name: "Esc", label: "Clear filter", action: .back),
    ]

    /// The bindings in force for this state, in priority order.
    static func bindings(_ state: AppState) -> [Binding] {
        if state.layering.drives { return state.layering.bindings }
        if let top = state.top {
            // Scrolling goes before Quit, so a narrow footer keeps it.
            var own = top.view.bindings(state)
            own.insert(contentsOf: sheetScrolling(top, state), at: own.firstIndex { $0.action == .quit } ?? own.count)
            return own
        }
        if state.isEditingFilter { return filterEditing }
        let filtered = state.filter.text.isEmpty ? [] : [clearFilter]
        return filtered + state.screen.view.bindings + state.layering.bindings + (state.recordsScenario ? recording : []) + global
    }

    /// ↑↓ PgUp PgDn scroll a sheet whose body is taller than it can be, where the sheet has no use of its own for them.
    static let scroll: [Binding] = [
        Binding(keys: [.up, .character("k")], name: "↑↓", label: "Scroll up", action: .up, hint: "Scroll"),
        Binding(keys: [.down, .character("j")], name: "↓", label: "Scroll down", action: .down, footer: false),
        Binding(keys: [.pageUp], name: "PgUp", label: "Page up", action: .pageUp, footer: false),
        Binding(keys: [.pageDown], name: "PgDn", label: "Page down", action: .pageDown, footer: false),
    ]

    /// True when `action` scrolls the top sheet rather than being the sheet's own.
    static func sheetScrolls(_ action: Action, _ state: AppState) -> Bool {
        guard let top = state.top, !top.view.bindings(state).contains(where: { $0.action == action }) else { return false }
        return top.maxScroll(state) > 0
    }

    private static func sheetScrolling(_ top: SheetState, _ state: AppState) -> [Binding] {
        guard top.maxScroll(state) > 0 else { return [] }
        let taken = Set(top.view.bindings(state).flatMap(\.keys))
        return scroll.filter { $0.keys.allSatisfy { !taken.contains($0) } }
    }

    /// How many items PgUp and PgDn move: half the screen's height, as Ctrl-U and Ctrl-D do in vim
    /// (an item may take more than one line, so a whole screen of items could skip some unseen).
    static func page(_ state: AppState) -> Int { max(1, (state.size.height - 5) / 2) }

    static func action(for key: Key, in state: AppState) -> Action? {
        // Only a scroll key needs to know whether the top sheet scrolls, which lays it out.
        if !state.layering.drives, let top = state.top, !scrollKeys.contains(key) {
            return top.view.bindings(state).first { $0.keys.contains(key) }?.action
        }
        return bindings(state).first { $0.keys.contains(key) }?.action
    }

    private static let scrollKeys = Set(scroll.flatMap(\.keys))

    static func footer(_ state: AppState) -> [KeyHint] {
        bindings(state).filter(\.footer).map { KeyHint($0.name, $0.hint ?? $0.label, pinned: $0.action == .help) }
    }

    /// Help lines for the screen under the help overlay, and the overlay's own Esc.
    static func helpLines(for state: AppState) -> [String] {
        var under = state
        under.sheets.removeAll { $0 == .help }
        let rows = bindings(under).map { b in
            (b.keys.map(\.name).joined(separator: " "), b.label)
        } + [("Esc", "Close this help")]
        let width = rows.map { DisplayWidth.of($0.0) }.max() ?? 0
        return rows.map { DisplayWidth.pad($0.0, toWidth: width) + "  " + $0.1 }
    }
}
