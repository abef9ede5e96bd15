/// Picks the best of a catalog's locales for a requested one, as the App Store falls back:
/// exact (`zh_CN`), then same language and script (`zh_Hans`), then same language (`ja`).
public enum LocaleMatch {
    public static func best(_ requested: String, among available: [String]) -> String? {
        let wanted = Parts(requested)
        let candidates = available.map { ($0, Parts($0)) }
        if let exact = candidates.first(where: { $0.1 == wanted }) { return exact.0 }
        let sameLanguage = candidates.filter { $0.1.language == wanted.language }
        if let sameScript = sameLanguage.first(where: { $0.1.script == wanted.script && $0.1.region == wanted.region }) { return sameScript.0 }
        if let sameScript = sameLanguage.first(where: { $0.1.script == wanted.script && $0.1.region == nil }) { return sameScript.0 }
        if let sameScript = sameLanguage.first(where: { $0.1.script == wanted.script }) { return sameScript.0 }
        return sameLanguage.first(where: { $0.1.region == nil })?.0 ?? sameLanguage.first?.0
    }

    /// A locale identifier split into language, script (inferred for Chinese) and region.
    struct Parts: Equatable {
        var language: String
        var script: String?
        var region: String?

        init(_ identifier: String) {
            let pieces = Self.pieces(identifier)
            language = pieces.first?.lowercased() ?? ""
            script = pieces.dropFirst().first { $0.count == 4 }.map { $0.prefix(1).uppercased() + $0.dropFirst().lowercased() }
            region = pieces.dropFirst().first { $0.count == 2 || $0.count == 3 && Int($0) != nil }?.uppercased()
            if language == "zh", script == nil {
                script = ["TW", "HK", "MO"].contains(region ?? "") ? "Hant" : "Hans"
            }
        }

        /// `zh-Hant_TW` → zh, Hant, TW: split at hyphens and underscores (by hand: Foundation's
        /// `replacingOccurrences` per locale was a tenth of a large catalog's load).
        static func pieces(_ identifier: String) -> [Substring] {
            identifier.split { $0 == "_" || $0 == "-" }
        }
    }
}
