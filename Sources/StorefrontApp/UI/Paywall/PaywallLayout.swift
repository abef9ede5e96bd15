import StoreCore
import TerminalUI

/// The plans of a paywall as each control style lays them out, as sheet paragraphs (a paragraph may
/// take several lines: one plan is one paragraph, so the selection covers the whole of it).
enum PaywallLayout {
    struct Lines {
        var paragraphs: [String]
        /// The paragraph of the chosen plan, highlighted.
        var selected: Int? = nil
    }

    static func plans(_ plans: [Product], style: PaywallStyle, selected: Int, width: Int, _ state: AppState) -> Lines {
        let rows = plans.map { Row($0, state) }
        switch style {
        case .automatic, .picker:
            // A list of options with a mark, one Subscribe button below.
            let paragraphs = rows.enumerated().map { i, row in
                ([spread((i == selected ? "◉ " : "○ ") + row.name, row.price, width)] + row.notes.map { indent + $0 }).joined(separator: "\n")
            }
            return Lines(paragraphs: paragraphs, selected: selected)
        case .buttons:
            // One button a plan, its label on several lines: what it buys, then the price and the offer.
            let paragraphs = rows.map { row in
                (["[ " + state.words(.subscribeTo, ["name": row.name]) + " ]", indent + row.price] + row.notes.map { indent + $0 }).joined(separator: "\n")
            }
            return Lines(paragraphs: Array(paragraphs.flatMap { [$0, ""] }.dropLast()), selected: selected * 2)
        case .prominentPicker:
            // A card a plan, the chosen one's border heavy.
            let paragraphs = rows.enumerated().map { i, row in card(row, chosen: i == selected, width: width) }
            return Lines(paragraphs: paragraphs, selected: selected)
        case .compactPicker:
            // The options side by side, the chosen one's terms below them.
            let options = rows.enumerated().map { i, row in i == selected ? "‹ \(row.name) ›" : "  \(row.name)  " }
            let chosen = rows[safe: selected].map { [$0.price] + $0.notes } ?? []
            return Lines(paragraphs: [options.joined(separator: " "), chosen.joined(separator: "\n")], selected: 1)
        }
    }

    /// Two cells that a wrapped paragraph keeps at the start of its next line (it drops plain spaces there).
    static let indent = "\u{00A0}\u{00A0}"

    /// What every style shows of a plan.
    struct Row {
        var name: String
        var price: String
        /// The offer this customer gets, and whether it is their plan now.
        var notes: [String]

        init(_ p: Product, _ state: AppState) {
            name = p.displayName
            price = state.words.priceWithPeriod(p)
            notes = PaywallSheet.activeOffer(p, state).map { [state.words.offerLine(p, $0.terms)] } ?? []
            if let current = state.snapshot.effectiveStatus(group: p.subscription?.groupID ?? "")?.transaction.payload,
               current.productID == p.id { notes.append(state.words(.currentPlan)) }
        }
    }

    /// `left` and `right` at the two ends of `width` cells (right cut last).
    static func spread(_ left: String, _ right: String, _ width: Int) -> String {
        let room = width - DisplayWidth.of(right) - 1
        guard room > 4 else { return left + " " + right }
        let shown = DisplayWidth.truncate(left, toWidth: room)
        return shown + String(repeating: " ", count: width - DisplayWidth.of(shown) - DisplayWidth.of(right)) + right
    }

    /// A bordered card `width` cells wide: name and price, then the notes.
    static func card(_ row: Row, chosen: Bool, width: Int) -> String {
        let (h, v, corners) = chosen ? ("━", "┃", ("┏", "┓", "┗", "┛")) : ("─", "│", ("┌", "┐", "└", "┘"))
        let inner = max(4, width - 4)
        let lines = [spread(row.name, row.price, inner)] + row.notes.map { DisplayWidth.truncate($0, toWidth: inner) }
        let middle = lines.map { v + " " + $0 + String(repeating: " ", count: inner - DisplayWidth.of($0)) + " " + v }
        let rule = String(repeating: h, count: inner + 2)
        return ([corners.0 + rule + corners.1] + middle + [corners.2 + rule + corners.3]).joined(separator: "\n")
    }
}
