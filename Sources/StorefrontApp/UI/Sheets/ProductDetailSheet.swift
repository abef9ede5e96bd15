import StoreCore
import TerminalUI

/// A product's terms: price, type, group and level, duration, Family Sharing, what the customer owns.
struct ProductDetailSheet: SheetView, Equatable {
    var productID: String

    var stacked: SheetState { .productDetail(self) }

    func lines(_ state: AppState) -> [String] {
        guard let p = state.product(productID) else { return ["Product \(productID) is not sold in this storefront."] }
        var lines = [p.displayName, p.description, "", "Price: \(p.priceWithPeriod)", "Type: \(p.type.signedName)", "ID: \(p.id)"]
        if let group = p.groupName, let terms = p.subscription { lines.append("Group: \(group), level \(terms.level)") }
        if let d = p.duration { lines.append("Lasts: \(p.words(d))") }
        if p.isFamilyShareable { lines.append("Family Sharing: yes") }
        let mark = StoreScreen.marks(p, state).text
        if !mark.isEmpty { lines.append("Status: \(mark)") }
        return lines
    }

    func draw(_ state: AppState, in area: Rect, on canvas: inout Canvas) {
        Sheet(title: "Product", body: lines(state), buttons: ["OK"], selectedButton: 0, maxTextWidth: 60).draw(in: area, on: &canvas)
    }
}
