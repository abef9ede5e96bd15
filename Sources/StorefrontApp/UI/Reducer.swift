import Foundation
import StoreClient
import StoreCore
import StoreEngine
import TerminalUI

/// The whole app's logic: pure, never awaits. Work for the store comes back as effects.
func reduce(_ state: inout AppState, _ event: Event) -> [Effect] {
    switch event {
    case .key(let key):
        return demoKey(key, &state) ?? handle(key, &state)
    case .resize(let size):
        state.size = size
    case .tick:
        state.tick += 1
    case .inputReady:
        break
    case .snapshot(let snapshot):
        state.snapshot = snapshot
        clampSelections(&state)
    case .storeEvent(let event):
        // Product IDs read poorly in a storefront: show the localized names. Longest first, so
        // `com.lumenquest.pro.yearly` is not read as `com.lumenquest.pro` + `.yearly`.
        state.status = state.snapshot.products.sorted { $0.id.count > $1.id.count }
            .reduce(event.message) { $0.replacingOccurrences(of: $1.id, with: $1.displayName) }
    case .qaData(let settings, let ledger):
        state.settings = settings
        state.ledger = ledger
        clampSelections(&state)
    case .finished(let outcome):
        state.inFlight = max(0, state.inFlight - 1)
        finish(outcome, &state)
    case .walk(let event):
        return reduceWalk(&state, event)
    }
    return []
}

private func finish(_ outcome: EffectOutcome, _ state: inout AppState) {
    switch outcome {
    case .purchase(let id, let result):
        state.sheets.removeAll { if case .payment = $0 { true } else { false } }
        let name = state.product(id)?.displayName ?? id
        switch result {
        case .success(let v) where v.isVerified:
            let quantity = v.payload?.quantity ?? 1
            state.status = quantity > 1 ? "Purchased \(quantity) × \(name)" : "Purchased \(name)"
        case .success(let v):
            state.sheets.append(.message(title: "Purchase unverified", text: "\(name) was bought but its transaction failed verification (\(v.error?.rawValue ?? "?")). It was not delivered."))
        case .userCancelled:
            state.status = "Purchase cancelled"
        case .pending(.askToBuy):
            state.sheets.append(.message(title: "Waiting for approval", text: "Ask to Buy: a parent must approve \(name). It will appear when approved."))
        case .pending(.interrupted):
            state.sheets.append(.message(title: "Action required", text: "The purchase of \(name) was interrupted. Resolve it in the QA panel (4)."))
        case .failed(let failure):
            state.sheets.append(.message(title: "Purchase failed", text: failure.message))
        }
    case .redeem(let code, let failure):
        state.sheets.removeAll { if case .redeem = $0 { true } else { false } }
        if let failure { state.sheets.append(.message(title: "Code not redeemed", text: failure.message)) }
        else { state.status = "Code \(code) accepted" }
    case .done(let message):
        state.status = message
    case .failed(let message):
        state.status = "⚠ " + message
    }
}

/// Keeps every selection inside its list after the data changed.
private func clampSelections(_ state: inout AppState) {
    for screen in Screen.allCases {
        let count = itemCount(screen, state)
        state.selection[screen] = min(state.selected(screen), max(0, count - 1))
    }
}

func itemCount(_ screen: Screen, _ state: AppState) -> Int {
    switch screen {
    case .store: StoreScreen.products(state).count
    case .subscriptions: SubscriptionsScreen.groups(state).count
    case .history: HistoryScreen.items(state).count
    case .qa: QAPanel.rows(state).count
    }
}

private func handle(_ key: Key, _ state: inout AppState) -> [Effect] {
    if key == .control("c") { state.shouldQuit = true; return [.quit] }
    // Text input first: typed characters belong to the field, not to the key map.
    if state.isEditingFilter, case .character(let c) = key { state.filter.insert(String(c)); clampSelections(&state); return [] }
    if state.isEditingFilter, state.filter.handle(key) { clampSelections(&state); return [] }
    if case .redeem(var field)? = state.top, key != .enter, key != .escape {
        if case .character(let c) = key { field.insert(String(c).uppercased()) } else { field.handle(key) }
        state.sheets[state.sheets.count - 1] = .redeem(field)
        return []
    }
    guard let action = KeyMap.action(for: key, in: state) else { return [] }
    if let top = state.top { return sheetAction(action, top, &state) }
    if state.isEditingFilter {
        state.isEditingFilter = false
        if action == .back { state.filter.clear(); clampSelections(&state) }
        return []
    }
    return screenAction(action, &state)
}

private func screenAction(_ action: Action, _ state: inout AppState) -> [Effect] {
    let screen = state.screen
    let count = itemCount(screen, state)
    switch action {
    case .up: state.selection[screen] = max(0, state.selected(screen) - 1 - (screen == .qa ? headingSkip(state, -1) : 0))
    case .down: state.selection[screen] = min(max(0, count - 1), state.selected(screen) + 1 + (screen == .qa ? headingSkip(state, 1) : 0))
    case .first: state.selection[screen] = screen == .qa ? 1 : 0
    case .last: state.selection[screen] = max(0, count - 1)
    case .nextScreen: state.screen = Screen(rawValue: (screen.rawValue + 1) % Screen.allCases.count)!
    case .previousScreen: state.screen = Screen(rawValue: (screen.rawValue + Screen.allCases.count - 1) % Screen.allCases.count)!
    case .show(let s): state.screen = s
    case .filter: state.isEditingFilter = true
    case .help: state.sheets.append(.help)
    case .quit: state.shouldQuit = true; return [.quit]
    case .restore: state.inFlight += 1; state.status = "Restoring purchases…"; return [.restore]
    case .redeem: state.sheets.append(.redeem(TextField(maxLength: 24)))
    case .details:
        if screen == .store, let p = StoreScreen.products(state)[safe: state.selected(.store)] { state.sheets.append(.productDetail(p.id)) }
    case .refundRequest:
        guard let item = HistoryScreen.items(state)[safe: state.selected(.history)] else { break }
        // Only a purchase the app received (not a pending or declined request) can be refunded.
        let received = state.snapshot.history.contains { $0.payload?.transactionID == item.payload.transactionID }
        state.sheets.append(received ? RefundRequestSheet.sheet(for: item.payload, state)
                                     : .message(title: "Request a Refund", text: "Only completed purchases can be refunded."))
    case .manageSubscriptions:
        let group = SubscriptionsScreen.groups(state)[safe: state.selected(.subscriptions)]
        if let group { state.sheets.append(ManageSubscriptionsSheet.sheet(group: group, state)) }
    case .appInfo:
        state.sheets.append(.appInfo)
    case .activate:
        switch screen {
        case .store:
            if let p = StoreScreen.products(state)[safe: state.selected(.store)] { state.sheets.append(.payment(draft(for: p, state))) }
        case .subscriptions:
            let group = SubscriptionsScreen.groups(state)[safe: state.selected(.subscriptions)]
            if let id = group.flatMap({ g in state.snapshot.effectiveStatus(group: g)?.transaction.payload?.productID }) ?? state.snapshot.products.first(where: { $0.subscription?.groupID == group })?.id {
                state.sheets.append(.productDetail(id))
            }
        case .history:
            if let item = HistoryScreen.items(state)[safe: state.selected(.history)] { state.sheets.append(.transactionDetail(item.payload.transactionID)) }
        case .qa:
            return react(QAPanel.rows(state)[safe: state.selected(.qa)]?.activate, &state)
        }
    case .left, .right:
        guard screen == .qa, let row = QAPanel.rows(state)[safe: state.selected(.qa)] else { break }
        return react(action == .left ? row.previous : row.next, &state)
    case .walk(let action): return walkAction(action, &state)
    case .back, .increment, .decrement, .nextOffer, .writeToken: break
    }
    return []
}

/// Moving onto a heading row in the QA panel skips it (1), unless it is the first row.
private func headingSkip(_ state: AppState, _ direction: Int) -> Int {
    let rows = QAPanel.rows(state)
    let target = state.selected(.qa) + direction
    guard let row = rows[safe: target], row.heading, rows.indices.contains(target + direction) else { return 0 }
    return 1
}

private func react(_ reaction: Reaction?, _ state: inout AppState) -> [Effect] {
    switch reaction {
    case .effect(let effect)?: state.inFlight += 1; return [effect]
    case .sheet(let sheet)?: state.sheets.append(sheet); return []
    case nil: return []
    }
}

/// The payment sheet's starting choices: offers the customer may use for this product.
func draft(for product: Product, _ state: AppState) -> PaymentDraft {
    var draft = PaymentDraft(productID: product.id, allowsQuantity: product.type == .consumable)
    if let terms = product.subscription {
        draft.offers += terms.promotionalOffers.compactMap(\.id).map(PaymentDraft.Offer.promotional)
        let eligible = state.snapshot.subscriptionStatuses[terms.groupID]?.compactMap(\.renewalInfo.payload).flatMap(\.eligibleWinBackOfferIDs) ?? []
        draft.offers += terms.winBackOffers.compactMap(\.id).filter(eligible.contains).map(PaymentDraft.Offer.winBack)
    }
    return draft
}

private func sheetAction(_ action: Action, _ top: SheetState, _ state: inout AppState) -> [Effect] {
    let index = state.sheets.count - 1
    if action == .quit { state.shouldQuit = true; return [.quit] }
    switch top {
    case .payment(var d):
        switch action {
        case .increment: d.quantity = min(10, d.quantity + 1)
        case .decrement: d.quantity = max(1, d.quantity - 1)
        case .nextOffer: d.offerIndex = (d.offerIndex + 1) % d.offers.count
        case .left, .right: d.button = 1 - d.button
        case .back: return pay(d, .cancel, &state)
        case .activate: return pay(d, d.button == 0 ? .confirm : .cancel, &state)
        default: break
        }
        state.sheets[index] = .payment(d)
    case .redeem(let field):
        if action == .back { state.sheets.removeLast() }
        if action == .activate, !field.text.isEmpty {
            state.inFlight += 1
            state.status = "Redeeming \(field.text)…"
            return [.redeem(field.text)]
        }
    case .confirm(_, _, let effect):
        state.sheets.removeLast()
        if action == .activate { state.inFlight += 1; return [effect] }
    case .menu(let title, let items, var selected, let note, let cancelled):
        switch action {
        case .up: selected = max(0, selected - 1)
        case .down: selected = min(max(0, items.count - 1), selected + 1)
        case .first: selected = 0
        case .last: selected = max(0, items.count - 1)
        case .back:
            state.sheets.removeLast()
            if let cancelled { state.status = cancelled }
            return []
        case .activate:
            state.sheets.removeLast()
            guard let item = items[safe: selected] else { return [] }
            state.inFlight += 1
            return [item.effect]
        default: break
        }
        state.sheets[index] = .menu(title: title, items: items, selected: selected, note: note, cancelled: cancelled)
    case .transactionDetail(let id) where action == .writeToken:
        guard let token = HistoryScreen.token(id, state) else { state.status = "Transaction #\(id) has no signed token yet"; return [] }
        return [.writeFile(path: HistoryScreen.tokenFile(id), contents: token + "\n")]
    case .productDetail, .transactionDetail, .message, .help, .appInfo:
        if action == .back { state.sheets.removeLast() }
    }
    return []
}

/// Confirm or cancel at the payment sheet: both go to the store, as StoreKit reports a cancel too.
private func pay(_ d: PaymentDraft, _ answer: PaymentSheetAnswer, _ state: inout AppState) -> [Effect] {
    guard !d.isPurchasing else { return [] }
    var options = PurchaseOptions(quantity: d.quantity)
    switch d.offer {
    case .none: break
    case .promotional(let id): options.promotionalOffer = (id: id, signature: nil)  // the runner signs it
    case .winBack(let id): options.winBackOfferID = id
    }
    state.inFlight += 1
    if answer == .cancel {
        state.sheets.removeLast()
    } else {
        var purchasing = d
        purchasing.isPurchasing = true
        state.sheets[state.sheets.count - 1] = .payment(purchasing)
    }
    return [.purchase(productID: d.productID, options: options, answer: answer)]
}

extension Array {
    subscript(safe i: Int) -> Element? { indices.contains(i) ? self[i] : nil }
}
