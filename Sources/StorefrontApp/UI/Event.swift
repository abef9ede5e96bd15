import Foundation
import StoreClient
import StoreCore
import StoreEngine
import TerminalUI

/// Everything that can change the state: input, time, and what the store tells us.
enum Event: Sendable {
    /// Keys may be waiting: the loop reads them on the main actor and feeds `.key`s.
    case inputReady
    case key(Key)
    case resize(Size)
    case tick
    case snapshot(StoreSnapshot)
    case storeEvent(StoreEvent)
    case qaData(TestSettings, [LedgerEntry])
    case finished(EffectOutcome)
    case walk(WalkEvent)
}

/// How an effect ended, for the status line or a result sheet.
enum EffectOutcome: Sendable {
    case purchase(productID: String, PurchaseResult)
    case redeem(code: String, StoreFailure?)
    case done(String)
    case failed(String)
}

/// Work for the effect runner: the only way the reducer reaches the store.
enum Effect: Sendable, Equatable {
    case purchase(productID: String, options: PurchaseOptions, answer: PaymentSheetAnswer)
    case restore
    case redeem(String)
    case refresh
    case requestRefund(Int64, reason: String)
    /// An action in the manage-subscriptions sheet.
    case manage(group: String, ManageSubscriptionAction)
    case qa(QACommand)
    case walk(WalkEffect)
    /// Saves text the person asked for (a transaction's signed token) in the current directory.
    case writeFile(path: String, contents: String)
    case quit
}

/// The QA panel's actions: all go to `StoreTestControls`, never through `StoreManager`.
enum QACommand: Sendable, Equatable {
    case approveAskToBuy(Int64), declineAskToBuy(Int64), resolveInterrupted(Int64)
    case refund(Int64, prorated: Bool), revokeFamily(Int64), decideRefund(Int64, approve: Bool), delete(Int64)
    case setOriginalApp(version: String?, platform: String?)
    case expire(String), forceRenew(String), setAutoRenew(String, Bool)
    case requestPriceIncrease(String), respondToPriceIncrease(String, agree: Bool), resolveBillingIssue(String)
    case buyOutsideApp(String, familyShared: Bool)
    case clearTransactions, reset
    case setStorefront(String, locale: String?)
    case setTimeRate(TimeRate)
    case advanceTime(Period)
    case toggle(QAToggle)
    case setFailure(StoreAPI, StoreFailure?)
}

enum QAToggle: String, CaseIterable, Sendable {
    case askToBuy, interruptedPurchases, billingRetryOnRenewal, gracePeriod, invalidSignatures, autoApproveRefunds

    var title: String {
        switch self {
        case .askToBuy: "Ask to Buy"
        case .interruptedPurchases: "Interrupted purchases"
        case .billingRetryOnRenewal: "Billing retry on renewal"
        case .gracePeriod: "Billing grace period"
        case .invalidSignatures: "Invalid signatures"
        case .autoApproveRefunds: "Approve refund requests at once"
        }
    }

    var keyPath: WritableKeyPath<TestSettings, Bool> {
        switch self {
        case .askToBuy: \.askToBuy
        case .interruptedPurchases: \.interruptedPurchases
        case .billingRetryOnRenewal: \.billingRetryOnRenewal
        case .gracePeriod: \.gracePeriod
        case .invalidSignatures: \.invalidSignatures
        case .autoApproveRefunds: \.autoApproveRefunds
        }
    }
}
