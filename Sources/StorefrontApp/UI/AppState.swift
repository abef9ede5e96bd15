import Foundation
import StoreClient
import StoreCore
import StoreEngine
import TerminalUI

/// The four top-level screens, in tab order.
enum Screen: Int, CaseIterable, Sendable {
    case store, subscriptions, history, qa

    var title: String {
        switch self {
        case .store: "Store"
        case .subscriptions: "Subscriptions"
        case .history: "History"
        case .qa: "QA"
        }
    }
}

/// Everything the UI shows, as one value: `reduce` changes it, `render` draws it.
struct AppState: Sendable {
    var screen: Screen = .store
    /// Selected row per screen (index into that screen's selectable rows).
    var selection: [Screen: Int] = [:]
    var filter = TextField() { didSet { if filter.text != oldValue.text { arrangeStore() } } }
    var isEditingFilter = false
    /// Modal sheets, top last: keys go to the top one first, Esc pops it.
    var sheets: [SheetState] = []
    var snapshot = StoreSnapshot() { didSet { if snapshot.products != oldValue.products { arrangeStore() } } }
    /// The store screen's products, grouped and filtered: derived when the products or the filter
    /// change, not on every frame (a catalog may hold 10,000 products).
    private(set) var storeProducts: [Product] = []
    var settings = TestSettings()
    var ledger: [LedgerEntry] = []
    /// What the QA panel cycles through (from the catalog).
    var storefronts: [String] = ["USA"]
    var locales: [String] = ["en_US"]
    var appName = "Storefront"
    var status = "Welcome"
    var tick = 0
    var inFlight = 0
    var size = Size(width: 80, height: 24)
    var shouldQuit = false
    /// The scenario checklist of `storefront walk` / `demo`; nil in the plain storefront.
    var walk: WalkState?

    var top: SheetState? { sheets.last }

    func selected(_ screen: Screen) -> Int { selection[screen] ?? screen.view.firstItem }

    func product(_ id: String) -> Product? { snapshot.products.first { $0.id == id } }

    private mutating func arrangeStore() {
        storeProducts = StoreScreen.arrange(snapshot.products, matching: filter.text)
    }
}

/// One modal on the sheet stack.
enum SheetState: Sendable, Equatable {
    case payment(PaymentDraft)
    case redeem(TextField)
    case productDetail(String)
    case transactionDetail(Int64)
    /// A yes/no question; Enter runs `effect`.
    case confirm(title: String, message: String, effect: Effect)
    /// A list of actions (QA actions on a transaction, buy-outside-app product choice, the refund
    /// request and manage-subscriptions sheets); `cancelled` is the status shown when Esc dismisses it.
    case menu(title: String, items: [MenuItem], selected: Int, note: String? = nil, cancelled: String? = nil)
    /// AppTransaction: what the app knows of its own purchase.
    case appInfo
    /// An outcome to acknowledge (purchase result, error).
    case message(title: String, text: String)
    case help
}

struct MenuItem: Sendable, Equatable {
    var label: String
    var effect: Effect
}

/// The payment sheet's editable choices before Confirm.
struct PaymentDraft: Sendable, Equatable {
    enum Offer: Sendable, Equatable {
        case none, promotional(String), winBack(String)
        var label: String {
            switch self {
            case .none: "None"
            case .promotional(let id): "Promotional: \(id)"
            case .winBack(let id): "Win-back: \(id)"
            }
        }
    }
    var productID: String
    /// Only consumables are bought several at a time.
    var allowsQuantity = false
    var quantity = 1
    var offers: [Offer] = [.none]
    var offerIndex = 0
    /// 0 = Confirm, 1 = Cancel.
    var button = 0
    /// Confirmed and waiting for the store: further keys are ignored, a spinner shows.
    var isPurchasing = false
    var offer: Offer { offers[min(offerIndex, offers.count - 1)] }
}
