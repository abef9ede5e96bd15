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
        let snap = state.snapshot, t = state.words
        var lines: [ListView.Line] = []
        for (i, group) in groups(state).enumerated() {
            if i > 0 { lines.append(ListView.Line("")) }
            let name = snap.products.first { $0.subscription?.groupID == group }?.groupName ?? group
            guard let status = snap.effectiveStatus(group: group), status.transaction.payload != nil else {
                lines.append(ListView.Line("  " + t(.notSubscribed, ["group": name]), style: .bold, item: i))
                if snap.introEligibility[group] == true {
                    lines.append(ListView.Line("    " + t(.eligibleForIntro), style: .dim, item: i))
                }
                continue
            }
            lines.append(ListView.Line("  " + t(.groupState, ["group": name, "state": stateTitle(status.state, t)]), style: .bold, item: i))
            lines += details(status, state).map { ListView.Line("    " + $0, item: i) }
        }
        if lines.isEmpty {
            lines.append(ListView.Line(state.filterText(.subscriptions).isEmpty ? "This catalog has no auto-renewable subscriptions."
                                                                     : "No subscription groups match “\(state.filterText(.subscriptions))”."))
        }
        return lines
    }

    /// A subscription's product, its end or renewal, and its renewal info, one line each.
    static func details(_ status: SubscriptionStatus, _ state: AppState) -> [String] {
        guard let tx = status.transaction.payload else { return [] }
        let t = state.words
        let product = state.product(tx.productID)
        // On a billing plan, what that plan charges ("$2.99/month, 12-month commitment").
        let terms = product.map { p in tx.billingPlanType.flatMap { t.planText(p, $0) } ?? t.priceWithPeriod(p) } ?? tx.productID
        var detail = [t(.productLine, ["name": product?.displayName ?? tx.productID, "terms": terms])]
        if let revoked = tx.revocationDate {
            // A refund ends access at once: when and why, not an expiry that no longer applies.
            let why = t(tx.revocationReason == .developerIssue ? .reasonAppIssue : .reasonOther)
            detail.append(t(.revokedLine, ["date": Format.dateTime(revoked, seconds: state.timeIsCompressed), "reason": why]))
        } else if let expires = tx.expirationDate {
            let renews = status.renewalInfo.payload?.willAutoRenew == true && status.state == .subscribed
            detail.append(t(renews ? .renewsLine : .expiresLine, ["date": Format.dateTime(expires, seconds: state.timeIsCompressed)]))
        }
        if let r = status.renewalInfo.payload { detail += renewal(r, tx, state) }
        if let offer = tx.offerType {
            detail.append(tx.offerID.map { t(.offerUsedID, ["kind": words(offer, t), "id": $0]) } ?? t(.offerUsed, ["kind": words(offer, t)]))
        }
        if let error = status.transaction.error { detail.append("⚠ Unverified: \(error.rawValue)") }
        return detail
    }

    /// What the renewal info says: whether and to what it renews, at what price, and why it ended.
    static func renewal(_ r: RenewalInfoPayload, _ tx: TransactionPayload, _ state: AppState) -> [String] {
        let t = state.words
        var detail: [String] = []
        if r.willAutoRenew {
            let next = r.autoRenewProductID == tx.productID ? nil : state.product(r.autoRenewProductID)?.displayName ?? r.autoRenewProductID
            // The renewal price, when it is not the listed one (a price increase, an offer's next period).
            let renewing = state.product(r.autoRenewProductID)
            var at: String?
            let plan = r.renewalBillingPlanType ?? .upFront
            if let renewing, let milliunits = r.renewalPriceMilliunits, let period = renewing.subscription?.billingPeriod(on: plan) {
                let price = t.per(period, renewing.format(Decimal(milliunits) / 1000), renewing)
                if price != renewing.billingPrice(on: plan).map({ t.per(period, renewing.format($0), renewing) }) { at = price }
            }
            switch (next, at) {
            case (nil, nil): detail.append(t(.autoRenewYes))
            case (let name?, nil): detail.append(t(.autoRenewTo, ["name": name]))
            case (nil, let price?): detail.append(t(.autoRenewAt, ["price": price]))
            case (let name?, let price?): detail.append(t(.autoRenewToAt, ["name": name, "price": price]))
            }
        } else {
            detail.append(t(.autoRenewNo))
        }
        if let reason = r.expirationReason { detail.append(t(.expirationReasonLine, ["reason": words(reason, t)])) }
        if let p = r.priceIncreaseStatus { detail.append(t(p == .agreed ? .priceIncreaseAgreed : .priceIncreaseAwaiting)) }
        if r.isInBillingRetry { detail.append(t(.inBillingRetry)) }
        if let grace = r.gracePeriodExpirationDate {
            detail.append(t(.graceEnds, ["date": Format.dateTime(grace, seconds: state.timeIsCompressed)]))
        }
        if !r.eligibleWinBackOfferIDs.isEmpty { detail.append(t(.winBackOffers, ["ids": r.eligibleWinBackOfferIDs.joined(separator: ", ")])) }
        return detail
    }

    static func stateTitle(_ s: SubscriptionState, _ t: StringTable) -> String {
        switch s {
        case .subscribed: t(.stateSubscribed)
        case .expired: t(.stateExpired)
        case .inBillingRetryPeriod: t(.inBillingRetry)
        case .inGracePeriod: t(.inGracePeriod)
        case .revoked: t(.stateRevoked)
        }
    }

    /// An offer's kind as the customer reads it ("win-back offer", not `winBack`).
    static func words(_ offer: OfferType, _ t: StringTable) -> String {
        switch offer {
        case .introductory: t(.offerIntroductory)
        case .promotional: t(.offerPromotional)
        case .code: t(.offerCode)
        case .winBack: t(.offerWinBack)
        }
    }

    /// Why a subscription ended, in the customer's words.
    static func words(_ reason: RenewalInfoPayload.ExpirationReason, _ t: StringTable) -> String {
        switch reason {
        case .autoRenewDisabled: t(.expirationVoluntary)
        case .billingError: t(.expirationBillingError)
        case .didNotConsentToPriceIncrease: t(.expirationPriceIncrease)
        case .productUnavailable: t(.expirationProductUnavailable)
        case .unknown: t(.expirationOther)
        }
    }
}
