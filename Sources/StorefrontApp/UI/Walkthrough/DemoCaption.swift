import StoreCore

/// A scenario step in the audience's words, for the demo's caption bar and the checklist: product and
/// subscription group IDs become their display names ("buy com.lumenquest.pro.yearly" → "Buy Pro
/// Yearly"), a setting its title ("set gracePeriod off" → "Billing grace period: off"), a keyword its phrase.
enum DemoCaption {
    static func text(_ step: ScenarioStep, catalog: Catalog, locale: String = "en_US") -> String {
        switch step.kind {
        case .action(.set(let setting, let on)): return "\(setting.title): \(on ? "on" : "off")"
        case .action(.advance(let period)): return "Advance time by \(PeriodNames.duration(period, locale: locale))"
        default: break
        }
        var words = step.text.split(separator: " ", omittingEmptySubsequences: false).map { naming(String($0), catalog, locale) }
        if let keyword = words.first { words[0] = phrases[keyword] ?? keyword.replacingOccurrences(of: "-", with: " ") }
        let text = words.joined(separator: " ")
        return text.prefix(1).uppercased() + text.dropFirst()
    }

    /// The caption of a step the store performs itself, when no keys can show it.
    static func direct(_ step: ScenarioStep, catalog: Catalog, locale: String = "en_US") -> String {
        "⚡ " + text(step, catalog: catalog, locale: locale) + " (by the store: no keys show this)"
    }

    /// Keywords whose words alone would not say what happens.
    private static let phrases = ["buy-elsewhere": "buy on another device:"]

    /// A product or group ID as its display name, also inside quotes or before a colon (`"Transaction arrived: ID"`).
    private static func naming(_ word: String, _ catalog: Catalog, _ locale: String) -> String {
        let punctuation: Set<Character> = ["\"", "'", "(", ")", ",", ":", ";"]
        let core = word.drop { punctuation.contains($0) }
        let id = String(core.reversed().drop { punctuation.contains($0) }.reversed())
        guard !id.isEmpty, let range = word.range(of: id) else { return word }
        let name = catalog.product(id)?.localization(for: locale).displayName ?? catalog.group(id)?.name(for: locale)
        return name.map { word.replacingCharacters(in: range, with: $0) } ?? word
    }
}
