import Foundation
import StoreClient
import StoreCore
import TerminalUI

/// `SubscriptionStoreView` for one subscription group: the group's marketing content above its plans,
/// the plans in a control style (`s` switches it live), each with the offer this customer gets, for a
/// subscriber what changing plan means (`SubscriptionOfferView`), then Subscribe, Restore Purchases,
/// Redeem Code and the policy links. Subscribe opens the same payment sheet as the Store screen.
struct PaywallSheet: SheetView, Equatable {
    var groupID: String
    var style: PaywallStyle
    /// The chosen plan, an index into `plans`.
    var selected = 0
    /// 0 Subscribe, 1 Restore Purchases, 2 Redeem Code.
    var button = 0

    var stacked: SheetState { .paywall(self) }

    func bindings(_ state: AppState) -> [Binding] {
        // Key hints are the tester's chrome, in English like every screen's (docs/languages.md).
        let t = StringTable.english
        return [Binding(keys: [.enter], name: "Enter", label: Self.buttons(t)[button], action: .activate),
         Binding(keys: [.up, .character("k")], name: "↑↓", label: "Previous plan", action: .up, hint: "Plan"),
         Binding(keys: [.down, .character("j")], name: "↓", label: "Next plan", action: .down, footer: false),
         Binding(keys: [.left, .right, .tab], name: "←→", label: "Button", action: .right),
         Binding(keys: [.character("s")], name: "s", label: "Control style", action: .nextStyle, hint: "Style"),
         // Also what a click on `[ Subscribe ]` finds, whichever button Enter presses.
         Binding(keys: [.character("u")], name: "u", label: t(.paywallSubscribe), action: .confirm, footer: false),
         Binding(keys: [.character("r")], name: "r", label: t(.restorePurchases), action: .restore, footer: false),
         Binding(keys: [.character("c")], name: "c", label: t(.redeemCode), action: .redeem, footer: false),
         KeyMap.close,
         Binding(keys: [.character("q"), .control("c")], name: "q", label: "Quit", action: .quit)]
    }

    mutating func perform(_ action: Action, _ state: inout AppState) -> SheetStep {
        let count = Self.plans(groupID, state).count
        switch action {
        case .up: selected = max(0, selected - 1)
        case .down: selected = min(max(0, count - 1), selected + 1)
        case .left: button = (button + 2) % 3
        case .right: button = (button + 1) % 3
        case .nextStyle:
            style = style.next
            state.paywallStyle = style
            state.status = "Control style: \(style.title)"
        case .confirm: subscribe(&state)
        case .restore: return Self.restore(&state)
        case .redeem: state.sheets.append(.redeem(RedeemSheet()))
        case .activate:
            switch button {
            case 0: subscribe(&state)
            case 1: return Self.restore(&state)
            default: state.sheets.append(.redeem(RedeemSheet()))
            }
        case .back: return .close
        default: break
        }
        return .stay
    }

    /// The payment sheet for the chosen plan, on the offer the paywall showed for it.
    private func subscribe(_ state: inout AppState) {
        guard let plan = Self.plans(groupID, state)[safe: selected] else { return }
        var sheet = draft(for: plan, state)
        if let offer = Self.activeOffer(plan, state), let index = sheet.offers.firstIndex(of: offer.choice) { sheet.offerIndex = index }
        state.sheets.append(.payment(sheet))
    }

    static func restore(_ state: inout AppState) -> SheetStep {
        state.status = "Restoring purchases…"
        return SheetStep(effects: [.command(.restore)])
    }

    /// The group's products sold here, highest service level first (the store's order).
    static func plans(_ groupID: String, _ state: AppState) -> [Product] {
        state.catalogProducts.filter { $0.subscription?.groupID == groupID }
    }

    /// The offer StoreKit applies when this customer subscribes to `p` (`activeOffer`): the introductory
    /// offer while eligible, else a win-back offer the renewal info names, else, for someone who has
    /// subscribed in the group, its first promotional offer. Up front: the plan a paywall sells.
    static func activeOffer(_ p: Product, _ state: AppState) -> (choice: PaymentSheet.Offer, terms: SubscriptionOffer)? {
        guard let terms = p.subscription else { return nil }
        if state.snapshot.introEligibility[terms.groupID] == true, let intro = terms.introductoryOffer { return (.none, intro) }
        if let winBack = StoreScreen.winBackOffers(p, state).first(where: { $0.billingPlan == .upFront }), let id = winBack.id {
            return (.winBack(id), winBack)
        }
        let subscribedBefore = state.snapshot.subscriptionStatuses[terms.groupID]?.isEmpty == false
        if subscribedBefore, let promotional = terms.promotionalOffers.first(where: { $0.billingPlan == .upFront }), let id = promotional.id {
            return (.promotional(id), promotional)
        }
        return nil
    }

    func sheet(_ state: AppState, in area: Rect) -> Sheet {
        let width = max(20, min(72, area.width - 4))
        let plans = Self.plans(groupID, state)
        var body = marketing(state) + subscriberOffer(plans, state)
        let first = body.count
        let planLines = plans.isEmpty ? PaywallLayout.Lines(paragraphs: [state.words(.noPlans)]) : PaywallLayout.plans(plans, style: style.resolved, selected: selected, width: width, state)
        body += planLines.paragraphs
        let t = state.words
        body += [t(.paywallRenewsNote), t(.linkLine, ["label": t(.termsOfService), "url": state.termsOfServiceURL ?? PaywallText.standardEULA])]
        if let privacy = state.privacyPolicyURL { body.append(t(.linkLine, ["label": t(.privacyPolicy), "url": privacy])) }
        let title = (plans.first?.groupName ?? groupID) + " · " + style.title
        return Sheet(title: title, body: body, buttons: Self.buttons(t),
                     selectedButton: button, selectedParagraph: planLines.selected.map { first + $0 }, maxTextWidth: width,
                     // As wide as it may be in every style, so switching styles never resizes it.
                     alternativeBodies: [[String(repeating: "\u{00A0}", count: width)]])
    }

    /// Subscribe, Restore Purchases, Redeem Code: the sheet's buttons, as `button` counts them.
    static func buttons(_ t: StringTable) -> [String] { [t(.paywallSubscribe), t(.restorePurchases), t(.redeemCode)] }

    /// The group's marketing content in the customer's locale: headline, text and features.
    private func marketing(_ state: AppState) -> [String] {
        guard let content = state.groups.first(where: { $0.id == groupID })?.marketing(for: state.snapshot.locale) else { return [] }
        return [content.headline] + (content.text.isEmpty ? [] : [content.text]) + content.features.map { "• " + $0 } + [""]
    }

    /// `SubscriptionOfferView` for a subscriber: their plan, and what choosing the selected one would do.
    private func subscriberOffer(_ plans: [Product], _ state: AppState) -> [String] {
        guard let status = state.snapshot.effectiveStatus(group: groupID), status.state.grantsAccess,
              let current = status.transaction.payload, let currentPlan = state.product(current.productID),
              let currentTerms = currentPlan.subscription else { return [] }
        let t = state.words
        var lines = [t(.subscribedTo, ["name": currentPlan.displayName])]
        if let chosen = plans[safe: selected], chosen.id != currentPlan.id, let terms = chosen.subscription {
            let renewal = Format.date(status.renewalInfo.payload?.renewalDate ?? current.expirationDate ?? state.snapshot.now)
            lines.append(t.change(PlanChangeKind(from: currentTerms, to: terms), to: chosen, renewal: renewal))
        }
        return lines + [""]
    }
}
