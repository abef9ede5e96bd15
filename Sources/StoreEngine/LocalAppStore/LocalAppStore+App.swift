import Foundation
import StoreCore
import StoreSigning

/// `AppTransaction` and the manage-subscriptions sheet.
extension LocalAppStore {
    public func appTransaction() async throws -> String {
        try injected.check(.appTransaction)
        return present(asSigned(try sign(appTransactionPayload().json)))
    }

    func appTransactionPayload() -> AppTransactionPayload {
        let app = originalApp()
        let nonce = UUID()
        // Apple's deviceVerification is SHA-384 of the nonce and the device ID; the local device ID is the appTransactionID.
        let verification = Data(SHA384Digest.hash(Data((nonce.uuidString.lowercased() + appTransactionID).utf8))).base64EncodedString()
        var payload = AppTransactionPayload(
            appTransactionID: appTransactionID, bundleID: catalog.app.bundleID, appVersion: catalog.app.appVersion,
            originalAppVersion: app.version, originalPurchaseDate: app.purchaseDate, originalPlatform: app.platform,
            deviceVerification: verification, deviceVerificationNonce: nonce, signedDate: now())
        payload.environment = currentSettings.environment.rawValue
        payload.appAppleID = catalog.app.appAppleID
        payload.preorderDate = catalog.app.preorderDate
        payload.versionExternalIdentifier = catalog.app.versionExternalIdentifier
        return payload
    }

    /// The catalog's original app facts, as overridden by the QA panel.
    func originalApp() -> (version: String, purchaseDate: Date, platform: String) {
        let version = (try? ledger.meta("originalAppVersion")) ?? catalog.app.originalAppVersion
        let date = (try? ledger.meta("originalPurchaseDate")).flatMap(Double.init).map { Date(timeIntervalSince1970: $0) }
            ?? catalog.app.originalPurchaseDate ?? firstLaunch()
        let platform = (try? ledger.meta("originalPlatform")) ?? catalog.app.originalPlatform
        return (version, date, platform)
    }

    /// When the customer first downloaded the app: the first time this ledger was opened.
    func firstLaunch() -> Date {
        if let saved = (try? ledger.meta("firstLaunch")).flatMap(Double.init) { return Date(timeIntervalSince1970: saved) }
        let date = now()
        try? ledger.setMeta("firstLaunch", String(date.timeIntervalSince1970))
        return date
    }

    public func setOriginalApp(version: String?, purchaseDate: Date?, platform: String?) throws {
        if let platform, !["iOS", "macOS", "tvOS", "visionOS"].contains(platform) {
            throw TestControlError("unknown platform \(platform) (use iOS, macOS, tvOS or visionOS)")
        }
        if let version { try ledger.setMeta("originalAppVersion", version) }
        if let purchaseDate { try ledger.setMeta("originalPurchaseDate", String(purchaseDate.timeIntervalSince1970)) }
        if let platform { try ledger.setMeta("originalPlatform", platform) }
    }

    public func manageSubscription(groupID: String, _ action: ManageSubscriptionAction) async throws {
        try injected.check(.manageSubscriptions)
        catchUp()
        guard var record = activeSubscription(group: groupID) else { throw TestControlError("no active subscription in \(groupID)") }
        switch action {
        case .cancel, .reenable:
            let enabled = action == .reenable
            guard record.willAutoRenew != enabled else { break }
            record.setAutoRenew(enabled)
            try save(record, notifying: .autoRenewChanged(enabled: enabled))
        case .switchTo(let productID):
            guard let item = catalog.product(productID), item.subscription?.groupID == groupID else {
                throw TestControlError("\(productID) is not in \(groupID)")
            }
            guard let change = try planChange(to: item) else { return }
            // A switch made in the system sheet reaches the app through updates, like any purchase outside it.
            _ = try applyChange(change, to: item, options: PurchaseOptions(), offer: nil, kind: .update)
        }
        pumpEvents()
    }
}
