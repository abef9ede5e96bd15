import Foundation
import StoreCore
import StoreEngine

/// Reads scenario files. One table of steps drives parsing, error messages and `ScenarioParser.reference`.
public enum ScenarioParser {
    typealias Kind = ScenarioStep.Kind

    struct StepSyntax: Sendable {
        var keyword: String
        var usage: String
        var parse: @Sendable (inout Words) throws(ParseFailure) -> Kind
    }

    /// Every step keyword: the actions of `CommandTable`, then `expect`.
    static let steps: [StepSyntax] = CommandTable.steps.map { step in
        StepSyntax(keyword: step.keyword, usage: step.usage) { w throws(ParseFailure) in .action(try step.parse(&w)) }
    } + [StepSyntax(keyword: "expect", usage: "expect PROBE …  (PROBE: \(names(ScenarioExpectation.Probe.self)))") { w throws(ParseFailure) in
        .expect(try expectation(&w))
    }]

    // MARK: Expectations

    struct ProbeSpec: Sendable {
        /// Placeholders for the subject words (PRODUCT, GROUP, FIELD).
        var subject: [String]
        /// The value's first word must be one of these (nil: anything; "N": a number).
        var values: [String]?
        var usage: String
    }

    static let booleans = ["yes", "no"]
    static let renewalFields = ["willAutoRenew", "autoRenewProduct", "expirationReason", "priceIncrease", "billingRetry", "gracePeriod",
                                "winBackOffers"]
    static let appTransactionFields = ["originalVersion", "originalPlatform", "appVersion", "bundleID", "verification"]
    static let transactionFields = ["status", "offer", "offerID", "ownership", "upgraded", "upgrade-refund", "revoked", "revocation", "reason",
                                    "price", "currency", "storefront", "quantity", "duration", "finished", "refundRequest"]
    /// Fields read by their name in the signed payload, as a backend sees them (`originalTransactionId`, `offerDiscountType`…).
    static let transactionJWSFields = ["transactionId", "originalTransactionId", "webOrderLineItemId", "bundleId", "productId",
                                       "subscriptionGroupIdentifier", "purchaseDate", "originalPurchaseDate", "expiresDate", "type",
                                       "appAccountToken", "inAppOwnershipType", "signedDate", "revocationReason", "revocationDate",
                                       "revocationType", "revocationPercentage", "isUpgraded", "offerType", "offerIdentifier",
                                       "offerDiscountType", "offerPeriod", "environment", "transactionReason", "storefrontId",
                                       "appTransactionId", "billingPlanType"]
    static let renewalJWSFields = ["originalTransactionId", "productId", "autoRenewProductId", "autoRenewStatus", "isInBillingRetryPeriod",
                                   "expirationIntent", "gracePeriodExpiresDate", "priceIncreaseStatus", "renewalDate",
                                   "recentSubscriptionStartDate", "renewalPrice", "currency", "offerType", "offerIdentifier", "offerDiscountType", "offerPeriod",
                                   "eligibleWinBackOfferIds", "signedDate", "environment", "appTransactionId", "renewalBillingPlanType", "appAccountToken"]

    static func probe(_ p: ScenarioExpectation.Probe) -> ProbeSpec {
        switch p {
        case .result: ProbeSpec(subject: [], values: ["purchased", "cancelled", "pending", "failed", "unverified", "none"],
                                usage: "expect result purchased | cancelled | pending [askToBuy|interrupted] | failed [ERROR] | unverified [ERROR]")
        case .entitled: ProbeSpec(subject: ["PRODUCT"], values: booleans, usage: "expect [not] entitled PRODUCT")
        case .balance: ProbeSpec(subject: ["PRODUCT"], values: ["N"], usage: "expect balance PRODUCT N")
        case .status: ProbeSpec(subject: ["GROUP"], values: SubscriptionState.allCases.map(\.rawValue) + ["none"],
                                usage: "expect status GROUP subscribed|expired|inGracePeriod|inBillingRetryPeriod|revoked|none")
        case .renewal: ProbeSpec(subject: ["GROUP", "FIELD"], values: nil,
                                 usage: "expect renewal GROUP FIELD VALUE  (FIELD: \(renewalFields.joined(separator: ", ")), or a renewal info JWS field)")
        case .introEligible: ProbeSpec(subject: ["GROUP"], values: booleans, usage: "expect [not] intro-eligible GROUP")
        case .error: ProbeSpec(subject: [], values: StoreFailure.allNames + OfferCodeError.allCases.map(\.rawValue) + ["none"],
                               usage: "expect error ERROR|none")
        case .transactions: ProbeSpec(subject: [], values: ["N"], usage: "expect transactions N")
        case .ledger: ProbeSpec(subject: [], values: ["N"], usage: "expect ledger N")
        case .unfinished: ProbeSpec(subject: [], values: ["N"], usage: "expect unfinished N")
        case .products: ProbeSpec(subject: [], values: ["N"], usage: "expect products N")
        case .verification: ProbeSpec(subject: ["PRODUCT"], values: ["verified"] + VerificationError.allCases.map(\.rawValue),
                                      usage: "expect verification PRODUCT verified|ERROR")
        case .transaction: ProbeSpec(subject: ["PRODUCT", "FIELD"], values: nil,
                                     usage: "expect transaction PRODUCT FIELD VALUE|same-as PRODUCT|= FIELD|!= FIELD  (FIELD: \(transactionFields.joined(separator: ", ")), or a transaction JWS field)")
        case .message: ProbeSpec(subject: [], values: nil, usage: "expect message \"TEXT\"|none")
        case .all: ProbeSpec(subject: [], values: ["N"], usage: "expect all N  (how many transactions the app's Transaction.all holds)")
        case .latest: ProbeSpec(subject: ["PRODUCT", "FIELD"], values: nil,
                                usage: "expect latest PRODUCT FIELD VALUE|none|= FIELD|!= FIELD  (a transaction JWS field, or verification)")
        case .refused: ProbeSpec(subject: [], values: nil, usage: "expect refused \"TEXT\"|none  (right after the step refused)")
        case .storefront: ProbeSpec(subject: [], values: nil, usage: "expect storefront CODE")
        case .price: ProbeSpec(subject: ["PRODUCT"], values: nil, usage: "expect price PRODUCT \"DISPLAY PRICE\"")
        case .appTransaction: ProbeSpec(subject: ["FIELD"], values: nil,
                                        usage: "expect app-transaction FIELD VALUE  (FIELD: \(appTransactionFields.joined(separator: ", ")))")
        case .boughtBefore: ProbeSpec(subject: ["VERSION"], values: booleans, usage: "expect [not] bought-before VERSION")
        case .restored: ProbeSpec(subject: [], values: ["N"], usage: "expect restored N  (what the last restore brought back)")
        }
    }

    static func expectation(_ w: inout Words) throws(ParseFailure) -> ScenarioExpectation {
        let negated = w.flag("not")
        let name = try w.next("PROBE")
        guard let probe = ScenarioExpectation.Probe(rawValue: name) else {
            throw w.fail("unknown expectation '\(name)' (expected one of: \(names(ScenarioExpectation.Probe.self)))")
        }
        let spec = Self.probe(probe)
        w.usage = spec.usage
        let subject = try spec.subject.map { placeholder throws(ParseFailure) in try w.next(placeholder) }
        if probe == .renewal, !(renewalFields + renewalJWSFields).contains(subject[1]) { throw w.fail("unknown renewal field '\(subject[1])'") }
        if probe == .transaction, !(transactionFields + transactionJWSFields).contains(subject[1]) {
            throw w.fail("unknown transaction field '\(subject[1])'")
        }
        if probe == .latest, !(transactionJWSFields + ["verification"]).contains(subject[1]) { throw w.fail("unknown transaction field '\(subject[1])'") }
        var words = w.rest().map(normalized)
        if spec.values == booleans {
            if words.isEmpty { words = ["yes"] }
            if negated { words = words == ["yes"] ? ["no"] : ["yes"] }
        } else if negated {
            throw w.fail("'not' only goes with entitled and intro-eligible")
        }
        guard let first = words.first else { throw w.fail("missing the expected value") }
        if spec.values == ["N"] {
            guard words.count == 1, Int(first) != nil else { throw w.fail("'\(words.joined(separator: " "))' is not a number") }
        } else if let allowed = spec.values, !allowed.contains(first) {
            throw w.fail("unexpected '\(first)' (expected one of: \(allowed.joined(separator: ", ")))")
        }
        if probe == .result, ["failed", "unverified"].contains(first), words.count > 2 || words.count == 2 && StoreFailure(name: words[1]) == nil {
            throw w.fail("unknown error '\(words.dropFirst().joined(separator: " "))'")
        }
        let expectation = ScenarioExpectation(probe: probe, subject: subject, expected: words.joined(separator: " "))
        if let other = expectation.otherField, !(transactionFields + transactionJWSFields).contains(other.name) {
            throw w.fail("unknown transaction field '\(other.name)'")
        }
        return expectation
    }

    /// Booleans read the same whichever way they are written.
    static func normalized(_ word: String) -> String {
        switch word { case "true", "on", "yes": "yes"; case "false", "off", "no": "no"; default: word }
    }

    // MARK: Catalog references

    /// Checks every product, group and storefront a scenario names against its catalog, so a typo
    /// stops the run before anything happens (offer IDs and codes are left alone: unknown ones are tested).
    public static func validate(_ scenario: Scenario, against catalog: Catalog) throws(ScenarioError) {
        func fail(_ step: ScenarioStep, _ message: String) -> ScenarioError {
            ScenarioError(file: scenario.path, line: step.line, message: message)
        }
        let products = catalog.products.map(\.id), groups = catalog.subscriptionGroups.map(\.id)
        for step in scenario.steps {
            var names: [(String, String)] = []
            switch step.kind {
            case .action(.storefront(let code, _)):
                if catalog.storefront(code) == nil {
                    throw fail(step, "unknown storefront '\(code)' (the catalog sells in \(catalog.storefronts.map(\.code).joined(separator: ", ")))")
                }
            case .action(let action):
                names = action.productID.map { [("PRODUCT", $0)] } ?? []
                if case .manage(let group, _) = action { names.append(("GROUP", group)) }
            case .expect(let e):
                names = Array(zip(probe(e.probe).subject, e.subject))
                if e.probe == .renewal, e.subject[1] == "autoRenewProduct" { names.append(("PRODUCT", e.expected)) }
                if e.probe == .transaction, let other = e.sameAs { names.append(("PRODUCT", other)) }
            }
            for (kind, name) in names {
                if kind == "PRODUCT", !products.contains(name) {
                    throw fail(step, "unknown product '\(name)' (the catalog has \(products.joined(separator: ", ")))")
                }
                if kind == "GROUP", catalog.group(named: name) == nil {
                    throw fail(step, "unknown subscription group '\(name)' (the catalog has \(groups.joined(separator: ", ")), or their names)")
                }
            }
        }
    }

    // MARK: Files

    public static func parse(file path: String) throws -> Scenario {
        // Standard input's scenario names its catalog relative to the working directory.
        let named = path == FileContents.standardInputPath ? FileManager.default.currentDirectoryPath + "/" + FileContents.standardInputName : path
        let text: String
        do { text = try FileContents.text(path) } catch { throw ScenarioError(file: named, line: 0, message: error.description) }
        return try parse(text, path: named)
    }

    public static func parse(_ text: String, path: String) throws(ScenarioError) -> Scenario {
        let lines = text.components(separatedBy: "\n")
        var scenario = Scenario(path: path, title: URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent, steps: [])
        var sawTitle = false
        for (index, raw) in lines.enumerated() {
            let number = index + 1
            let (tokens, comment) = tokenize(raw)
            if tokens.isEmpty {
                if !sawTitle, let comment, !comment.isEmpty, scenario.steps.isEmpty { scenario.title = comment; sawTitle = true }
                continue
            }
            let words = tokens.map(\.text)
            if words[0] == "catalog" {
                guard scenario.steps.isEmpty, scenario.catalogPath == nil else {
                    throw ScenarioError(file: path, line: number, message: "'catalog' must come before every other step")
                }
                guard words.count == 2 else { throw ScenarioError(file: path, line: number, message: "expected: catalog FILE") }
                let base = URL(fileURLWithPath: path).deletingLastPathComponent()
                scenario.catalogPath = words[1].hasPrefix("/") ? words[1] : base.appendingPathComponent(words[1]).path
                continue
            }
            guard let spec = steps.first(where: { $0.keyword == words[0] }) else {
                throw ScenarioError(file: path, line: number, message: "unknown step '\(words[0])' (expected one of: catalog, \(steps.map(\.keyword).joined(separator: ", ")))")
            }
            var cursor = Words(items: words.dropFirst()[...], usage: spec.usage)
            do {
                let kind = try spec.parse(&cursor)
                try cursor.end()
                let source = tokens.map { $0.quoted ? "\"\($0.text)\"" : $0.text }.joined(separator: " ")
                scenario.steps.append(ScenarioStep(line: number, text: source, kind: kind))
            } catch {
                throw ScenarioError(file: path, line: number, message: error.message)
            }
        }
        return scenario
    }

    struct Token { var text: String; var quoted: Bool }

    /// Splits a line into words and "quoted strings"; `#` starts a comment outside quotes.
    static func tokenize(_ line: String) -> ([Token], comment: String?) {
        var tokens: [Token] = [], current = "", inQuotes = false, wasQuoted = false
        func flush() { if !current.isEmpty || wasQuoted { tokens.append(Token(text: current, quoted: wasQuoted)) }; current = ""; wasQuoted = false }
        for (offset, ch) in line.enumerated() {
            if inQuotes {
                if ch == "\"" { inQuotes = false } else { current.append(ch) }
            } else if ch == "\"" {
                inQuotes = true; wasQuoted = true
            } else if ch == "#" {
                flush()
                return (tokens, String(line.dropFirst(offset + 1)).trimmingCharacters(in: .whitespaces))
            } else if ch.isWhitespace {
                flush()
            } else {
                current.append(ch)
            }
        }
        flush()
        return (tokens, nil)
    }

    static func names<T: CaseIterable & RawRepresentable<String>>(_: T.Type) -> String {
        T.allCases.map(\.rawValue).joined(separator: ", ")
    }

    /// Every step form, one a line (for `--help` and the walk screen).
    public static var reference: [String] {
        ["catalog FILE"] + CommandTable.reference + ScenarioExpectation.Probe.allCases.map { probe($0).usage }
    }
}

struct ParseFailure: Error { var message: String }

/// A cursor over one step's words; failures quote the step's usage.
struct Words {
    var items: ArraySlice<String>
    var usage: String

    var peek: String? { items.first }
    mutating func skip() { items = items.dropFirst() }

    func fail(_ message: String) -> ParseFailure { ParseFailure(message: "\(message) (expected: \(usage))") }

    mutating func next(_ what: String) throws(ParseFailure) -> String {
        guard let word = items.popFirst() else { throw fail("missing \(what)") }
        return word
    }

    mutating func int(_ what: String) throws(ParseFailure) -> Int {
        let word = try next(what)
        guard let n = Int(word), n >= 0 else { throw fail("'\(word)' is not a number") }
        return n
    }

    mutating func flag(_ word: String) -> Bool {
        guard items.first == word else { return false }
        skip()
        return true
    }

    mutating func value(after keyword: String, _ what: String) throws(ParseFailure) -> String? {
        flag(keyword) ? try next(what) : nil
    }

    mutating func onOff() throws(ParseFailure) -> Bool {
        let word = try next("on|off")
        switch ScenarioParser.normalized(word) {
        case "yes": return true
        case "no": return false
        default: throw fail("expected on or off, got '\(word)'")
        }
    }

    mutating func oneOf<T: CaseIterable & RawRepresentable<String>>(_: T.Type, _ what: String) throws(ParseFailure) -> T {
        let word = try next(what)
        guard let value = T(rawValue: word) else {
            throw fail("unexpected '\(word)' (expected one of: \(ScenarioParser.names(T.self)))")
        }
        return value
    }

    mutating func rest() -> [String] { defer { items = [] }; return Array(items) }

    func end() throws(ParseFailure) {
        if let extra = items.first { throw fail("unexpected '\(extra)'") }
    }
}
