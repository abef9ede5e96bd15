import Foundation
import StoreClient
import StoreCore
import StoreEngine
import TerminalUI

/// The whole app's logic: pure, never awaits. Work for the store comes back as effects.
func reduce(_ state: inout AppState, _ event: Event) -> [Effect] {
    switch event {
    case .key(let key):
        state.lastKeyTick = state.tick
        // A QA control cycles from the value the store reports: a key pressed before the store
        // answered the last one waits for that answer, or five → would all send the same value.
        if state.awaitingStore || !state.waitingKeys.isEmpty { return hold(key, &state) }
        return handle(key, &state)
    case .resize(let size):
        state.size = size
    case .tick:
        state.tick += 1
        presentWaitingSheets(&state)  // one that waited for a pause in typing
    case .clock(let now):
        state.snapshot.now = now
    case .inputReady:
        break
    case .snapshot(let snapshot):
        // A damaged ledger row is said plainly, never shown as less than was bought.
        if let damage = snapshot.damage, damage != state.snapshot.damage { state.status = "⚠ " + damage }
        // A shared ledger out of reach comes back (a damaged row never does).
        else if snapshot.damage == nil, state.snapshot.damage != nil { state.status = "✓ The ledger can be read again" }
        state.snapshot = snapshot
        clampSelections(&state)
        presentWaitingSheets(&state)
    case .appEvent(let event):
        state.status = StatusLine.describe(event, state)  // in display names, as every message
        if case .transactionArrived(let id, _, _) = event { state.approvedUnheard.remove(id) }
        if case .purchaseIntent(let id, let offer) = event {
            state.purchaseIntents.append(PurchaseIntentRequest(productID: id, offerID: offer))
            presentWaitingSheets(&state)
        }
    case .qaData(let settings, let ledger):
        StatusLine.noteApprovals(from: state.ledger, to: ledger, &state)
        state.settings = settings
        state.ledger = ledger
        state.isLoadingLedger = false
        clampSelections(&state)
    case .notifications(let list):
        state.notifications = list
        StoreEventLog.tell(list, &state)
        clampSelections(&state)
    case .finished(let outcome):
        finish(outcome, &state)
    case .failed(let message):
        state.status = "⚠ " + message
    case .storeSettled:
        if state.inFlight == 0 { return releaseWaitingKeys(&state) }
    }
    return []
}

/// A key while the store answers: it waits its turn, in order, but quitting acts at once; a click is
/// aimed at what is on screen now, and Enter or Esc typed first at the sheet that is purchasing, which
/// takes no answer (a second Enter on Confirm must not open another payment sheet once it closes).
private func hold(_ key: Key, _ state: inout AppState) -> [Effect] {
    if quits(key, state) { return handle(key, &state) }
    if case .mouse = key { return [] }
    if state.isPurchasing, state.waitingKeys.isEmpty, key == .enter || key == .escape { return [] }
    state.waitingKeys.append(key)
    return []
}

/// Whether `key` quits here: Ctrl-C anywhere, else the key map's Quit unless a field takes it as text.
private func quits(_ key: Key, _ state: AppState) -> Bool {
    if key == .control("c") { return true }
    var sheet = state.top?.view
    let typed = if case .character = key { state.isEditingFilter } else { false }
    let isText = typed || (sheet?.edit(key) ?? false)
    return !isText && KeyMap.action(for: key, in: state) == .quit
}

/// The keys that waited for the store, in order, until one of them asks the store again (the rest
/// wait for that answer to settle in turn).
private func releaseWaitingKeys(_ state: inout AppState) -> [Effect] {
    state.awaitingStore = false
    while !state.waitingKeys.isEmpty, !state.awaitingStore {
        let effects = handle(state.waitingKeys.removeFirst(), &state)
        if !effects.isEmpty { return effects }
    }
    return []
}

private func finish(_ outcome: CommandOutcome, _ state: inout AppState) {
    switch outcome {
    case .purchase(let id, let result): PaymentSheet.finish(id, result, &state)
    case .redeem(let code, let failure): RedeemSheet.finish(code: code, failure, &state)
    case .done(let message): state.status = message
    case .refused(let message, _): state.status = "⚠ " + message
    case .retention(let group, let offer): ManageSubscriptionsSheet.retention(offer, group: group, &state)
    }
}

/// Keeps the shown screen's selection inside its list after the data changed; another screen's is
/// kept in step when it is shown (counting every screen's items, the QA panel's 300 transactions
/// among them, after every read of the store was a fifth of the loop's time).
private func clampSelections(_ state: inout AppState) {
    state.clampSelection(state.screen)
}

func itemCount(_ screen: Screen, _ state: AppState) -> Int { screen.view.itemCount(state) }

private func handle(_ key: Key, _ state: inout AppState) -> [Effect] {
    if key == .control("c") { state.shouldQuit = true; return [.quit] }
    // Behind "Terminal too small" nothing is seen, so nothing acts but quitting.
    if !state.size.fits(minimumSize) {
        if key == .character("q") { state.shouldQuit = true; return [.quit] }
        return []
    }
    if case .mouse(let mouse) = key { return MouseInput.handle(mouse, &state) }
    // Text input first: typed characters belong to the field, not to the key map.
    if state.isEditingFilter, case .character(let c) = key { state.filter.insert(String(c)); clampSelections(&state); return [] }
    if state.isEditingFilter, state.filter.handle(key) { clampSelections(&state); return [] }
    if var sheet = state.top?.view, sheet.edit(key) { state.sheets[state.sheets.count - 1] = sheet.stacked; return [] }
    guard let action = KeyMap.action(for: key, in: state) else { return [] }
    if state.top != nil { return sheetAction(action, &state) }
    if state.isEditingFilter {
        state.isEditingFilter = false
        if action == .back { state.filter.clear(); clampSelections(&state) }
        return []
    }
    return screenAction(action, &state)
}

/// The keys of every screen (tabs, help, quit, filter, restore, redeem, app info),
/// then the screen's own: movement, then its actions.
func screenAction(_ action: Action, _ state: inout AppState) -> [Effect] {
    let screen = state.screen, count = Screen.allCases.count
    switch action {
    case .nextScreen: state.screen = Screen(rawValue: (screen.rawValue + 1) % count)!
    case .previousScreen: state.screen = Screen(rawValue: (screen.rawValue + count - 1) % count)!
    case .show(let s): state.screen = s
    case .filter: state.isEditingFilter = true
    case .back: state.filter.clear(); clampSelections(&state)
    case .help: state.sheets.append(.help)
    case .quit: state.shouldQuit = true; return [.quit]
    case .restore: state.status = "Restoring purchases…"; return [.command(.restore)]
    case .redeem: state.sheets.append(.redeem(RedeemSheet()))
    case .appInfo: state.sheets.append(.appInfo)
    case .saveScenario: state.status = "Saving the session as a scenario…"; return [.saveScenario]
    case .layer: break  // a layer's own: the layer around the app takes it before the app sees it
    default:
        if screen.view.move(action, &state) { return [] }
        return screen.view.perform(action, &state)
    }
    return []
}

/// The top sheet's own action, its changed value written back unless it closed. Quit works everywhere.
func sheetAction(_ action: Action, _ state: inout AppState) -> [Effect] {
    if action == .quit { state.shouldQuit = true; return [.quit] }
    let index = state.sheets.count - 1
    if let lines = scrollLines(action, state), KeyMap.sheetScrolls(action, state) {
        state.sheetScroll = min(max(0, state.sheetScroll + lines), state.sheets[index].maxScroll(state))
        return []
    }
    var sheet = state.sheets[index].view
    let step = sheet.perform(action, &state)
    if step.closes { state.sheets.remove(at: index) } else { state.sheets[index] = sheet.stacked }
    return step.effects
}

/// How many lines a scroll action moves a sheet's body (a page: its body's height less one line kept).
private func scrollLines(_ action: Action, _ state: AppState) -> Int? {
    let page = max(1, state.top.map { $0.bodyRows(state) - 1 } ?? 1)
    switch action {
    case .up: return -1
    case .down: return 1
    case .pageUp: return -page
    case .pageDown: return page
    default: return nil
    }
}

extension Array {
    subscript(safe i: Int) -> Element? { indices.contains(i) ? self[i] : nil }
}
