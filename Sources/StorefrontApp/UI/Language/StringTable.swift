import Foundation
import StoreCore
import Locking

/// What the customer reads, in their language: one table per language (a file each, beside this
/// one), chosen once from the locale (`StringTable.for`), so a sentence is never half in another
/// language. Parametrised phrases are templates with named slots (`{price}`), so each language
/// puts the words in its own order.
struct StringTable: Sendable {
    /// The language (and script or region) it is written in: "en", "ja", "zh-Hans", "pt-BR".
    let id: String
    let entries: [Phrase: String]
    /// The unit after a price and "/" where the App Store's differs from the ICU name for one
    /// ("¥800/月", where ICU says "か月"); every other period name is ICU's (`PeriodNames`).
    var perUnit: [Period.Unit: String] = [:]

    /// The phrase with its slots filled: `t(.consumablePrice, ["price": "¥160", "quantity": "1", "total": "¥160"])`.
    func callAsFunction(_ phrase: Phrase, _ values: [String: String] = [:]) -> String {
        Self.fill(entries[phrase] ?? "", values)
    }

    /// Every phrase there: an incomplete table is never chosen, so English never fills its gaps.
    var isComplete: Bool { Phrase.allCases.allSatisfy { entries[$0]?.isEmpty == false } }

    /// The slots a phrase's template names, in order.
    static func slots(_ template: String) -> [String] {
        var names: [String] = []
        forEachPiece(of: template) { piece, isSlot in if isSlot { names.append(piece) } }
        return names
    }

    /// One pass over the template: a value holding braces is never filled again.
    static func fill(_ template: String, _ values: [String: String]) -> String {
        guard template.utf8.contains(UInt8(ascii: "{")) else { return template }
        var out = ""
        forEachPiece(of: template) { piece, isSlot in out += isSlot ? values[piece] ?? "{\(piece)}" : piece }
        return out
    }

    /// The template's text and slots in order; a `{` without a `}` after it is text. On its UTF-8: every
    /// frame fills dozens of these, and walking them a `Character` at a time was a tenth of a key's profile.
    private static func forEachPiece(of template: String, _ body: (String, _ isSlot: Bool) -> Void) {
        let (open, close) = (UInt8(ascii: "{"), UInt8(ascii: "}"))
        var rest = template.utf8[...]
        while let start = rest.firstIndex(of: open), let end = rest[start...].firstIndex(of: close) {
            if start > rest.startIndex { body(String(decoding: rest[..<start], as: UTF8.self), false) }
            body(String(decoding: rest[rest.index(after: start)..<end], as: UTF8.self), true)
            rest = rest[rest.index(after: end)...]
        }
        if !rest.isEmpty { body(String(decoding: rest, as: UTF8.self), false) }
    }
}

extension StringTable {
    /// Every language with a table, English first.
    static let all: [StringTable] = [.english, .japanese, .chineseSimplified, .chineseTraditional, .korean,
                                     .german, .french, .spanish, .italian, .portugueseBrazil]

    /// The table for a locale ("ja_JP", "zh-Hant-TW", "pt_BR"), by its language plus, for Chinese,
    /// the script (Hant, or a region TW, HK, MO) and, for Portuguese, the region (BR); a language
    /// without a (complete) table gets English whole.
    static func `for`(_ locale: String) -> StringTable {
        // Asked for on every row of every frame (`AppState.words`): the last answer is kept.
        if let last = lastChosen.withLock({ $0 }), last.locale == locale { return last.table }
        let id = tableID(locale)
        let table = complete.first { $0.id == id } ?? .english
        lastChosen.withLock { $0 = (locale, table) }
        return table
    }

    /// The tables that can be chosen: an incomplete one never is.
    private static let complete = all.filter(\.isComplete)
    private static let lastChosen = Locked<(locale: String, table: StringTable)?>(nil)

    /// "ja_JP" → "ja", "zh_TW" → "zh-Hant", "zh-Hans-CN" → "zh-Hans", "pt_BR" → "pt-BR", "pt_PT" → "pt-PT".
    static func tableID(_ locale: String) -> String {
        let parts = locale.split(whereSeparator: { $0 == "_" || $0 == "-" }).map(String.init)
        let language = parts.first?.lowercased() ?? "en"
        let rest = parts.dropFirst()
        let script = rest.first { $0.count == 4 }?.capitalized
        let region = rest.first { $0.count == 2 || $0.count == 3 && $0.allSatisfy(\.isNumber) }?.uppercased()
        switch language {
        case "zh": return script == "Hant" || ["TW", "HK", "MO"].contains(region ?? "") && script != "Hans" ? "zh-Hant" : "zh-Hans"
        case "pt": return "pt-" + (region ?? "BR")
        default: return language
        }
    }
}

extension AppState {
    /// The customer's language, from the storefront's locale.
    var words: StringTable { StringTable.for(snapshot.locale) }
}
