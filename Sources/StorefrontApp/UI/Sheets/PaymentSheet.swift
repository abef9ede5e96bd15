import Foundation
import StoreClient
import StoreCore
import StoreEngine
import TerminalUI

/// The App Store's purchase confirmation: what is bought, for how much, on which terms. Its value
/// is the customer's choices before Confirm.
struct PaymentSheet: SheetView, Equatable {
    enum Offer: Sendable, Equatable {
        case none, promotional(String), winBack(String)
        /// `introductory`: what no chosen offer means for this customer (the intro offer they are eligible for).
        func label(introductory: Bool, _ t: StringTable) -> String {
            switch self {
            case .none: t(introductory ? .choiceIntroductory : .choiceRegular)
            case .promotional(let id): t(.choicePromotional, ["id": id])
            case .winBack(let id): t(.choiceWinBack, ["id": id])
            }
        }
    }
    var productID: String
    /// Only consumables are bought several at a time.
    var allowsQuantity = false
    var quantity = 1
    /// The offers of the chosen billing plan.
    var offers: [Offer] = [.none]
    var offerIndex = 0
    /// The billing plans a subscription is sold on, up front first (StoreKit's default).
    var plans: [BillingPlanType] = [.upFront]
    var planIndex = 0
    /// 0 = Confirm, 1 = Cancel.
    var button = 0
    /// Confirmed and waiting for the store: a spinner shows; further keys wait for the outcome (see `hold` in Reducer.swift).
    var isPurchasing = false
    /// StoreKit's limit for a quantity in one purchase (a consumable's, a non-renewing subscription's), as the payment sheet offers it.
    static let maximumQuantity = ProductType.consumable.maximumQuantity
    /// The customer had the product when they confirmed: the store gives it back at no charge.
    var wasAlreadyPurchased = false
    /// A file holding what the team's server signed for the promotional offer (`s`); nil: the local store signs.
    var signatureFile: String?
    var offer: Offer { offers[min(offerIndex, offers.count - 1)] }
    var plan: BillingPlanType { plans[min(planIndex, plans.count - 1)] }

    var stacked: SheetState { .payment(self) }

    func bindings(_ state: AppState) -> [Binding] {
        // While the store answers, nothing on the sheet works (StoreKit's sheet cannot be dismissed either).
        if isPurchasing { return [Binding(keys: [.character("q"), .control("c")], name: "q", label: "Quit", action: .quit)] }
        var b = [Binding(keys: [.enter], name: "Enter", label: button == 0 ? "Confirm" : "Cancel", action: .activate),
                 Binding(keys: [.escape], name: "Esc", label: "Cancel", action: .back),
                 Binding(keys: [.left, .right, .tab], name: "←→", label: "Button", action: .right)]
        if offers.count > 1 { b.append(Binding(keys: [.character("o")], name: "o", label: "Offer", action: .nextOffer)) }
        if plans.count > 1 { b.append(Binding(keys: [.character("b")], name: "b", label: "Plan", action: .nextPlan)) }
        if case .promotional = offer { b.append(Binding(keys: [.character("s")], name: "s", label: "Signature…", action: .offerSignature)) }
        guard allowsQuantity else { return b }
        return b + [Binding(keys: [.character("+"), .character("=")], name: "+", label: "More", action: .increment),
                    Binding(keys: [.character("-")], name: "-", label: "Fewer", action: .decrement)]
    }

    mutating func perform(_ action: Action, _ state: inout AppState) -> SheetStep {
        switch action {
        case .increment:
            if quantity == Self.maximumQuantity { state.status = "At most \(Self.maximumQuantity) in one purchase" }
            quantity = min(Self.maximumQuantity, quantity + 1)
        case .decrement:
            if quantity == 1 { state.status = "At least 1 in a purchase" }
            quantity = max(1, quantity - 1)
        case .nextOffer: offerIndex = (offerIndex + 1) % offers.count
        case .nextPlan: choose(plan: (planIndex + 1) % plans.count, state)
        case .offerSignature: state.sheets.append(.offerSignature(OfferSignatureSheet(current: signatureFile)))
        case .left, .right: button = 1 - button
        case .back: return pay(.cancel, &state)
        case .activate: return pay(button == 0 ? .confirm : .cancel, &state)
        default: break
        }
        return .stay
    }

    /// Confirm or cancel: both go to the store, as StoreKit reports a cancel too.
    private mutating func pay(_ answer: PaymentSheetAnswer, _ state: inout AppState) -> SheetStep {
        guard !isPurchasing else { return .stay }
        let offerID: String? = switch offer {
        case .none: nil
        case .promotional(let id), .winBack(let id): id  // the performer signs a promotional offer
        }
        isPurchasing = answer == .confirm
        // Keys typed while it is purchasing (a tester's `3` for the history) act once the outcome and
        // what it changed are shown, as a QA control's do, rather than going to a sheet that takes none.
        if isPurchasing { state.awaitingStore = true }
        wasAlreadyPurchased = state.product(productID).flatMap { Self.alreadyPurchased($0, state) } != nil
        let signature: StoreCommand.OfferSignature = if case .promotional = offer, let signatureFile { .file(signatureFile) } else { .valid }
        let buy = StoreCommand.buy(productID, quantity: quantity, offer: offerID, signature: signature, askToBuy: false, plan: plan, answer: answer)
        return SheetStep(effects: [.command(buy)], closes: answer == .cancel)
    }

    func body(_ state: AppState) -> [String] {
        let t = state.words
        guard let p = state.product(productID) else { return [t(.unavailable)] }
        var lines = [p.displayName, p.description, ""]
        let account = ["", t(.account, ["account": t(.localTester), "environment": state.settings.environment.rawValue])]
            + (isPurchasing ? ["", Spinner.frame(state.tick) + " " + t(.purchasing)] : [])
        if let notice = Self.alreadyPurchased(p, state) { return lines + [notice] + account }
        let intro = p.subscription.flatMap { state.snapshot.introEligibility[$0.groupID] == true ? $0.introductoryOffer(on: plan) : nil }
        let introductory = intro != nil
        if let terms = p.subscription {
            if plans.count > 1 { lines.append(t(.billingPlan, ["plan": t(plan == .monthly ? .planMonthly : .planUpFront)])) }
            switch offer {
            case .promotional(let id), .winBack(let id):
                if let offer = terms.offer(id: id) { lines.append(t(.offerLine, ["terms": t.offerText(p, offer)])) }
                if case .promotional = self.offer {
                    lines.append(signatureFile.map { t(.signatureFile, ["file": $0]) } ?? t(.signatureLocal))
                }
            case .none:
                if let intro {
                    lines.append(t(.introLine, ["terms": t.offerText(p, intro)]))
                } else {
                    lines.append(t(.priceLine, ["price": t.planText(p, plan) ?? t.priceWithPeriod(p)]))
                }
            }
            if plan == .monthly, let total = p.commitmentText(plan) { lines.append(t(.commitment, ["total": total])) }
            lines.append(t(.renewsAutomatically))
        } else if let duration = p.duration {
            lines.append(t(.priceNonRenewingFor, ["price": p.displayPrice, "length": p.words(duration)]))
        } else if p.type == .nonRenewing {
            lines.append(t(.priceNonRenewing, ["price": p.displayPrice]))
        } else if p.type == .consumable {
            let total = p.format(p.price * Decimal(quantity))
            lines.append(t(.priceConsumable, ["price": p.displayPrice, "quantity": "\(quantity)", "total": total]))
        } else {
            lines.append(t(.priceOneTime, ["price": p.displayPrice]))
        }
        if offers.count > 1 { lines.append(t(.offerChoice, ["offer": offer.label(introductory: introductory, t)])) }
        return lines + account
    }

    func sheet(_ state: AppState, in area: Rect) -> Sheet {
        let t = state.words
        let confirm = t(state.product(productID)?.type == .autoRenewable ? .subscribeButton : .buyButton)
        return Sheet(title: "App Store", body: body(state), buttons: isPurchasing ? [] : [confirm, t(.cancelButton)],
              selectedButton: button, maxTextWidth: 56, alternativeBodies: otherOfferChoices(state))
    }

    /// The body for every other offer and plan choice: cycling them must not resize the sheet under the customer's eyes.
    func otherOfferChoices(_ state: AppState) -> [[String]] {
        var bodies = offers.indices.filter { $0 != offerIndex }.map { index in
            var choice = self
            choice.offerIndex = index
            return choice.body(state)
        }
        for index in plans.indices where index != planIndex {
            var choice = self
            choice.choose(plan: index, state)
            bodies += choice.offers.indices.map { offer in
                var each = choice
                each.offerIndex = offer
                return each.body(state)
            }
        }
        return bodies
    }

    /// Another billing plan: its own offers, none chosen yet.
    mutating func choose(plan index: Int, _ state: AppState) {
        planIndex = index
        offers = state.product(productID).map { Self.offers(for: $0, state, on: plan) } ?? [.none]
        offerIndex = 0
    }

    /// The offers a customer may choose for a product on a billing plan: none, then its promotional
    /// offers, then the win-back offers they are eligible for, each only on its own plan.
    static func offers(for product: Product, _ state: AppState, on plan: BillingPlanType) -> [Offer] {
        guard let terms = product.subscription else { return [.none] }
        return [.none] + terms.promotionalOffers.filter { $0.billingPlan == plan }.compactMap(\.id).map(Offer.promotional)
            + StoreScreen.winBackOffers(product, state).filter { $0.billingPlan == plan }.compactMap(\.id).map(Offer.winBack)
    }

    /// What the App Store says, before Confirm, when the customer already has the product: buying
    /// it again charges nothing and gives back the purchase they have. Nil for a new purchase.
    static func alreadyPurchased(_ p: Product, _ state: AppState) -> String? {
        switch p.type {
        case .nonConsumable where state.snapshot.entitlements.contains(p.id):
            return state.words(.alreadyPurchased)
        case .autoRenewable:
            let statuses = p.subscription.flatMap { state.snapshot.subscriptionStatuses[$0.groupID] } ?? []
            let subscribed = statuses.first { status in
                status.state != .expired && status.state != .revoked
                    && status.transaction.payload.map { $0.productID == p.id && $0.ownership == .purchased } == true
            }
            guard let subscribed else { return nil }
            // Cancelled but not yet ended: confirming resubscribes (auto-renew back on), as the App Store does.
            if subscribed.renewalInfo.payload?.willAutoRenew == false, let end = subscribed.transaction.payload?.expirationDate {
                return state.words(.resubscribeNotice, ["date": Format.date(end)])
            }
            return state.words(.alreadySubscribed)
        default:
            return nil
        }
    }

    /// The store's answer: the sheet goes, and the outcome shows in the status line or a message
    /// (the store's event saying the same is not told again: see `AppEvent.answersACall`).
    static func finish(_ productID: String, _ result: PurchaseResult, _ state: inout AppState) {
        let owned = state.sheets.contains { if case .payment(let sheet) = $0 { sheet.wasAlreadyPurchased } else { false } }
        state.sheets.removeAll { if case .payment = $0 { true } else { false } }
        let name = state.product(productID)?.displayName ?? productID
        let t = state.words
        switch result {
        case .success(let v) where v.isVerified && owned:
            state.status = "Already yours: \(name), at no charge"
        case .success(let v) where v.isVerified:
            let quantity = v.payload?.quantity ?? 1
            state.status = quantity > 1 ? "Purchased \(quantity) × \(name)" : "Purchased \(name)"
        case .success(let v):
            state.sheets.append(.message(title: t(.unverifiedTitle), text: t(.unverifiedText, ["name": name, "error": v.error?.rawValue ?? "?"])))
        case .userCancelled:
            state.status = "Purchase cancelled"
        case .pending(.askToBuy):
            state.sheets.append(.message(title: t(.waitingTitle), text: t(.waitingText, ["name": name])))
        case .pending(.interrupted):
            state.sheets.append(.message(title: t(.interruptedTitle), text: t(.interruptedText, ["name": name])))
        case .failed(let failure):
            state.sheets.append(.message(title: t(.purchaseFailedTitle), text: t.message(for: failure)))
        }
    }
}

/// The payment sheet's starting choices: offers the customer may use for this product.
func draft(for product: Product, _ state: AppState) -> PaymentSheet {
    var draft = PaymentSheet(productID: product.id, allowsQuantity: product.type.maximumQuantity > 1)
    if let terms = product.subscription {
        let plans = BillingPlanType.allCases.filter { terms.billingPlan($0) != nil }
        draft.plans = plans.isEmpty ? [.upFront] : plans
    }
    draft.offers = PaymentSheet.offers(for: product, state, on: draft.plan)
    // The win-back offer the Store's row advertises is the one the sheet opens on.
    draft.offerIndex = draft.offers.firstIndex { if case .winBack = $0 { true } else { false } } ?? 0
    return draft
}

/// What the App Store puts before the customer when the app is quiet and nothing else is on screen (no
/// purchase in flight, no typing, no demo driving): its messages, then purchases begun on the App Store.
func presentWaitingSheets(_ state: inout AppState) {
    StoreMessages.present(&state)
    PaymentSheet.presentPurchaseIntent(&state)
}

extension PaymentSheet {
    /// A purchase the customer began on the App Store: the app completes it on its payment sheet, with the
    /// offer the customer chose there (one the customer may not use is left for the sheet's default).
    static func presentPurchaseIntent(_ state: inout AppState) {
        guard state.top == nil, !state.layering.drives, StoreMessages.isQuiet(state), !state.purchaseIntents.isEmpty else { return }
        let intent = state.purchaseIntents.removeFirst()
        guard let product = state.product(intent.productID) else { return }
        var sheet = draft(for: product, state)
        if let offer = intent.offerID, let index = sheet.offers.firstIndex(where: { $0 == .promotional(offer) || $0 == .winBack(offer) }) {
            sheet.offerIndex = index
        }
        state.sheets.append(.payment(sheet))
    }
}
