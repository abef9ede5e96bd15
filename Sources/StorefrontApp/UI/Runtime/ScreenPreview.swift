import StoreClient
import StoreCore
import TerminalUI

/// The store screen of a catalog with nothing bought, rendered without a terminal: for the
/// benchmark and for previews. Products are localized once; `render` is the pure render alone.
public struct ScreenPreview: Sendable {
    private var state: AppState

    public init(_ catalog: Catalog, storefront: String, locale: String) {
        state = AppState(catalog: catalog)
        state.snapshot.products = catalog.products(storefront: storefront, locale: locale)
        state.snapshot.storefront = catalog.storefront(storefront) ?? .usa
        state.snapshot.locale = locale
    }

    public func render(size: Size, selected: Int = 0) -> Canvas {
        var state = state
        state.selection[.store] = selected
        state.size = size
        return StorefrontApp.render(state, size: size)
    }
}
