import StoreCore

/// A scenario step in the audience's words, for the demo's caption bar: product and subscription
/// group IDs become their display names ("buy com.lumenquest.pro.yearly" → "Buy Pro Yearly").
enum DemoCaption {
    static func text(_ step: ScenarioStep, catalog: Catalog, locale: String = "en_US") -> String {
        let text = step.text.split(separator: " ", omittingEmptySubsequences: false).map { word in
            let word = String(word)
            if let product = catalog.product(word) { return product.localization(for: locale).displayName }
            if let group = catalog.group(word) { return group.name(for: locale) }
            return word
        }.joined(separator: " ")
        return text.prefix(1).uppercased() + text.dropFirst()
    }
}
