import Foundation
import StoreClient
import StoreCore
import StoreEngine
import StoreServer

/// How a command ended, for the status line, a result sheet or a scenario's step.
public enum CommandOutcome: Sendable {
    case purchase(productID: String, PurchaseResult)
    case redeem(code: String, StoreFailure?)
    case done(String)
    /// The store said no to what the customer asked (a refund request, a plan change): shown, not thrown.
    case refused(String, StoreFailure)
    /// What to offer before a cancel in a group (nil: only the question).
    case retention(group: String, RetentionOffer?)
}

/// The one interpreter of `StoreCommand`s, for the TUI, `storefront run`, `walk` and `demo` alike: the
/// customer's and the app's actions go through the app's `StoreManager`, the tester's through the
/// store's `StoreTestControls`. A tester control that cannot apply throws, with a message saying why.
public struct CommandPerformer: Sendable {
    public let manager: StoreManager
    public let controls: any StoreTestControls

    public init(manager: StoreManager, controls: any StoreTestControls) {
        self.manager = manager
        self.controls = controls
    }

    public func perform(_ command: StoreCommand) async throws -> CommandOutcome {
        switch command {
        case .buy(let id, let quantity, let offer, let signature, let askToBuy, let plan, let token, let introEligibility, let answer):
            var options = try await purchaseOptions(id, quantity: quantity, offer: offer, signature: signature, askToBuy: askToBuy)
            options.billingPlan = plan
            options.introductoryOfferEligibility = try introEligibility.map { try Self.signed(from: $0) }
            let appsOwn = await controls.settings().appAccountToken
            options.appAccountToken = token ?? appsOwn
            return .purchase(productID: id, await manager.purchase(id, options: options, answer: answer))
        case .restore:
            await manager.restore()
            return .done(await manager.snapshot.lastEvent?.message ?? "Restored")
        case .refresh:
            await manager.refresh()
            return .done("Refreshed")
        case .redeem(let code):
            return .redeem(code: code, await manager.redeem(offerCode: code))
        case .requestRefund(let ref, let reason):
            let id = try await appTransaction(ref)
            if case .failure(let failure) = await manager.requestRefund(transactionID: id, reason: reason) {
                return .refused("Refund request failed: \(failure.message)", failure)
            }
            // Approved at once (Xcode's test environment, or the QA panel's switch), or waiting for the tester.
            return .done(await controls.settings().autoApproveRefunds ? "Refund requested and approved at once (QA panel: Approve refund requests at once)"
                                                                       : "Refund requested; the App Store decides in the QA panel (4)")
        case .retentionOffer(let group):
            return .retention(group: group, await controls.retentionOffer(group: group) { url, payload in
                await RealtimeRetention.ask(url: url, signedPayload: payload)
            })
        case .manage(let group, let action):
            if let failure = await manager.manageSubscription(groupID: group, action) {
                return .refused("Manage subscriptions: \(failure.message)", failure)
            }
            return .done(Self.describe(action, await manager.snapshot.effectiveStatus(group: group)))
        case .quit, .launch, .restart, .crashBeforeFinish, .device:
            throw TestControlError("the app cannot quit, launch or change devices here")
        case .export:
            throw TestControlError("export is a scenario step; in a terminal, run storefront export")
        case .wait(let duration):
            try await Task.sleep(for: duration)
            await manager.refresh()
            return .done("Waited \(duration)")
        default:
            let message = try await control(command)
            await manager.refresh()
            return .done(message)
        }
    }

    /// The tester's side: settings and the Transaction Manager.
    private func control(_ command: StoreCommand) async throws -> String {
        let c = controls
        switch command {
        case .storefront(let code, let locale):
            try await c.setStorefront(code, locale: locale)
            await manager.loadProducts()  // as an app does on Storefront.updates
            return "Storefront \(code)" + (locale.map { ", locale \($0)" } ?? "")
        case .set(let setting, let on):
            await c.update { $0[keyPath: setting.keyPath] = on }
            return "\(setting.title): \(on ? "on" : "off")"
        case .toggle(let setting):
            await c.update { $0[keyPath: setting.keyPath].toggle() }
            return "\(setting.title): \(await c.settings()[keyPath: setting.keyPath] ? "on" : "off")"
        case .timeRate(let rate):
            await c.setTimeRate(rate)
            return "Time rate: \(rate.title)"
        case .fail(let api, let failure):
            await c.update { $0.failures[api] = failure }
            return failure.map { "\(api.title) will fail with \($0.name)" } ?? "\(api.title) failures cleared"
        case .inAppPurchaseKey(let keyID, let file, let issuer):
            guard let pem = try? String(contentsOfFile: file, encoding: .utf8) else { throw TestControlError("\(file): cannot read the key file") }
            try await c.registerInAppPurchaseKey(keyID: keyID, privateKeyPEM: pem, issuerID: issuer)
            return "In-App Purchase key \(keyID) registered"
        case .appAccountToken(let token):
            await c.update { $0.appAccountToken = token }
            return token.map { "Purchases carry the app account token \($0.uuidString.lowercased())" } ?? "Purchases carry no app account token"
        case .notificationURL(let url):
            await c.update { $0.notificationURL = url }
            return url.map { "Notifications go to \($0)" } ?? "Notifications are recorded, not sent"
        case .originalApp(let version, let platform, let date):
            try await c.setOriginalApp(version: version, purchaseDate: date, platform: platform)
            await manager.loadAppTransaction()
            return "Original app: \(version ?? "") \(platform ?? "")".trimmingCharacters(in: .whitespaces)
        case .control(let control, let ref):
            return try await control.spec.perform(c, try await entry(for: control, ref))
        case .buyElsewhere(let id, let family):
            try await c.buyOutsideApp(productID: id, familyShared: family)
            return family ? "Family member bought \(id)" : "Bought \(id) outside the app"
        case .promote(let id, let offer):
            try await c.sendPurchaseIntent(productID: id, offerID: offer)
            return "Promoted \(id) on the App Store" + (offer.map { " with offer \($0)" } ?? "")
        case .advance(let period):
            try await c.advanceTime(by: period)
            return "Advanced time by \(period.words)"
        case .elapse(let duration):
            try await c.advanceClock(by: duration.seconds)
            return "Store time passed: \(duration)"
        case .resendNotification(let sequence):
            try await c.resendNotification(sequence: sequence)
            return "Notification #\(sequence) will be sent again"
        case .clear:
            // Xcode's "Delete All Transactions" touches only the store: the app's wallet is the app's.
            try await c.clearTransactions()
            await manager.refresh()
            return "Transactions cleared"
        case .reset:
            try await c.reset()
            try await manager.resetWallet()
            return "Store reset"
        default:
            throw TestControlError("not a tester control")
        }
    }

    /// The ledger entry a control acts on: the one picked, or the product's newest it applies to.
    private func entry(for control: TesterControl, _ ref: TransactionRef) async throws -> LedgerEntry {
        let ledger = await controls.ledgerEntries()
        switch ref {
        case .id(let id):
            guard let entry = ledger.first(where: { $0.id == id }) else { throw TestControlError("transaction #\(id) is not in the ledger") }
            return entry
        case .newest(let productID):
            guard let entry = control.target(productID, in: ledger) else {
                throw TestControlError("no matching transaction for \(productID) in the ledger")
            }
            return entry
        }
    }

    /// A transaction the app has received (a refund request starts from the app's own history).
    private func appTransaction(_ ref: TransactionRef) async throws -> Int64 {
        switch ref {
        case .id(let id): return id
        case .newest(let productID):
            let history = await manager.snapshot.history.compactMap(\.payload)
            guard let t = history.first(where: { $0.productID == productID && !$0.isRevoked }) else {
                throw TestControlError("the app has no transaction for \(productID) to request a refund for")
            }
            return t.transactionID
        }
    }

    /// The purchase options an app passes: the offer's kind comes from the product, as the app knows
    /// it; a promotional offer is signed by the developer's server (the local store plays that part).
    private func purchaseOptions(_ id: String, quantity: Int, offer: String?, signature: StoreCommand.OfferSignature,
                                 askToBuy: Bool) async throws -> PurchaseOptions {
        var options = PurchaseOptions(quantity: quantity, simulatesAskToBuy: askToBuy)
        guard let offer else { return options }
        let terms = await manager.snapshot.products.first { $0.id == id }?.subscription
        if terms?.winBackOffers.contains(where: { $0.id == offer }) == true {
            options.winBackOfferID = offer
            return options
        }
        switch signature {
        case .valid:
            // An unknown offer gets a signature the store will reject.
            let signed = (try? await controls.signPromotionalOffer(productID: id, offerID: offer)) ?? "unsigned"
            options.promotionalOffer = (offer, signed)
        case .missing: options.promotionalOffer = (offer, nil)
        case .invalid: options.promotionalOffer = (offer, "not.a.signature")
        case .file(let path): options.promotionalOffer = (offer, try Self.signed(from: path))
        case .given(let signature): options.promotionalOffer = (offer, signature)
        }
        return options
    }

    /// What the team's server signed, as it handed it to the app, from a file (surrounding white space dropped).
    static func signed(from path: String) throws -> String {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw TestControlError("\(path): cannot read the signature (write what your server signed there: a JWS, or the legacy signature's JSON)")
        }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// What the change did, as the subscription now stands: a downgrade waits for the renewal.
    static func describe(_ action: ManageSubscriptionAction, _ status: SubscriptionStatus?) -> String {
        let current = status?.transaction.payload
        let until = (status?.renewalInfo.payload?.renewalDate ?? current?.expirationDate).map { Format.dateTime($0) } ?? "the next renewal"
        switch action {
        case .cancel: return "Subscription cancelled: \(current?.productID ?? "it") will not renew; access until \(until)"
        case .reenable: return "Auto-renew turned back on" + (current.map { ": \($0.productID) renews \(until)" } ?? "")
        case .switchTo(let id) where current != nil && current?.productID != id:
            return "\(id) from the next renewal, \(until); \(current!.productID) until then"
        case .switchTo(let id): return "Plan changed to \(id), starting now"
        }
    }
}
