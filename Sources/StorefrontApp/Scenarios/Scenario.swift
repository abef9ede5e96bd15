import Foundation
import StoreCore
import StoreEngine

/// A parsed scenario file: a QA walkthrough, one step a line.
public struct Scenario: Sendable, Equatable {
    public var path: String
    /// The title: the first comment line, else the file name.
    public var title: String
    /// `catalog FILE`, resolved against the scenario's folder.
    public var catalogPath: String?
    public var steps: [ScenarioStep]

    public var name: String { URL(fileURLWithPath: path).lastPathComponent }
}

public struct ScenarioStep: Sendable, Equatable {
    public var line: Int
    /// The step as written (without its comment).
    public var text: String
    public var kind: Kind

    public enum Kind: Sendable, Equatable {
        case action(ScenarioAction)
        case expect(ScenarioExpectation)
    }

    public var isExpectation: Bool { if case .expect = kind { true } else { false } }
}

/// Something the customer, the app or the tester (QA panel) does.
public enum ScenarioAction: Sendable, Equatable {
    case storefront(String, locale: String?)
    case set(Toggle, Bool)
    case timeRate(TimeRate)
    case fail(StoreAPI, StoreFailure?)
    /// The app buys; `answer` is the customer's choice at the payment sheet.
    case buy(String, quantity: Int, offer: String?, signature: Signature, askToBuy: Bool, answer: PaymentSheetAnswer)
    case restore, refresh
    case redeem(String)
    case requestRefund(String)
    /// Quit the app (its StoreManager stops listening), launch it again, or both on the same state.
    case quit, launch, restart
    /// Tester controls on the newest matching transaction of a product.
    case control(Control, String)
    case refund(String, prorated: Bool)
    case autoRenew(String, Bool)
    case priceIncrease(String, PriceIncreaseStep)
    case buyElsewhere(String, family: Bool)
    case advance(Period)
    /// What AppTransaction reports of the first download (business-model migrations).
    case originalApp(version: String, platform: String?, date: Date?)
    /// The manage-subscriptions sheet.
    case manage(String, ManageSubscriptionAction)
    case clear, reset

    /// The product a step names, checked against the catalog before anything runs.
    public var productID: String? {
        switch self {
        case .buy(let id, _, _, _, _, _), .requestRefund(let id), .control(_, let id), .refund(let id, _), .autoRenew(let id, _),
             .priceIncrease(let id, _), .buyElsewhere(let id, _): id
        default: nil
        }
    }

    public enum Signature: String, Sendable, Equatable, CaseIterable { case valid, missing, invalid }
    public enum PriceIncreaseStep: String, Sendable, Equatable, CaseIterable { case request, agree, decline }
    public enum Control: String, Sendable, Equatable {
        case approve, decline, resolve, revokeFamily = "revoke-family", approveRefund = "approve-refund"
        case declineRefund = "decline-refund", delete, expire, renew, fixBilling = "fix-billing"
    }
    /// The on/off test settings, by the names scenarios use.
    public enum Toggle: String, Sendable, Equatable, CaseIterable {
        case askToBuy, interruptedPurchases, billingRetry, gracePeriod, invalidSignatures, autoApproveRefunds
    }
}

/// `expect PROBE SUBJECT... VALUE`: reads one value from the app or the store and compares it, as text.
public struct ScenarioExpectation: Sendable, Equatable {
    public var probe: Probe
    public var subject: [String]
    public var expected: String

    /// Each probe: the subject it needs, the values it accepts (nil: any), and the usage shown in errors.
    public enum Probe: String, Sendable, Equatable, CaseIterable {
        case result, entitled, balance, status, renewal, introEligible = "intro-eligible", error, transactions, ledger
        case unfinished, verification, transaction, message, storefront, price, products
        case appTransaction = "app-transaction", boughtBefore = "bought-before"
    }
}

/// A scenario error, before anything runs: `refund.scenario:7: unknown step 'refnd' (expected one of: …)`.
public struct ScenarioError: Error, Equatable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var message: String
    /// `file:line: message`, or `file: message` for the file as a whole (line 0).
    public var description: String {
        let name = URL(fileURLWithPath: file).lastPathComponent
        return line > 0 ? "\(name):\(line): \(message)" : "\(name): \(message)"
    }
}
