import TerminalUI

/// A top-level screen, in the spirit of tig's `view_ops` and gitui's components: it declares its
/// keys, carries out its actions and draws itself. Screens keep no state of their own: their
/// selection and the filter are in `AppState`, so a screen is a type with static members.
protocol ScreenView {
    /// This screen's keys; `KeyMap` adds a layer's and the global ones after them.
    static var bindings: [Binding] { get }
    /// What the line under the tabs says when no filter is shown there.
    static func summary(_ state: AppState) -> String
    /// How many items the selection moves over.
    static func itemCount(_ state: AppState) -> Int
    /// Where the selection starts and where Home goes.
    static var firstItem: Int { get }
    /// An item the selection steps over (a heading), unless nothing lies beyond it.
    static func isHeading(_ item: Int, _ state: AppState) -> Bool
    /// Carries out one of this screen's actions (up, down, Home and End are `move`'s).
    static func perform(_ action: Action, _ state: inout AppState) -> [Effect]
    /// The screen's lines, for a content area `width` cells wide and `rows` high.
    static func lines(_ state: AppState, width: Int, rows: Int) -> [ListView.Line]
    /// Draws the screen in `rect`: by default its lines as a list scrolled to the selection.
    static func draw(_ state: AppState, in rect: Rect, on canvas: inout Canvas)
    /// The detail sheet of the selected item, which a wide terminal shows in a pane beside the list.
    static func detail(_ state: AppState) -> SheetState?
    /// The widest the list grows: `readableWidth` where a price must stay beside its name; a screen of
    /// labelled values and long lines (QA, the log) takes the whole terminal.
    static var widest: Int { get }
}

/// From this width a screen with details shows the selected item's beside its list (as k9s and lazygit do).
let detailPaneWidth = 140

/// The widest a screen's list grows, in columns.
let readableWidth = 100

extension ScreenView {
    static var firstItem: Int { 0 }
    static func isHeading(_ item: Int, _ state: AppState) -> Bool { false }

    static func detail(_ state: AppState) -> SheetState? { nil }
    static var widest: Int { readableWidth }

    static func draw(_ state: AppState, in area: Rect, on canvas: inout Canvas) {
        let screen = state.screen
        let detail = canvas.width >= detailPaneWidth ? detail(state) : nil
        // A readable measure: on a wide terminal a price stays beside its product's name, not a screen away.
        let width = detail == nil ? min(area.width, widest) : min(widest, area.width * 11 / 20)
        let rect = Rect(x: area.x, y: area.y, width: width, height: area.height)
        if let detail {
            let pane = Rect(x: rect.maxX + 1, y: area.y, width: area.maxX - rect.maxX - 1, height: area.height)
            detail.view.sheet(state, in: pane).drawPane(in: pane, on: &canvas)
        }
        // The selection shows only while no sheet has the keys; the hint goes on the row above the list.
        ListView(lines(state, width: rect.width, rows: rect.height), selected: state.selected(screen), showsSelection: state.top == nil)
            .draw(in: rect, on: &canvas, hintRow: Rect(x: rect.x, y: rect.y - 1, width: rect.width, height: 1))
    }

    /// Up, down, PgUp, PgDn, Home and End on the current screen; false for any other action.
    static func move(_ action: Action, _ state: inout AppState) -> Bool {
        let screen = state.screen, selected = state.selected(screen), count = itemCount(state), last = max(0, count - 1)
        switch action {
        case .up: state.selection[screen] = max(0, selected - 1 - headingSkip(selected, -1, count, state))
        case .down: state.selection[screen] = min(last, selected + 1 + headingSkip(selected, 1, count, state))
        case .pageUp, .pageDown:
            for _ in 0..<KeyMap.page(state) { _ = move(action == .pageUp ? .up : .down, &state) }
        case .first: state.selection[screen] = firstItem
        case .last: state.selection[screen] = last
        default: return false
        }
        return true
    }

    /// 1 when the next item in `direction` is a heading with an item beyond it.
    private static func headingSkip(_ selected: Int, _ direction: Int, _ count: Int, _ state: AppState) -> Int {
        let target = selected + direction
        return (0..<count).contains(target + direction) && isHeading(target, state) ? 1 : 0
    }
}

extension Screen {
    /// The screen's own type: its keys, actions and drawing.
    var view: any ScreenView.Type {
        switch self {
        case .store: StoreScreen.self
        case .subscriptions: SubscriptionsScreen.self
        case .history: HistoryScreen.self
        case .qa: QAPanel.self
        case .log: LogScreen.self
        case .notifications: NotificationsScreen.self
        }
    }
}
