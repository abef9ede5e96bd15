import StoreClient
import TerminalUI

/// The app's own `AppTransaction`, for business-model migrations ("bought before 2.0 → premium").
struct AppInfoSheet: SheetView {
    var stacked: SheetState { .appInfo }

    static func lines(_ state: AppState) -> [String] {
        guard let app = state.snapshot.appTransaction else { return ["No AppTransaction: the App Transaction API failed or is not loaded."] }
        guard let p = app.payload else { return ["AppTransaction failed verification: \(app.error?.rawValue ?? "?")"] }
        return [
            "Bundle ID: \(p.bundleID)",
            "App version: \(p.appVersion)",
            "Original app version: \(p.originalAppVersion)",
            "Original purchase: \(Format.date(p.originalPurchaseDate))",
            "Original platform: \(p.originalPlatform)",
            "App transaction ID: \(p.appTransactionID)",
            "Environment: \(p.environment)",
            "Verification: \(app.error?.rawValue ?? "verified")",
        ]
    }

    func sheet(_ state: AppState, in area: Rect) -> Sheet {
        Sheet(title: "App info (AppTransaction)", body: Self.lines(state), buttons: ["OK"], selectedButton: 0, maxTextWidth: 60)
    }
}
