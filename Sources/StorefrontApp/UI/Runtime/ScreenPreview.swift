import StoreClient
import StoreCore
import StoreEngine
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

    private init(state: AppState) { self.state = state }

    /// The state the storefront opens with on a launched app (`AppState.opening`): what its first frame shows.
    public static func opening(_ catalog: Catalog, manager: StoreManager, controls: any StoreTestControls) async -> ScreenPreview {
        ScreenPreview(state: await AppState.opening(catalog, manager: manager, controls: controls))
    }

    public func render(size: Size, selected: Int = 0) -> Canvas {
        var state = state
        state.selection[.store] = selected
        state.size = size
        return StorefrontApp.render(state, size: size)
    }
}
