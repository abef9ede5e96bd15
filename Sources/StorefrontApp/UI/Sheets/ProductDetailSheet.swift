import Foundation
import StoreCore
import TerminalUI

/// A product's terms: price, type, group and level, duration, Family Sharing, what the customer owns.
struct ProductDetailSheet: SheetView, Equatable {
    var productID: String

    var stacked: SheetState { .productDetail(self) }

    func bindings(_ state: AppState) -> [Binding] {
        KeyMap.acknowledge + [Binding(keys: [.character("v")], name: "v", label: "Product card", action: .productCard, hint: "Card")]
    }

    /// `v`: the product as a `ProductView` card, over these details.
    mutating func perform(_ action: Action, _ state: inout AppState) -> SheetStep {
        if action == .productCard { state.sheets.append(.productCard(ProductCardSheet(productID: productID))) }
        return action == .back ? .close : .stay
    }

    func lines(_ state: AppState) -> [String] {
        let t = state.words
        guard let p = state.product(productID) else { return [t(.detailNotSoldHere, ["id": productID])] }
        var lines = [p.displayName, p.description, "", t(.priceLine, ["price": t.priceWithPeriod(p)]),
                     t(.detailType, ["type": t.name(of: p.type)]), "ID: \(p.id)"]
        if let group = p.groupName, let terms = p.subscription { lines.append(t(.detailGroup, ["group": group, "level": "\(terms.level)"])) }
        if let plans = p.subscription?.billingPlans, !plans.isEmpty {
            lines += ["", t(.detailPlans)] + plans.map { "  " + Self.describe($0, p, t) }
        }
        if let terms = p.subscription { lines += Self.offers(terms, p, t) }
        if let d = p.duration { lines.append(t(.detailLasts, ["length": p.words(d)])) }
        if p.isFamilyShareable { lines.append(t(.detailFamilySharing)) }
        let mark = StoreScreen.marks(p, state).text
        // A mark that names itself ("Balance: 1") needs no "Status:" before it.
        if !mark.isEmpty { lines.append(mark.contains(":") || mark.contains("：") ? mark : t(.detailStatus, ["status": mark])) }
        let codes = state.offerCodes.filter { $0.productID == p.id }
        if !codes.isEmpty {
            lines += ["", t(.detailOfferCodes)] + codes.map { "  " + Self.describe($0, p, now: state.snapshot.now, t) }
        }
        return lines
    }

    /// The subscription's offers, by kind: "Intro offer: 1 week free, then $4.99/month",
    /// "Promotional offers:" and "Win-back offers:" with each offer's ID and terms.
    static func offers(_ terms: SubscriptionTerms, _ p: Product, _ t: StringTable) -> [String] {
        var lines = terms.introductoryOffers.map { t(.introLine, ["terms": t.offerText(p, $0)]) }
        for (heading, offers) in [(Phrase.detailPromotionalOffers, terms.promotionalOffers), (.detailWinBackOffers, terms.winBackOffers)]
        where !offers.isEmpty {
            lines += [t(heading)] + offers.map { "  " + ($0.id.map { $0 + " · " } ?? "") + t.offerText(p, $0) }
        }
        return lines.isEmpty ? [] : [""] + lines
    }

    /// "Monthly · $2.99/month, 12-month commitment · $35.88 in all" (and "not sold" for a disabled plan).
    static func describe(_ plan: BillingPlan, _ p: Product, _ t: StringTable) -> String {
        let name = t(plan.type == .monthly ? .planMonthly : .planUpFront)
        guard plan.isEnabled, let text = t.planText(p, plan.type), let total = p.commitmentText(plan.type) else {
            return "\(name) · \(t(.detailNotSold))"
        }
        return "\(name) · " + (plan.type == .monthly ? t(.detailPlanTotal, ["terms": text, "total": total]) : text)
    }

    static func words(_ who: CustomerEligibility, _ t: StringTable) -> String {
        switch who {
        case .new: t(.codeForNew)
        case .existing: t(.codeForExisting)
        case .expired: t(.codeForExpired)
        }
    }

    /// "LUMENWEEK · new customers · 1 week free" (and the reference name, when it is another way to
    /// type it); the QA panel reads it in English.
    static func describe(_ code: OfferCode, _ p: Product, now: Date, _ t: StringTable = .english) -> String {
        let who = code.eligibility.count == CustomerEligibility.allCases.count ? t(.codeForAnyone)
            : CustomerEligibility.allCases.filter(code.eligibility.contains).map { Self.words($0, t) }.joined(separator: t(.listSeparator))
        let what = code.offer.map { t.offerText(p, $0) } ?? t(.codeGrantsProduct)
        let alias = code.referenceName != code.code ? " " + t(.codeAlias, ["name": code.referenceName]) : ""
        let end = code.expires.map { " · " + t($0 <= now ? .codeExpiredOn : .codeUntil, ["date": Format.date($0)]) } ?? ""
        return "\(code.code)\(alias) · \(who) · \(what)\(end)"
    }

    func sheet(_ state: AppState, in area: Rect) -> Sheet {
        Sheet(title: state.words(.detailTitle), body: lines(state), buttons: [state.words(.okButton)], selectedButton: 0, maxTextWidth: 60)
    }
}
