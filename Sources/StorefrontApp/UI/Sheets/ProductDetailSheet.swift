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
        guard let p = state.product(productID) else { return ["Product \(productID) is not sold in this storefront."] }
        var lines = [p.displayName, p.description, "", "Price: \(p.priceWithPeriod)", "Type: \(p.type.signedName)", "ID: \(p.id)"]
        if let group = p.groupName, let terms = p.subscription { lines.append("Group: \(group), level \(terms.level)") }
        if let plans = p.subscription?.billingPlans, !plans.isEmpty {
            lines += ["", "Billing plans (b on the payment sheet):"] + plans.map { "  " + Self.describe($0, p) }
        }
        if let terms = p.subscription { lines += Self.offers(terms, p) }
        if let d = p.duration { lines.append("Lasts: \(p.words(d))") }
        if p.isFamilyShareable { lines.append("Family Sharing: yes") }
        let mark = StoreScreen.marks(p, state).text
        // A mark that names itself ("Balance: 1") needs no "Status:" before it.
        if !mark.isEmpty { lines.append(mark.contains(":") ? mark : "Status: \(mark)") }
        let codes = state.offerCodes.filter { $0.productID == p.id }
        if !codes.isEmpty { lines += ["", "Offer codes (redeem with c):"] + codes.map { "  " + Self.describe($0, p, now: state.snapshot.now) } }
        return lines
    }

    /// The subscription's offers, by kind: "Introductory offer: 1 week free, then $4.99/month",
    /// "Promotional offers:" and "Win-back offers:" with each offer's ID and terms.
    static func offers(_ terms: SubscriptionTerms, _ p: Product) -> [String] {
        var lines = terms.introductoryOffers.map { "Introductory offer: " + p.offerText($0) }
        for (kind, offers) in [("Promotional offers", terms.promotionalOffers), ("Win-back offers", terms.winBackOffers)] where !offers.isEmpty {
            lines += ["\(kind):"] + offers.map { "  " + ($0.id.map { $0 + " · " } ?? "") + p.offerText($0) }
        }
        return lines.isEmpty ? [] : [""] + lines
    }

    /// "Monthly · $2.99/month, 12-month commitment · $35.88 in all" (and "not sold" for a disabled plan).
    static func describe(_ plan: BillingPlan, _ p: Product) -> String {
        let name = plan.type == .monthly ? "Monthly" : "Up front"
        guard plan.isEnabled, let text = p.planText(plan.type), let total = p.commitmentText(plan.type) else { return "\(name) · not sold" }
        return plan.type == .monthly ? "\(name) · \(text) · \(total) in all" : "\(name) · \(text)"
    }

    static func words(_ who: CustomerEligibility) -> String {
        switch who {
        case .new: "new customers"
        case .existing: "subscribers"
        case .expired: "lapsed subscribers"
        }
    }

    /// "LUMENWEEK · new customers · 1 week free" (and the reference name, when it is another way to type it).
    static func describe(_ code: OfferCode, _ p: Product, now: Date) -> String {
        let who = code.eligibility.count == CustomerEligibility.allCases.count ? "anyone"
            : CustomerEligibility.allCases.filter(code.eligibility.contains).map(Self.words).joined(separator: ", ")
        let what = code.offer.map(p.offerText) ?? "the product, free"
        let alias = code.referenceName != code.code ? " (or \(code.referenceName))" : ""
        let end = code.expires.map { ($0 <= now ? " · expired " : " · until ") + Format.date($0) } ?? ""
        return "\(code.code)\(alias) · \(who) · \(what)\(end)"
    }

    func sheet(_ state: AppState, in area: Rect) -> Sheet {
        Sheet(title: "Product", body: lines(state), buttons: ["OK"], selectedButton: 0, maxTextWidth: 60)
    }
}
