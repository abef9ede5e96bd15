import Foundation
import StoreCore
import StoreEngine

/// Every way a person acts on the store: the customer and the app (through `StoreManager`) and the
/// tester (through `StoreTestControls`). The TUI's keys, the QA panel, scenario steps and the demo all
/// produce these values, and one `CommandPerformer` carries them out.
public enum StoreCommand: Sendable, Equatable {
    // Set-up (the tester, before or between steps)
    case storefront(String, locale: String?)
    case set(TestSetting, Bool)
    /// The QA panel's switch: flips the setting the store has now, so quick presses never act on a stale value.
    case toggle(TestSetting)
    case timeRate(TimeRate)
    /// The token the storefront's own app passes with every purchase (its signed-in user's); nil: none.
    case appAccountToken(UUID?)
    case fail(StoreAPI, StoreFailure?)
    /// Where App Store Server Notifications V2 go; nil: recorded, not sent.
    case notificationURL(String?)
    /// One of the team's In-App Purchase keys: its ID, its `.p8` file and the issuer ID its JWS name.
    case inAppPurchaseKey(keyID: String, file: String, issuer: String?)
    /// What AppTransaction reports of the first download (business-model migrations); nil keeps a field.
    case originalApp(version: String?, platform: String?, date: Date?)

    // The customer and the app
    /// `product.purchase(options:)`; `answer` is the customer's choice at the payment sheet. The offer
    /// is named by ID; its kind (promotional, win-back) comes from the product, as an app knows it.
    /// `plan`: the billing plan of a subscription with billing plans (`.billingPlanType(_:)`);
    /// `appAccountToken`: `.appAccountToken(_:)` (nil: the app's own, the `appAccountToken` setting);
    /// `introEligibility`: a file holding `.introductoryOfferEligibility(compactJWS:)`, as the team's server signed it.
    case buy(String, quantity: Int, offer: String?, signature: OfferSignature, askToBuy: Bool, plan: BillingPlanType = .upFront,
             appAccountToken: UUID? = nil, introEligibility: String? = nil, answer: PaymentSheetAnswer)
    case restore, refresh
    case redeem(String)
    case requestRefund(TransactionRef, reason: String)
    /// The manage-subscriptions sheet, for a subscription group.
    case manage(String, ManageSubscriptionAction)
    /// The cancel sheet asks the store what to offer first (Retention Messaging); then the customer chooses.
    case retentionOffer(String)
    /// Quit the app (its StoreManager stops listening), launch it again, or both on the same state.
    case quit, launch, restart
    /// The app dies after delivering the next transaction and before `finish()`; `launch` brings it back.
    case crashBeforeFinish
    /// Switch to another device of the same account, with its own app and app state (launched on first use).
    case device(String)
    /// Wall-clock time passes (a compressed renewal, a grace period under a time rate).
    case wait(Duration)

    /// Every signed token the store made, as `storefront export --json` prints them, written to a file for a backend's tests.
    case export(String)

    // The tester (Xcode's Transaction Manager)
    case control(TesterControl, TransactionRef)
    case buyElsewhere(String, family: Bool)
    /// The customer taps the product's promotion on the App Store (with a promotional or win-back offer):
    /// the app receives a `PurchaseIntent`.
    case promote(String, offer: String?)
    case advance(Period)
    /// The store clock moves on by exactly this much, uncompressed: what a recorded session spent at a
    /// fast time rate (`advance 25300ms`), replayed without waiting for it as `wait` would.
    case elapse(Duration)
    case clear, reset
    /// Sends a server notification again now (the Notifications screen's S).
    case resendNotification(Int64)

    /// The product a command names, checked against the catalog before a scenario runs.
    public var productID: String? {
        switch self {
        case .buy(let id, _, _, _, _, _, _, _, _), .buyElsewhere(let id, _), .promote(let id, _): id
        case .requestRefund(let ref, _), .control(_, let ref): ref.productID
        default: nil
        }
    }

    /// Commands that prepare the store rather than act in it (a walk applies them when reached).
    public var isSetUp: Bool {
        switch self {
        case .storefront, .set, .toggle, .timeRate, .appAccountToken, .fail, .notificationURL, .originalApp, .inAppPurchaseKey: true
        default: false
        }
    }

    /// Commands that stop, start or switch the app: the TUI is the app, so they cannot happen inside it.
    public var needsRelaunch: Bool {
        switch self {
        case .quit, .launch, .restart, .crashBeforeFinish, .device: true
        default: false
        }
    }

    /// A promotional offer's signature: made by the local store (as a developer's server would), left
    /// out, broken, or read from a file when the purchase is made, as the team's server signed it (a
    /// compact JWS, or the legacy signature's JSON `{"keyIdentifier", "nonce", "timestamp", "signature"}`).
    public enum OfferSignature: Sendable, Equatable { case valid, missing, invalid, file(String), given(String) }
}

/// Which transaction a command acts on: one the tester picked, or, as a scenario says it, the
/// newest transaction of a product that the command applies to.
public enum TransactionRef: Sendable, Equatable {
    case id(Int64)
    case newest(productID: String)

    var productID: String? { if case .newest(let id) = self { id } else { nil } }
}

public enum PriceIncreaseStep: String, Sendable, Equatable, CaseIterable { case request, agree, decline }
