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
        case action(StoreCommand)
        case expect(ScenarioExpectation)
    }

    public var isExpectation: Bool { if case .expect = kind { true } else { false } }
}

/// `expect PROBE SUBJECT... VALUE`: reads one value from the app or the store and compares it, as text.
public struct ScenarioExpectation: Sendable, Equatable {
    public var probe: Probe
    public var subject: [String]
    public var expected: String

    /// `same-as PRODUCT`: the value is that product's newest transaction's same field.
    public var sameAs: String? { expected.hasPrefix("same-as ") ? String(expected.dropFirst("same-as ".count)) : nil }

    /// `= FIELD` or `!= FIELD`: the value is another field of the same transaction, and whether it must equal it.
    public var otherField: (name: String, equal: Bool)? {
        let words = expected.split(separator: " ")
        guard words.count == 2, words[0] == "=" || words[0] == "!=" else { return nil }
        return (String(words[1]), words[0] == "=")
    }

    /// Each probe: the subject it needs, the values it accepts (nil: any), and the usage shown in errors.
    public enum Probe: String, Sendable, Equatable, CaseIterable {
        case result, entitled, balance, status, renewal, introEligible = "intro-eligible", error, transactions, ledger
        case unfinished, verification, transaction, message, storefront, price, products
        case appTransaction = "app-transaction", boughtBefore = "bought-before", restored
        case all, latest, refused
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
