import Foundation
import StoreCore
import StoreEngine
import TerminalUI

/// What a QA row does: run an effect at once, or open a sheet first (a menu, a confirmation).
enum Reaction: Sendable, Equatable {
    case effect(Effect)
    case sheet(SheetState)
    /// Nothing to do, and why (a control at the end of its scale).
    case say(String)
    /// A transaction's actions, in a menu made when it opens (the panel lists 300 transactions,
    /// and its rows are counted after every read of the store).
    case actions(LedgerEntry)
}

/// The QA panel: the tester's `SKTestSession`. Rows are computed from the current settings, so
/// a value changes on screen as soon as the store confirms it.
enum QAPanel {
    struct Row: Sendable {
        var label: String
        var value: String = ""
        var heading = false
        var meaning: Meaning?
        var activate: Reaction?
        var previous: Reaction?
        var next: Reaction?
    }

    static let rates: [TimeRate] = TimeRate.allCases.filter { !$0.isDeprecated }
    static let advances: [Period] = [Period(1, .day), Period(1, .week), Period(1, .month), Period(1, .year)]
    /// The newest ledger entries the panel lists (a long ledger is never loaded whole).
    static let ledgerLimit = 300
    static let platforms = ["iOS", "macOS", "tvOS", "visionOS"]
    /// Original app versions to try business-model migrations with ("bought before 2.0").
    static let versions = ["1.0", "1.9", "2.0", "2.4", "3.0"]

    /// The rows the filter (`/`) keeps: those whose label or value contains it, under their headings.
    static func rows(_ state: AppState) -> [Row] {
        let query = state.filterText(.qa).lowercased()
        guard !query.isEmpty else { return allRows(state) }
        var kept: [Row] = [], heading: Row?
        for row in allRows(state) {
            if row.heading { heading = row; continue }
            guard (row.label + " " + row.value).lowercased().contains(query) else { continue }
            if let shown = heading { kept.append(shown); heading = nil }
            kept.append(row)
        }
        return kept
    }

    private static func allRows(_ state: AppState) -> [Row] {
        let s = state.settings, snap = state.snapshot
        var rows: [Row] = [Row(label: "Store", heading: true)]
        let sf = cycle(state.storefronts, snap.storefront.code)
        let onePrice = state.onePriceCurrency.flatMap { $0 == snap.storefront.currency ? nil : " · one .storekit price: \($0) numbers" } ?? ""
        rows.append(Row(label: "Storefront", value: snap.storefront.code + "  (" + snap.storefront.currency + ")" + onePrice,
                        activate: .effect(.command(.storefront(sf.next, locale: nil))),
                        previous: .effect(.command(.storefront(sf.previous, locale: nil))),
                        next: .effect(.command(.storefront(sf.next, locale: nil)))))
        let lc = cycle(state.locales, snap.locale)
        rows.append(Row(label: "Locale", value: snap.locale,
                        activate: .effect(.command(.storefront(snap.storefront.code, locale: lc.next))),
                        previous: .effect(.command(.storefront(snap.storefront.code, locale: lc.previous))),
                        next: .effect(.command(.storefront(snap.storefront.code, locale: lc.next)))))
        // A scale, slowest to fastest: ←→ stop at its ends (past Real time is not the fastest rate); Enter goes round.
        let rate = cycle(rates, s.timeRate), i = rates.firstIndex(of: s.timeRate) ?? 0
        rows.append(Row(label: "Time rate", value: s.timeRate.title,
                        activate: .effect(.command(.timeRate(rate.next))),
                        previous: i > 0 ? .effect(.command(.timeRate(rate.previous))) : .say("Time rate: \(s.timeRate.title) is the slowest"),
                        next: i < rates.count - 1 ? .effect(.command(.timeRate(rate.next))) : .say("Time rate: \(s.timeRate.title) is the fastest")))
        for period in advances {
            rows.append(Row(label: "Advance time \(period.iso)", value: "+" + period.words, activate: .effect(.command(.advance(period)))))
        }
        for toggle in TestSetting.allCases {
            let on = s[keyPath: toggle.keyPath]
            let effect = Reaction.effect(.command(.toggle(toggle)))
            rows.append(Row(label: toggle.title, value: on ? "[x] on" : "[ ] off", activate: effect, previous: effect, next: effect))
        }
        let url = Reaction.sheet(.notificationURL(NotificationURLSheet(current: s.notificationURL)))
        rows.append(Row(label: "Notification URL", value: s.notificationURL.map(TestSettings.redacted) ?? "none (recorded, not sent)", activate: url, next: url))
        rows.append(Row(label: "Failures (Enter/→ next error, ← clear)", heading: true))
        for api in StoreAPI.allCases {
            let choices: [StoreFailure?] = [nil] + api.injectableFailures
            let current = s.failures[api]
            let c = cycle(choices, current)
            rows.append(Row(label: api.title, value: current?.name ?? "none",
                            activate: .effect(.command(.fail(api, c.next))),
                            previous: .effect(.command(.fail(api, nil))), next: .effect(.command(.fail(api, c.next)))))
        }
        rows.append(Row(label: "App (AppTransaction; press a to see it)", heading: true))
        let app = snap.appTransaction?.payload
        let version = cycle(versions, app?.originalAppVersion ?? "")
        rows.append(Row(label: "Original app version", value: app?.originalAppVersion ?? "unknown",
                        activate: .effect(.command(.originalApp(version: version.next, platform: nil, date: nil))),
                        previous: .effect(.command(.originalApp(version: version.previous, platform: nil, date: nil))),
                        next: .effect(.command(.originalApp(version: version.next, platform: nil, date: nil)))))
        let platform = cycle(platforms, app?.originalPlatform ?? "iOS")
        rows.append(Row(label: "Original platform", value: app?.originalPlatform ?? "unknown",
                        activate: .effect(.command(.originalApp(version: nil, platform: platform.next, date: nil))),
                        previous: .effect(.command(.originalApp(version: nil, platform: platform.previous, date: nil))),
                        next: .effect(.command(.originalApp(version: nil, platform: platform.next, date: nil)))))
        rows.append(Row(label: "Purchases", heading: true))
        let products = state.catalogProducts  // a picker offers every product, whatever a screen's filter
        rows.append(Row(label: "Buy outside app…", activate: .sheet(.menu(title: "Buy outside the app", items: products.map {
            MenuItem(label: $0.displayName, effect: .command(.buyElsewhere($0.id, family: false)))
        }, selected: 0))))
        rows.append(Row(label: "Promoted on the App Store…", value: "the app's PurchaseIntent", activate: .sheet(.menu(title: "Customer taps a promotion", items: products.flatMap { product in
            [MenuItem(label: product.displayName, effect: .command(.promote(product.id, offer: nil)))]
                + ((product.subscription?.promotionalOffers ?? []) + (product.subscription?.winBackOffers ?? [])).compactMap(\.id).map {
                    MenuItem(label: "\(product.displayName) · offer \($0)", effect: .command(.promote(product.id, offer: $0)))
                }
        }, selected: 0))))
        rows.append(Row(label: "Family member purchase…", activate: .sheet(.menu(title: "Family member buys", items: products.filter(\.isFamilyShareable).map {
            MenuItem(label: $0.displayName, effect: .command(.buyElsewhere($0.id, family: true)))
        }, selected: 0))))
        rows.append(Row(label: "Clear all transactions", value: "the app keeps its wallet", activate: .sheet(.confirm(
            title: "Clear transactions", message: "Delete every transaction in the ledger? (The app keeps its own data: its coin balances.)", effect: .command(.clear), yes: "Clear All", no: "Keep"))))
        rows.append(Row(label: "Reset store", value: "transactions, app's wallet, settings, clock", activate: .sheet(.confirm(
            title: "Reset store", message: "Delete all transactions, empty the app's wallet and restore the catalog's settings and clock?", effect: .command(.reset), yes: "Reset Store", no: "Keep"))))
        if !state.offerCodes.isEmpty {
            rows.append(Row(label: "Offer codes (Enter redeems as the customer)", heading: true))
            for code in state.offerCodes {
                let name = state.product(code.productID)?.displayName ?? code.productID
                // The tester's panel is English: its periods too ("1 month free", not "1 Monat free").
                let what = state.product(code.productID).map { product in
                    var english = product
                    english.locale = "en_US"
                    return ProductDetailSheet.describe(code, english, now: state.snapshot.now)
                } ?? code.code
                rows.append(Row(label: "\(code.code) · \(name)", value: String(what.drop { $0 != "·" }.dropFirst(2)),
                                activate: .effect(.command(.redeem(code.code)))))
            }
        }
        rows.append(Row(label: "Transactions (Enter for actions)", heading: true))
        // Oldest first, so the newest transaction is the panel's last row, where End and G go.
        let entries = state.ledger.sorted { $0.id < $1.id }
        if entries.isEmpty { rows.append(Row(label: state.isLoadingLedger ? "  loading…" : "  none")) }
        for entry in entries {
            let name = state.product(entry.payload.productID)?.displayName ?? entry.payload.productID
            let status = entryStatus(entry, locale: state.snapshot.locale)
            rows.append(Row(label: "#\(entry.id) \(name)", value: status, meaning: Meaning.of(status: status),
                            activate: .actions(entry)))
        }
        return rows
    }

    static func entryStatus(_ e: LedgerEntry, locale: String) -> String {
        status(e, locale: locale) + (e.consumption.map { " · backend: " + consumptionSummary($0) } ?? "")
    }

    /// Send Consumption Information in a line: "delivered, 25% used, prefers decline".
    static func consumptionSummary(_ info: JSONValue) -> String {
        var parts = [info["deliveryStatus"]?.stringValue.map { $0.lowercased().replacingOccurrences(of: "_", with: " ") } ?? "?"]
        if let used = info["consumptionPercentage"]?.intValue { parts.append("\(used / 1000)% used") }
        if let preference = info["refundPreference"]?.stringValue {
            parts.append("prefers " + preference.lowercased().replacingOccurrences(of: "_", with: " "))
        }
        return parts.joined(separator: ", ")
    }

    private static func status(_ e: LedgerEntry, locale: String) -> String {
        switch e.status {
        case .pendingApproval: "pending approval"
        case .declined: "declined"
        case .interrupted: "interrupted"
        case .completed where e.refundRequest == .pending: "refund requested"
        case .completed where e.upgradeRefund != nil:
            "upgraded, " + PriceFormatter.displayPrice(e.upgradeRefund!, currency: e.payload.currency, locale: locale) + " refunded"
        case .completed: e.payload.isRevoked ? "revoked" : (e.isFinished ? "finished" : "unfinished")
        }
    }

    /// The tester's controls that apply to one ledger entry, from `TesterControl.table`.
    static func actions(_ e: LedgerEntry, _ state: AppState) -> [MenuItem] {
        let renewal = state.snapshot.subscriptionStatuses.values.joined()
            .first { $0.renewalInfo.payload?.originalTransactionID == e.payload.originalTransactionID }?.renewalInfo.payload
        return TesterControl.offered(for: e, renewal: renewal).map {
            MenuItem(label: $0.label, effect: .command(.control($0.control, .id(e.id))))
        }
    }

    /// The values before and after `current` in `all`, wrapping around.
    static func cycle<T: Equatable>(_ all: [T], _ current: T) -> (previous: T, next: T) {
        guard !all.isEmpty else { return (current, current) }
        let i = all.firstIndex(of: current) ?? -1
        return (all[(i - 1 + all.count) % all.count], all[(i + 1) % all.count])
    }
}

extension QAPanel: ScreenView {
    /// Offer codes' terms and transactions' states are long: a wide terminal shows them whole.
    static var widest: Int { .max }
    static let bindings = KeyMap.move + [
        Binding(keys: [.enter], name: "Enter", label: "Run", action: .activate),
        Binding(keys: [.left, .character("h")], name: "←→", label: "Change", action: .left),
        Binding(keys: [.right, .character("l")], name: "→", label: "Next value", action: .right, footer: false),
    ]

    static func summary(_ state: AppState) -> String { "Test controls (the store's side, like Xcode's Transaction Manager)" }

    static func itemCount(_ state: AppState) -> Int { rows(state).count }

    /// The first control, below the "Store" heading.
    static var firstItem: Int { 1 }

    static func isHeading(_ item: Int, _ state: AppState) -> Bool { rows(state)[safe: item]?.heading == true }

    static func perform(_ action: Action, _ state: inout AppState) -> [Effect] {
        guard let row = rows(state)[safe: state.selected(.qa)] else { return [] }
        switch action {
        case .activate: return react(row.activate, &state)
        case .left: return react(row.previous, &state)
        case .right: return react(row.next, &state)
        default: return []
        }
    }

    private static func react(_ reaction: Reaction?, _ state: inout AppState) -> [Effect] {
        switch reaction {
        case .effect(let effect)?:
            state.awaitingStore = true
            return [effect]
        case .sheet(let sheet)?: state.sheets.append(sheet); return []
        case .actions(let entry)?:
            let name = state.product(entry.payload.productID)?.displayName ?? entry.payload.productID
            state.sheets.append(.menu(title: "#\(entry.id) \(name)", items: actions(entry, state), selected: 0))
            return []
        case .say(let text)?: state.status = text; return []
        case nil: return []
        }
    }

    static func lines(_ state: AppState, width: Int, rows _: Int = 0) -> [ListView.Line] {
        let labelWidth = min(40, max(20, width / 2))
        let rows = rows(state)
        if rows.isEmpty { return [ListView.Line("No controls or transactions match “\(state.filterText(.qa))”.")] }
        return rows.enumerated().map { i, row in
            row.heading
                ? ListView.Line(row.label, style: .bold, item: i)
                : ListView.Line("  " + DisplayWidth.pad(DisplayWidth.truncate(row.label, toWidth: labelWidth - 2), toWidth: labelWidth - 2) + "  " + row.value,
                                style: row.meaning?.style ?? .plain, item: i)
        }
    }
}
