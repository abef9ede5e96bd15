import Foundation
import StoreCore
import TerminalUI

/// The App Store's purchase confirmation: what is bought, for how much, on which terms.
enum PaymentSheet {
    static func body(_ d: PaymentDraft, _ state: AppState) -> [String] {
        guard let p = state.product(d.productID) else { return ["This product is no longer available."] }
        var lines = [p.displayName, p.description, ""]
        if let terms = p.subscription {
            switch d.offer {
            case .promotional(let id), .winBack(let id):
                if let offer = terms.offer(id: id) { lines.append("Offer: " + p.offerText(offer)) }
            case .none:
                if let intro = terms.introductoryOffer, state.snapshot.introEligibility[terms.groupID] == true {
                    lines.append("Intro offer: " + p.offerText(intro))
                } else {
                    lines.append("Price: \(p.displayPrice) per \(terms.period.perWords)")
                }
            }
            lines.append("Renews automatically until cancelled.")
        } else if let duration = p.duration {
            lines.append("Price: \(p.displayPrice) for \(duration.words) (does not renew)")
        } else if p.type == .consumable {
            let total = p.format(p.price * Decimal(d.quantity))
            lines.append("Price: \(p.displayPrice) × \(d.quantity) = \(total)   (+/- quantity)")
        } else {
            lines.append("Price: \(p.displayPrice), one-time purchase")
        }
        if d.offers.count > 1 { lines.append("Offer choice: \(d.offer.label)   (o to change)") }
        lines += ["", "Account: local tester · Environment: \(state.settings.environment.rawValue)"]
        if d.isPurchasing { lines += ["", Spinner.frame(state.tick) + " Purchasing…"] }
        return lines
    }

    static func draw(_ d: PaymentDraft, _ state: AppState, in area: Rect, on canvas: inout Canvas) {
        Sheet(title: "App Store", body: body(d, state), buttons: d.isPurchasing ? [] : ["Confirm", "Cancel"],
              selectedButton: d.button, maxTextWidth: 56).draw(in: area, on: &canvas)
    }
}
