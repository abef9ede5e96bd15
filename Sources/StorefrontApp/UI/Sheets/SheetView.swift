import TerminalUI

/// A modal sheet, in the spirit of tig's `view_ops` and gitui's components: it declares its keys,
/// carries out its actions and draws itself. The value is the sheet's own state (the payment's
/// choices, a menu's selected item); it lives on `AppState.sheets` as a `SheetState`.
/// By default a sheet is read and dismissed: Enter or Esc closes it, q quits.
protocol SheetView: Sendable {
    /// The keys in force while this sheet is on top (no others are).
    func bindings(_ state: AppState) -> [Binding]
    /// Carries out one of its actions while it is on top.
    mutating func perform(_ action: Action, _ state: inout AppState) -> SheetStep
    /// Takes a key before the key map does (typing into a field); false leaves it to the map.
    mutating func edit(_ key: Key) -> Bool
    /// The sheet's box: title, body and buttons, for `area`.
    func sheet(_ state: AppState, in area: Rect) -> Sheet
    /// What the sheet draws inside its frame besides the box (a text field); nothing by default.
    func decorate(_ state: AppState, frame: Rect, on canvas: inout Canvas)
    /// The sheet as it sits on the stack.
    var stacked: SheetState { get }
}

extension SheetView {
    func bindings(_ state: AppState) -> [Binding] { KeyMap.acknowledge }

    mutating func perform(_ action: Action, _ state: inout AppState) -> SheetStep {
        action == .back ? .close : .stay
    }

    mutating func edit(_ key: Key) -> Bool { false }

    func decorate(_ state: AppState, frame: Rect, on canvas: inout Canvas) {}

    /// Draws the sheet in `area`, its body scrolled by `scroll` lines, and returns its frame.
    @discardableResult
    func draw(_ state: AppState, scroll: Int = 0, in area: Rect, on canvas: inout Canvas) -> Rect {
        var box = sheet(state, in: area)
        box.scroll = scroll
        let frame = box.draw(in: area, on: &canvas)
        decorate(state, frame: frame, on: &canvas)
        return frame
    }
}

/// What a sheet's action leaves: effects for the store, and whether the sheet closes.
struct SheetStep {
    var effects: [Effect] = []
    var closes = false

    static let stay = SheetStep()
    static let close = SheetStep(closes: true)
}

/// One modal on the sheet stack: keys go to the top one, Esc pops it. Each case is a sheet type.
enum SheetState: Sendable, Equatable {
    case payment(PaymentSheet)
    case redeem(RedeemSheet)
    case notificationURL(NotificationURLSheet)
    case offerSignature(OfferSignatureSheet)
    case productDetail(ProductDetailSheet)
    case transactionDetail(TransactionDetailSheet)
    case notificationDetail(NotificationDetailSheet)
    case confirm(ConfirmSheet)
    /// QA actions on a transaction, buy outside the app, the refund request and manage-subscriptions sheets.
    case menu(MenuSheet)
    case appInfo
    case message(MessageSheet)
    /// StoreKit's messages: price-increase consent, billing issue, win-back offer.
    case storeMessage(StoreMessageSheet)
    case help
    /// `SubscriptionStoreView` for a group, and `ProductView` for a product (`UI/Paywall/`).
    case paywall(PaywallSheet)
    case productCard(ProductCardSheet)

    /// The sheet as its own type: its keys, actions and drawing.
    var view: any SheetView {
        switch self {
        case .payment(let sheet): sheet
        case .redeem(let sheet): sheet
        case .notificationURL(let sheet): sheet
        case .offerSignature(let sheet): sheet
        case .productDetail(let sheet): sheet
        case .transactionDetail(let sheet): sheet
        case .notificationDetail(let sheet): sheet
        case .confirm(let sheet): sheet
        case .menu(let sheet): sheet
        case .appInfo: AppInfoSheet()
        case .message(let sheet): sheet
        case .storeMessage(let sheet): sheet
        case .help: HelpSheet()
        case .paywall(let sheet): sheet
        case .productCard(let sheet): sheet
        }
    }

    /// How far this sheet's body can scroll at the terminal's size.
    func maxScroll(_ state: AppState) -> Int {
        let area = sheetArea(state, size: state.size)
        return view.sheet(state, in: area).maxScroll(in: area)
    }

    /// How many body lines this sheet shows at once at the terminal's size.
    func bodyRows(_ state: AppState) -> Int {
        let area = sheetArea(state, size: state.size)
        return view.sheet(state, in: area).bodyRows(in: area)
    }

    static func productDetail(_ productID: String) -> SheetState { .productDetail(ProductDetailSheet(productID: productID)) }

    static func transactionDetail(_ id: Int64) -> SheetState { .transactionDetail(TransactionDetailSheet(transactionID: id)) }

    /// A yes/no question whose buttons name the action and the way out; the action runs `effect`.
    static func confirm(title: String, message: String, effect: Effect, yes: String = "Confirm", no: String = "Cancel") -> SheetState {
        .confirm(ConfirmSheet(title: title, message: message, effect: effect, yes: yes, no: no))
    }

    static func menu(title: String, items: [MenuItem], selected: Int = 0, note: String? = nil, cancelled: String? = nil) -> SheetState {
        .menu(MenuSheet(title: title, items: items, selected: selected, note: note, cancelled: cancelled))
    }

    /// An outcome to acknowledge (a purchase result, an error).
    static func message(title: String, text: String) -> SheetState { .message(MessageSheet(title: title, text: text)) }
}
