import Foundation
import StoreClient
import StoreCore
import StoreEngine

extension AppState {
    /// A state for a catalog: its app's name and the storefronts and locales the QA panel cycles through.
    init(catalog: Catalog) {
        self.init()
        appName = catalog.app.name
        offerCodes = catalog.offerCodes
        groups = catalog.subscriptionGroups
        termsOfServiceURL = catalog.app.termsOfServiceURL
        privacyPolicyURL = catalog.app.privacyPolicyURL
        onePriceCurrency = catalog.hasOnePrice ? catalog.storefronts.first?.currency : nil
        storefronts = catalog.storefronts.map(\.code)
        locales = catalog.storefronts.map(\.locale).reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
    }

    /// The state the storefront opens with: the catalog's, plus what the app and the store know now.
    /// `ledgerAfterFirstFrame`: the QA panel's ledger and the notifications come after the first frame
    /// (as `.qaData` and `.notifications`), which needs neither; until then `isLoadingLedger` says so.
    static func opening(_ catalog: Catalog, manager: StoreManager, controls: any StoreTestControls,
                        ledgerAfterFirstFrame: Bool = false) async -> AppState {
        var state = AppState(catalog: catalog)
        state.snapshot = await manager.snapshot
        state.settings = await controls.settings()
        // What loading the catalog worked around (said on standard error too, which the screen then covers).
        for warning in catalog.warnings { state.status = "⚠ Catalog: " + warning }
        if ledgerAfterFirstFrame {
            state.isLoadingLedger = true
        } else {
            state.ledger = await controls.ledgerEntries(limit: QAPanel.ledgerLimit)
            state.notifications = await controls.recentNotifications(limit: NotificationsScreen.limit)
            StoreEventLog.tell(state.notifications, &state)  // where the session's log starts
        }
        return state
    }
}
