import Foundation
import StoreClient
import StoreCore
import StoreEngine
import TerminalUI

/// The top-level screens, in tab order.
enum Screen: Int, CaseIterable, Sendable {
    case store, subscriptions, history, qa, log, notifications

    var title: String {
        switch self {
        case .store: "Store"
        case .subscriptions: "Subscriptions"
        case .history: "History"
        case .qa: "QA"
        case .log: "Log"
        case .notifications: "Notices"  // App Store Server Notifications; short, so the tabs fit 80 columns with the app name
        }
    }
}

/// Everything the UI shows, as one value: `reduce` changes it, `render` draws it.
struct AppState: Sendable {
    var screen: Screen = .store {
        // Its list may have changed while another screen was shown (only the shown one is kept in step).
        didSet { clampSelection(screen) }
    }
    /// Selected row per screen (index into that screen's selectable rows).
    var selection: [Screen: Int] = [:]
    /// Each screen's filter (`/`): it narrows that screen's list only, never the QA panel's pickers.
    var filters: [Screen: TextField] = [:] { didSet { if filterText(.store) != oldValue[.store]?.text ?? "" { arrangeStore() } } }
    var isEditingFilter = false
    /// Modal sheets, top last: keys go to the top one first, Esc pops it.
    var sheets: [SheetState] = [] {
        // A sheet opened or closed: the one on top is read from its first line.
        didSet { if sheets.count != oldValue.count { sheetScroll = 0 } }
    }
    /// How far the top sheet's body is scrolled (see `Sheet.scroll`).
    var sheetScroll = 0
    var snapshot = StoreSnapshot() {
        didSet {
            guard snapshot.products != oldValue.products else { return }
            catalogProducts = StoreScreen.arrange(snapshot.products, matching: "")
            arrangeStore()
        }
    }
    /// The store screen's products, grouped and filtered: derived when the products or the filter
    /// change, not on every frame (a catalog may hold 10,000 products).
    private(set) var storeProducts: [Product] = []
    /// The same, unfiltered: what the QA panel's pickers offer.
    private(set) var catalogProducts: [Product] = []
    var settings = TestSettings()
    /// A time rate compresses durations to seconds: dates show their seconds then.
    var timeIsCompressed: Bool { settings.timeRate != .realTime }
    var ledger: [LedgerEntry] = [] {
        didSet { waiting = Dictionary(grouping: ledger.filter { $0.status == .pendingApproval || $0.status == .interrupted }, by: \.payload.productID) }
    }
    /// The ledger's purchases waiting for approval or interrupted, by product: the store screen marks
    /// each product's row with them, every frame (a scan of the whole ledger per row was a fifth of a frame).
    private(set) var waiting: [String: [LedgerEntry]] = [:]
    /// The QA panel's ledger and the notifications are on their way, after the first frame (see `AppState.opening`).
    var isLoadingLedger = false
    /// The History screen joins the app's history to the ledger's entries: it waits for both.
    var isLoadingHistory: Bool { snapshot.isLoadingHistory || isLoadingLedger }
    /// The newest App Store Server Notifications, newest first (screen 6).
    var notifications: [StoreNotification] = []
    /// What the QA panel cycles through (from the catalog).
    var storefronts: [String] = ["USA"]
    var locales: [String] = ["en_US"]
    var appName = "Storefront"
    /// The catalog's offer codes: shown with their product and in the QA panel (a `.storekit` file's codes are made up at load).
    var offerCodes: [OfferCode] = []
    /// The catalog's subscription groups (their marketing content) and the app's policy links: what a paywall shows.
    var groups: [SubscriptionGroup] = []
    var termsOfServiceURL: String?
    var privacyPolicyURL: String?
    /// The control style a paywall opens in (`--paywall-style`; `s` on the paywall changes it).
    var paywallStyle = PaywallStyle.automatic
    /// A `.storekit` catalog's one price: the currency its numbers are in (see `Catalog.onePriceNotice`).
    var onePriceCurrency: String?
    /// StoreKit messages shown this launch (see `StoreMessages`): each once.
    var messagesShown: Set<String> = []
    /// Purchases the customer began on the App Store, waiting for the app to show its payment sheet.
    var purchaseIntents: [PurchaseIntentRequest] = []
    /// The last thing that happened; every message also goes to the event log (screen 5).
    var status: String {
        get { statusLine }
        set { statusLine = namingProducts(newValue); note(statusLine, at: snapshot.now) }
    }
    private var statusLine = "Press ? for keys."
    /// Every action, store event and renewal this session, oldest first.
    private(set) var log: [LogEntry] = []
    static let logLimit = 1000
    /// The newest store notification the log has told (nil until the first read sets where the session starts).
    var toldNotification: Int64?

    /// Adds a line to the event log at its own store time, leaving the status line as it is.
    mutating func note(_ text: String, at time: Date) {
        log.append(LogEntry(time: time, text: namingProducts(text)))
        if log.count > Self.logLimit { log.removeFirst(log.count - Self.logLimit) }
    }

    /// Shows a line on the status line without logging it again.
    mutating func show(_ text: String) { statusLine = namingProducts(text) }
    var tick = 0
    /// The tick of the last key or click: a StoreKit message waits for a pause (see `StoreMessages.isQuiet`).
    var lastKeyTick: Int?
    /// Products whose Ask to Buy the ledger showed approved before the app heard of the transaction.
    var approvedUnheard: Set<String> = []
    /// Effects the run loop has started and not yet heard back from: it counts them, screens only read it.
    var inFlight = 0
    /// A QA control's change or a confirmed purchase is on its way to the store: further keys wait in
    /// `waitingKeys` until what it changed is read (`Event.storeSettled`).
    var awaitingStore = false
    var waitingKeys: [Key] = []
    var size = Size(width: 80, height: 24)
    var shouldQuit = false
    /// The session is kept as a scenario (`--record-scenario`): `W` saves it so far.
    var recordsScenario = false
    /// What a layer around the app adds (keys, screen space); none in the plain storefront.
    var layering = Layering()

    var top: SheetState? { sheets.last }

    /// The payment sheet is on top, its purchase on the way to the store.
    var isPurchasing: Bool { if case .payment(let sheet)? = top { sheet.isPurchasing } else { false } }

    /// Nothing in flight and no key waiting for the store: what is on screen is what the store said.
    var isSettled: Bool { inFlight == 0 && !awaitingStore && waitingKeys.isEmpty }

    /// The current screen's filter, the one `/` edits and Esc clears.
    var filter: TextField {
        get { filters[screen] ?? TextField() }
        set { filters[screen] = newValue }
    }

    func filterText(_ screen: Screen) -> String { filters[screen]?.text ?? "" }

    func selected(_ screen: Screen) -> Int { selection[screen] ?? screen.view.firstItem }

    /// Keeps a screen's selection inside its list after the data changed.
    mutating func clampSelection(_ screen: Screen) {
        selection[screen] = min(selected(screen), max(0, screen.view.itemCount(self) - 1))
    }

    func product(_ id: String) -> Product? { snapshot.products.first { $0.id == id } }

    /// Product IDs read poorly in a storefront: `text` with the localized names instead. Longest
    /// first, so `com.lumenquest.pro.yearly` is not read as `com.lumenquest.pro` + `.yearly`.
    func namingProducts(_ text: String) -> String {
        guard text.contains(".") else { return text }
        return snapshot.products.sorted { $0.id.count > $1.id.count }
            .reduce(text) { $0.replacingOccurrences(of: $1.id, with: $1.displayName) }
    }

    private mutating func arrangeStore() {
        let query = filterText(.store)
        storeProducts = query.isEmpty ? catalogProducts : StoreScreen.arrange(snapshot.products, matching: query)
    }
}
