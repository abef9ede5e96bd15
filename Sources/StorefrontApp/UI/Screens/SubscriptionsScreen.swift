import Foundation
import StoreClient
import StoreCore
import TerminalUI

/// Per subscription group: its state, product, renewal and billing details. Enter shows the
/// product, m opens the manage-subscriptions sheet.
enum SubscriptionsScreen: ScreenView {
    static let bindings = KeyMap.move + [
        Binding(keys: [.enter], name: "Enter", label: "Details", action: .activate),
        Binding(keys: [.character("m")], name: "m", label: "Manage subscription", action: .manageSubscriptions),
    ]

    static func summary(_ state: AppState) -> String { "Subscription status per group" }

    static func itemCount(_ state: AppState) -> Int { groups(state).count }

    static func perform(_ action: Action, _ state: inout AppState) -> [Effect] {
        let group = groups(state)[safe: state.selected(.subscriptions)]
        switch action {
        case .activate:
            // The group's current plan, else its first.
            if let id = group.flatMap({ g in state.snapshot.effectiveStatus(group: g)?.transaction.payload?.productID })
                ?? state.snapshot.products.first(where: { $0.subscription?.groupID == group })?.id {
                state.sheets.append(.productDetail(id))
            }
        case .manageSubscriptions:
            if let group { state.sheets.append(ManageSubscriptionsSheet.sheet(group: group, state)) }
        default: break
        }
        return []
    }

    /// The groups with a subscription the filter (`/`) matches, as on the store screen.
    static func groups(_ state: AppState) -> [String] {
        let query = state.filterText(.subscriptions).lowercased()
        return StoreScreen.uniqueGroups(state.snapshot.products.filter { $0.type == .autoRenewable && StoreScreen.matches($0, query) })
    }

    static func lines(_ state: AppState, width: Int, rows: Int) -> [ListView.Line] {
        let snap = state.snapshot
        var lines: [ListView.Line] = []
        for (i, group) in groups(state).enumerated() {
            if i > 0 { lines.append(ListView.Line("")) }
            let name = snap.products.first { $0.subscription?.groupID == group }?.groupName ?? group
            guard let status = snap.effectiveStatus(group: group), let t = status.transaction.payload else {
                lines.append(ListView.Line("  \(name): not subscribed", style: .bold, item: i))
                if snap.introEligibility[group] == true {
                    lines.append(ListView.Line("    Eligible for an introductory offer", style: .dim, item: i))
                }
                continue
            }
            let product = state.product(t.productID)
            lines.append(ListView.Line("  \(name): \(stateTitle(status.state))", style: .bold, item: i))
            // On a billing plan, what that plan charges ("$2.99/month, 12-month commitment").
            let terms = t.billingPlanType.flatMap { product?.planText($0) } ?? product?.priceWithPeriod ?? t.productID
            var detail = ["Product: \(product?.displayName ?? t.productID) (\(terms))"]
            if let revoked = t.revocationDate {
                // A refund ends access at once: when and why, not an expiry that no longer applies.
                let why = t.revocationReason == .developerIssue ? "an issue in the app" : "other"
                detail.append("Revoked: \(Format.dateTime(revoked, seconds: state.timeIsCompressed)) (reason: \(why))")
            } else if let expires = t.expirationDate {
                let verb = status.renewalInfo.payload?.willAutoRenew == true && status.state == .subscribed ? "Renews" : "Expires"
                detail.append("\(verb): \(Format.dateTime(expires, seconds: state.timeIsCompressed))")
            }
            if let r = status.renewalInfo.payload {
                if r.willAutoRenew {
                    let next = r.autoRenewProductID == t.productID ? "" : " to \(state.product(r.autoRenewProductID)?.displayName ?? r.autoRenewProductID)"
                    // The renewal price, when it is not the listed one (a price increase, an offer's next period).
                    let renewing = state.product(r.autoRenewProductID)
                    var at = ""
                    let plan = r.renewalBillingPlanType ?? .upFront
                    if let renewing, let milliunits = r.renewalPriceMilliunits, let period = renewing.subscription?.billingPeriod(on: plan) {
                        let per = "/" + PeriodNames.per(period, locale: renewing.locale)
                        let price = renewing.format(Decimal(milliunits) / 1000) + per
                        if price != renewing.billingPrice(on: plan).map({ renewing.format($0) + per }) { at = " at " + price }
                    }
                    detail.append("Will auto-renew: yes\(next)\(at)")
                } else {
                    detail.append("Will auto-renew: no")
                }
                if let reason = r.expirationReason { detail.append("Expiration reason: \(reason.name)") }
                if let p = r.priceIncreaseStatus {
                    detail.append("Price increase: \(p == .agreed ? "agreed" : "awaiting consent")")
                }
                if r.isInBillingRetry { detail.append("In billing retry") }
                if let grace = r.gracePeriodExpirationDate { detail.append("Grace period ends: \(Format.dateTime(grace, seconds: state.timeIsCompressed))") }
                if !r.eligibleWinBackOfferIDs.isEmpty {
                    detail.append("Win-back offers: " + r.eligibleWinBackOfferIDs.joined(separator: ", "))
                }
            }
            if let offer = t.offerType { detail.append("Offer: \(Self.words(offer))" + (t.offerID.map { " \($0)" } ?? "")) }
            if let error = status.transaction.error { detail.append("⚠ Unverified: \(error.rawValue)") }
            lines += detail.map { ListView.Line("    " + $0, item: i) }
        }
        if lines.isEmpty {
            lines.append(ListView.Line(state.filterText(.subscriptions).isEmpty ? "This catalog has no auto-renewable subscriptions."
                                                                     : "No subscription groups match “\(state.filterText(.subscriptions))”."))
        }
        return lines
    }

    static func stateTitle(_ s: SubscriptionState) -> String {
        switch s {
        case .subscribed: "Subscribed"
        case .expired: "Expired"
        case .inBillingRetryPeriod: "In billing retry"
        case .inGracePeriod: "In grace period"
        case .revoked: "Revoked"
        }
    }

    /// An offer's kind as the customer reads it ("win-back offer", not `winBack`).
    static func words(_ offer: OfferType) -> String {
        switch offer {
        case .introductory: "introductory offer"
        case .promotional: "promotional offer"
        case .code: "offer code"
        case .winBack: "win-back offer"
        }
    }
}
