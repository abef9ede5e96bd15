import StoreCore
import TerminalUI

/// `ProductView`: one product as a card in a style (`s` switches it live), its buy button showing the
/// price. The button opens the same payment sheet as the Store screen.
struct ProductCardSheet: SheetView, Equatable {
    var productID: String
    var style: ProductCardStyle = .regular

    var stacked: SheetState { .productCard(self) }

    func bindings(_ state: AppState) -> [Binding] {
        [Binding(keys: [.enter], name: "Enter", label: "Buy", action: .activate),
         Binding(keys: [.character("s")], name: "s", label: "Product view style", action: .nextStyle, hint: "Style"),
         KeyMap.close,
         Binding(keys: [.character("q"), .control("c")], name: "q", label: "Quit", action: .quit)]
    }

    mutating func perform(_ action: Action, _ state: inout AppState) -> SheetStep {
        switch action {
        case .nextStyle: style = style.next
        case .activate:
            guard let product = state.product(productID) else { return .close }
            state.sheets.append(.payment(draft(for: product, state)))
        case .back: return .close
        default: break
        }
        return .stay
    }

    func sheet(_ state: AppState, in area: Rect) -> Sheet {
        guard let p = state.product(productID) else {
            return Sheet(title: PaywallText.productCard(style.title), body: [state.words(.noPlans)])
        }
        let offer = PaywallSheet.activeOffer(p, state).map { state.words.offerLine(p, $0.terms) }
        let body: [String] = switch style {
        case .compact: [p.displayName]
        case .regular: [p.displayName, p.description] + (offer.map { [$0] } ?? [])
        case .large: [p.groupName ?? p.type.title, "", p.displayName.uppercased(), "", p.description, ""] + (offer.map { [$0] } ?? [])
        }
        return Sheet(title: PaywallText.productCard(style.title), body: body, buttons: [state.words.priceWithPeriod(p)], selectedButton: 0,
                     maxTextWidth: style == .large ? 60 : 44)
    }
}
