import Foundation
import StoreClient
import StoreCore
import StoreEngine
import TerminalUI

/// StoreKit's `Message` (`Message.messages`): what the App Store shows over a running app — asking
/// consent to a price increase, a billing issue, a win-back offer. Each is shown once a launch, when
/// no other sheet is up (not while a layer drives the app, as a demo does: its keys are planned); "Not Now" leaves it until the
/// next launch, as an app deferring a message does.
struct StoreMessageSheet: SheetView, Equatable {
    enum Reason: String, Sendable { case priceIncreaseConsent, billingIssue, winBackOffer }

    var reason: Reason
    /// The subscription (and offer) it is about, so each is shown once: kept in `AppState.messagesShown`.
    var key: String
    var productID: String
    var transactionID: Int64
    var lines: [String]
    var primary: String
    var winBackOfferID: String?
    /// 0: the primary button; 1: Not Now, where it opens: what Enter does unseen is the safe choice,
    /// and accepting (a price increase, say) takes a deliberate ← first.
    var button = 1

    var stacked: SheetState { .storeMessage(self) }

    func bindings(_ state: AppState) -> [Binding] {
        [Binding(keys: [.enter], name: "Enter", label: button == 0 ? primary : state.words(.notNowButton), action: .activate),
         Binding(keys: [.left, .right, .tab], name: "←→", label: "Button", action: .right),
         Binding(keys: [.escape], name: "Esc", label: "Not Now", action: .back)]
    }

    mutating func perform(_ action: Action, _ state: inout AppState) -> SheetStep {
        switch action {
        case .right: button = 1 - button; return .stay
        case .activate where button == 0: return act(&state)
        case .activate, .back:
            state.status = "Not now: the App Store asks again at the next launch"
            return .close
        default: return .stay
        }
    }

    /// The primary button: what the customer does from the message.
    private func act(_ state: inout AppState) -> SheetStep {
        switch reason {
        case .priceIncreaseConsent:
            return SheetStep(effects: [.command(.control(.priceIncrease(.agree), .id(transactionID)))], closes: true)
        case .billingIssue:
            return SheetStep(effects: [.command(.control(.fixBilling, .id(transactionID)))], closes: true)
        case .winBackOffer:
            // The offer on the payment sheet, as the App Store's win-back sheet leads to it.
            guard let product = state.product(productID) else { return .close }
            var sheet = draft(for: product, state)
            sheet.offerIndex = sheet.offers.firstIndex(of: .winBack(winBackOfferID ?? "")) ?? 0
            state.sheets.append(.payment(sheet))
            return .close
        }
    }

    func sheet(_ state: AppState, in area: Rect) -> Sheet {
        // What the message says now: a billing issue that moved from grace into retry no longer keeps access.
        let body = StoreMessages.pending(state).first { $0.key == key }?.lines ?? lines
        return Sheet(title: "App Store", body: body, buttons: [primary, state.words(.notNowButton)], selectedButton: button, maxTextWidth: 56)
    }
}

/// Which messages the App Store has for the customer now, from the app's own view of its subscriptions.
enum StoreMessages {
    static func pending(_ state: AppState) -> [StoreMessageSheet] {
        state.snapshot.subscriptionStatuses.values.joined().compactMap { status in
            guard let t = status.transaction.payload, let info = status.renewalInfo.payload, let product = state.product(t.productID),
                  let message = StoreMessage.for(status.state, transaction: t, renewalInfo: info,
                                                 winBackOfferIDs: product.subscription?.winBackOffers.compactMap(\.id) ?? []) else { return nil }
            return sheet(message, status.state, t, info, product, state.words)
        }.sorted { $0.key < $1.key }
    }

    /// The message's sheet: what it says in the customer's words.
    private static func sheet(_ message: StoreMessage, _ state: SubscriptionState, _ tx: TransactionPayload, _ info: RenewalInfoPayload,
                              _ product: Product, _ t: StringTable) -> StoreMessageSheet? {
        let name = product.displayName
        func sheet(_ lines: [String], _ primary: Phrase) -> StoreMessageSheet {
            StoreMessageSheet(reason: StoreMessageSheet.Reason(rawValue: message.reason.rawValue)!, key: message.key, productID: tx.productID,
                              transactionID: tx.transactionID, lines: lines, primary: t(primary), winBackOfferID: message.winBackOfferID)
        }
        switch message.reason {
        case .priceIncreaseConsent:
            guard let period = product.subscription?.period else { return nil }
            let new = info.renewalPriceMilliunits.map { t.per(period, product.format(Decimal($0) / 1000), product) } ?? t.priceWithPeriod(product)
            // What it renews at now: the last renewal's price, unless an offer discounted it (a trial is not a price).
            let old = t.per(period, product.format(tx.offerType == nil ? tx.price : product.price), product)
            let date = info.renewalDate.map(Format.date) ?? t(.nextRenewal)
            return sheet([t(.priceIncreaseTitle), "", t(.priceIncreaseText, ["name": name, "new": new, "old": old]),
                          t(.priceIncreaseConsent, ["date": date])], .agreeButton)
        case .billingIssue:
            return sheet([t(.billingTitle), "", t(state == .inGracePeriod ? .billingTextGrace : .billingText, ["name": name])], .updatePaymentButton)
        case .winBackOffer:
            guard let offer = product.subscription?.winBackOffers.first(where: { $0.id == message.winBackOfferID }) else { return nil }
            return sheet([t(.comeBackTitle, ["name": name]), "", t(.offerForYou, ["terms": t.offerText(product, offer)])], .redeemButton)
        }
    }

    /// Quarter-second ticks without a key before a message opens: keys typed before it appeared
    /// (fourteen ← on a QA row) must not answer it.
    static let quietTicks = 4

    /// Whether the tester has paused: no key for a second, none waiting for the store, nothing in flight.
    static func isQuiet(_ state: AppState) -> Bool {
        state.isSettled && state.lastKeyTick.map { state.tick - $0 >= quietTicks } ?? true
    }

    /// Shows the first message not yet shown this launch, when nothing else is on screen and typing paused.
    static func present(_ state: inout AppState) {
        guard state.top == nil, !state.layering.drives, isQuiet(state),
              let message = pending(state).first(where: { !state.messagesShown.contains($0.key) }) else { return }
        state.messagesShown.insert(message.key)
        state.sheets.append(.storeMessage(message))
    }
}
