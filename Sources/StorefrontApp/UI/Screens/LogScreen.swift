import Foundation
import TerminalUI

/// One line of the event log: what happened, at the store's time.
struct LogEntry: Sendable, Equatable {
    var time: Date
    var text: String
}

/// The event log (like lazygit's command log): every action, store event and renewal this
/// session with its store time, newest first, never cut (long messages wrap), filterable with `/`.
enum LogScreen: ScreenView {
    /// A log line is a sentence: a wide terminal shows it whole.
    static var widest: Int { .max }
    static let bindings = KeyMap.move

    static func summary(_ state: AppState) -> String { "Event log, newest first · store time (UTC)" }

    static func itemCount(_ state: AppState) -> Int { entries(state).count }

    static func perform(_ action: Action, _ state: inout AppState) -> [Effect] { [] }

    static func entries(_ state: AppState) -> [LogEntry] {
        let query = state.filterText(.log).lowercased()
        return state.log.reversed().filter { query.isEmpty || $0.text.lowercased().contains(query) }
    }

    static func lines(_ state: AppState, width: Int, rows: Int) -> [ListView.Line] {
        let entries = entries(state)
        guard !entries.isEmpty else {
            return [ListView.Line(state.filterText(.log).isEmpty ? "Nothing has happened yet." : "No events match “\(state.filterText(.log))”.")]
        }
        // Under a time rate renewals come seconds apart: the stamps say which came first.
        let seconds = state.timeIsCompressed
        let stamp = DisplayWidth.of("  " + Format.dateTime(Date(), seconds: seconds) + "  ")
        let indent = String(repeating: " ", count: stamp)
        return entries.enumerated().flatMap { i, entry in
            DisplayWidth.wrap(entry.text, width: max(10, width - stamp)).enumerated().map { n, part in
                ListView.Line((n == 0 ? "  " + Format.dateTime(entry.time, seconds: seconds) + "  " : indent) + part, item: i)
            }
        }
    }
}
