import Foundation
import StoreCore
import StoreEngine

/// The scenario language's actions, one row a step: its keyword, usage, section, parse and write. The
/// parser, its error messages, the reference text and the session recorder read this table; tester
/// controls come from `TesterControl.table`, so a new control is a scenario step without a line here.
enum CommandTable {
    enum Section: String, CaseIterable, Sendable {
        case setUp = "set-up"
        case customer = "the customer and the app"
        case tester = "the tester (QA panel)"
    }

    struct Step: Sendable {
        var keyword: String
        var usage: String
        var section: Section
        /// The words after the keyword that parse back to the command, when this row is its step (a
        /// recorded session's line); nil for a command of another row.
        var write: @Sendable (StoreCommand) -> [String]? = { _ in nil }
        var parse: @Sendable (inout Words) throws(ParseFailure) -> StoreCommand
    }

    static let steps: [Step] = [
        Step(keyword: "storefront", usage: "storefront CODE [locale ID]", section: .setUp, write: {
            guard case .storefront(let code, let locale) = $0 else { return nil }
            return [code] + (locale.map { ["locale", $0] } ?? [])
        }) { w throws(ParseFailure) in
            let code = try w.next("CODE").uppercased()
            let locale = try w.value(after: "locale", "ID")
            if let locale, !Validation.isLocale(locale) { throw w.fail("unknown locale '\(locale)' (use an identifier like en_US or ja_JP)") }
            return .storefront(code, locale: locale)
        },
        Step(keyword: "set", usage: "set SETTING on|off | set timeRate RATE | set appAccountToken UUID|none  (SETTING: \(TestSetting.allCases.map(\.rawValue).joined(separator: ", ")))",
             section: .setUp, write: {
            switch $0 {
            case .set(let setting, let on): [setting.rawValue, on ? "on" : "off"]
            case .timeRate(let rate): ["timeRate", rate.name]
            case .appAccountToken(let token): ["appAccountToken", token?.uuidString.lowercased() ?? "none"]
            default: nil
            }
        }) { w throws(ParseFailure) in
            let name = try w.next("SETTING")
            if name == "appAccountToken" {
                let text = try w.next("UUID|none")
                if text == "none" { return .appAccountToken(nil) }
                guard let token = UUID(uuidString: text) else { throw w.fail("'\(text)' is not a UUID (or none)") }
                return .appAccountToken(token)
            }
            if name == "timeRate" {
                let rate = try w.next("RATE")
                guard let r = TimeRate(name: rate) else { throw w.fail("unknown time rate '\(rate)'") }
                return .timeRate(r)
            }
            guard let setting = TestSetting(name: name) else { throw w.fail("unknown setting '\(name)'") }
            return .set(setting, try w.onOff())
        },
        Step(keyword: "iap-key", usage: "iap-key KEY_ID FILE.p8 [issuer UUID]  (the team's In-App Purchase key, as `storefront iap-key`)",
             section: .setUp, write: {
            guard case .inAppPurchaseKey(let keyID, let file, let issuer) = $0 else { return nil }
            return [keyID, file] + (issuer.map { ["issuer", $0] } ?? [])
        }) { w throws(ParseFailure) in
            .inAppPurchaseKey(keyID: try w.next("KEY_ID"), file: try w.next("FILE.p8"), issuer: try w.value(after: "issuer", "UUID"))
        },
        Step(keyword: "fail", usage: "fail API ERROR|off  (API: \(ScenarioParser.names(StoreAPI.self)))", section: .setUp, write: {
            guard case .fail(let api, let failure) = $0 else { return nil }
            return [api.rawValue, failure?.name ?? "off"]
        }) { w throws(ParseFailure) in
            let api = try w.oneOf(StoreAPI.self, "API")
            let error = try w.next("ERROR")
            if error == "off" { return .fail(api, nil) }
            guard let failure = StoreFailure(name: error) else { throw w.fail("unknown error '\(error)'") }
            return .fail(api, failure)
        },
        Step(keyword: "original-app", usage: "original-app VERSION [platform iOS|macOS|tvOS|visionOS] [date YYYY-MM-DD]",
             section: .setUp, write: {
            guard case .originalApp(let version?, let platform, let date) = $0 else { return nil }
            return [version] + (platform.map { ["platform", $0] } ?? []) + (date.map { ["date", $0.formatted(.iso8601.year().month().day())] } ?? [])
        }) { w throws(ParseFailure) in
            let version = try w.next("VERSION")
            var platform: String?, date: Date?
            while let word = w.peek {
                switch word {
                case "platform": w.skip(); platform = try w.next("PLATFORM")
                case "date":
                    w.skip()
                    let text = try w.next("DATE")
                    guard let d = try? Date.ISO8601FormatStyle().year().month().day().parse(text) else { throw w.fail("'\(text)' is not a date") }
                    date = d
                default: throw w.fail("unexpected '\(word)'")
                }
            }
            return .originalApp(version: version, platform: platform, date: date)
        },
        Step(keyword: "buy", usage: "buy PRODUCT [quantity N] [offer ID [signature missing|invalid|file FILE]] [plan upFront|monthly] [account-token UUID] [intro-eligibility FILE] [ask-to-buy]",
             section: .customer, write: { write($0, answer: .confirm) }) { w throws(ParseFailure) in try buy(&w, answer: .confirm) },
        Step(keyword: "cancel", usage: "cancel PRODUCT [quantity N] [offer ID] [plan upFront|monthly]", section: .customer,
             write: { write($0, answer: .cancel) }) { w throws(ParseFailure) in
            try buy(&w, answer: .cancel)
        },
        Step(keyword: "restore", usage: "restore", section: .customer, write: only(.restore)) { _ throws(ParseFailure) in .restore },
        Step(keyword: "refresh", usage: "refresh", section: .customer, write: only(.refresh)) { _ throws(ParseFailure) in .refresh },
        Step(keyword: "redeem", usage: "redeem CODE", section: .customer, write: {
            if case .redeem(let code) = $0 { [code] } else { nil }
        }) { w throws(ParseFailure) in .redeem(try w.next("CODE")) },
        Step(keyword: "request-refund", usage: "request-refund PRODUCT [reason REASON]", section: .customer, write: {
            guard case .requestRefund(.newest(let product), let reason) = $0 else { return nil }
            return [product] + (reason == "scenario" ? [] : ["reason", reason])
        }) { w throws(ParseFailure) in
            let product = try w.next("PRODUCT")
            guard w.flag("reason") else { return .requestRefund(.newest(productID: product), reason: "scenario") }
            let reason = w.rest().joined(separator: " ")
            if reason.isEmpty { throw w.fail("missing REASON") }
            return .requestRefund(.newest(productID: product), reason: reason)
        },
        Step(keyword: "manage", usage: "manage GROUP cancel|reenable|switch PRODUCT", section: .customer, write: {
            switch $0 {
            case .manage(let group, .cancel): [group, "cancel"]
            case .manage(let group, .reenable): [group, "reenable"]
            case .manage(let group, .switchTo(let product)): [group, "switch", product]
            default: nil
            }
        }) { w throws(ParseFailure) in
            let group = try w.next("GROUP")
            switch try w.next("cancel|reenable|switch") {
            case "cancel": return .manage(group, .cancel)
            case "reenable": return .manage(group, .reenable)
            case "switch": return .manage(group, .switchTo(productID: try w.next("PRODUCT")))
            case let other: throw w.fail("unknown choice '\(other)'")
            }
        },
        Step(keyword: "quit", usage: "quit", section: .customer, write: only(.quit)) { _ throws(ParseFailure) in .quit },
        Step(keyword: "launch", usage: "launch", section: .customer, write: only(.launch)) { _ throws(ParseFailure) in .launch },
        Step(keyword: "restart", usage: "restart", section: .customer, write: only(.restart)) { _ throws(ParseFailure) in .restart },
        Step(keyword: "crash-before-finish", usage: "crash-before-finish", section: .customer, write: only(.crashBeforeFinish)) { _ throws(ParseFailure) in .crashBeforeFinish },
        Step(keyword: "device", usage: "device NAME  (another device on the same account; the first is `main`)",
             section: .customer, write: { if case .device(let name) = $0 { [name] } else { nil } }) { w throws(ParseFailure) in
            .device(try w.next("NAME"))
        },
        Step(keyword: "wait", usage: "wait DURATION  (500ms, 31s, 2m; at most 10m)", section: .customer, write: {
            if case .wait(let duration) = $0 { [text(duration)] } else { nil }
        }) { w throws(ParseFailure) in
            let text = try w.next("DURATION")
            guard let duration = wallClock(text) else { throw w.fail("'\(text)' is not a duration like 31s") }
            guard duration <= longestWait else { throw w.fail("'\(text)' is longer than 10m, the longest wait") }
            return .wait(duration)
        },
    ] + controlSteps + [
        Step(keyword: "buy-elsewhere", usage: "buy-elsewhere PRODUCT [family]", section: .tester, write: {
            if case .buyElsewhere(let product, let family) = $0 { [product] + (family ? ["family"] : []) } else { nil }
        }) { w throws(ParseFailure) in
            .buyElsewhere(try w.next("PRODUCT"), family: w.flag("family"))
        },
        Step(keyword: "promote", usage: "promote PRODUCT [offer ID]  (the customer taps its promotion on the App Store: the app gets a PurchaseIntent)",
             section: .tester, write: {
            if case .promote(let product, let offer) = $0 { [product] + (offer.map { ["offer", $0] } ?? []) } else { nil }
        }) { w throws(ParseFailure) in
            .promote(try w.next("PRODUCT"), offer: try w.value(after: "offer", "ID"))
        },
        Step(keyword: "advance", usage: "advance PERIOD|DURATION  (P3D, P1W, P1M, P1Y… compressed by the time rate; 500ms, 31s, 2m: the clock, as is)",
             section: .tester, write: {
            switch $0 {
            case .advance(let period): [period.iso]
            case .elapse(let duration): [text(duration)]
            default: nil
            }
        }) { w throws(ParseFailure) in
            let text = try w.next("PERIOD")
            if !text.hasPrefix("P") {
                guard let duration = wallClock(text) else { throw w.fail("'\(text)' is not a period like P1M or a duration like 31s") }
                return .elapse(duration)
            }
            guard let period = Period(iso: text) else {
                // Well formed but too long: past what one step takes, on the way to the clock's last day.
                guard text.first == "P", text.count > 2, "DWMY".contains(text.last!),
                      text.dropFirst().dropLast().utf8.allSatisfy({ (48...57).contains($0) }) else {
                    throw w.fail("'\(text)' is not a period")
                }
                throw w.fail("'\(text)' is too long: a step advances at most 1000 days, weeks, months or years, "
                             + "and the store clock ends at \(SupportedDates.latestText)")
            }
            return .advance(period)
        },
        Step(keyword: "export", usage: "export FILE  (every signed token, as `storefront export --json` prints them)",
             section: .tester, write: { if case .export(let file) = $0 { [file] } else { nil } }) { w throws(ParseFailure) in .export(try w.next("FILE")) },
        Step(keyword: "clear", usage: "clear", section: .tester, write: only(.clear)) { _ throws(ParseFailure) in .clear },
        Step(keyword: "reset", usage: "reset", section: .tester, write: only(.reset)) { _ throws(ParseFailure) in .reset },
    ]

    /// One step per keyword of `TesterControl.table`: `refund PRODUCT [prorated]`, `auto-renew PRODUCT on|off`…
    static var controlSteps: [Step] {
        var keywords: [String] = []
        for spec in TesterControl.table {
            let keyword = String(spec.step.split(separator: " ")[0])
            if !keywords.contains(keyword) { keywords.append(keyword) }
        }
        return keywords.map { keyword in
            let specs = TesterControl.table.filter { $0.step.split(separator: " ")[0] == keyword }
            let tails = specs.map { $0.step.split(separator: " ").dropFirst().joined(separator: " ") }
            let choices = tails.filter { !$0.isEmpty }.joined(separator: "|")
            let usage = "\(keyword) PRODUCT" + (optionalWords(tails).map { " " + $0.map { "[\($0)]" }.joined(separator: " ") }
                ?? (choices.isEmpty ? "" : tails.contains("") ? " [\(choices)]" : " \(choices)"))
            return Step(keyword: keyword, usage: usage, section: .tester, write: {
                guard case .control(let control, .newest(let product)) = $0, let spec = specs.first(where: { $0.control == control }) else { return nil }
                return [product] + spec.step.split(separator: " ").dropFirst().map(String.init)
            }) { w throws(ParseFailure) in
                let product = try w.next("PRODUCT")
                let tail = w.rest()
                guard let spec = specs.first(where: { spec in
                    let words = spec.step.split(separator: " ").dropFirst().map(String.init)
                    return words.map(ScenarioParser.normalized) == tail.map(ScenarioParser.normalized)
                }) else {
                    throw w.fail(tail.isEmpty ? "missing \(choices)" : "unexpected '\(tail.joined(separator: " "))'")
                }
                return .control(spec.control, .newest(productID: product))
            }
        }
    }

    /// The words of `tails` when they are every combination of a few optional words, in order
    /// (`refund PRODUCT [prorated] [developerIssue]`); nil otherwise, and for a single one.
    static func optionalWords(_ tails: [String]) -> [String]? {
        let words = tails.flatMap { $0.split(separator: " ").map(String.init) }.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        guard words.count > 1, tails.count == 1 << words.count else { return nil }
        let combinations = (0..<tails.count).map { bits in words.indices.filter { bits & (1 << $0) != 0 }.map { words[$0] }.joined(separator: " ") }
        return Set(combinations) == Set(tails) ? words : nil
    }

    static let longestWait = Duration.seconds(600)

    /// A row that writes one command, which has no words of its own.
    static func only(_ command: StoreCommand) -> @Sendable (StoreCommand) -> [String]? { { $0 == command ? [] : nil } }

    /// A command as its scenario step, one line (words with spaces quoted); nil for one no step says
    /// (a question to the store, a resend), or one naming a transaction by ID rather than by product.
    static func line(_ command: StoreCommand) -> String? {
        for step in steps {
            guard let words = step.write(command) else { continue }
            return ([step.keyword] + words.map { $0.contains(where: { $0.isWhitespace || $0 == "#" }) || $0.isEmpty ? "\"\($0)\"" : $0 })
                .joined(separator: " ")
        }
        return nil
    }

    /// A duration as `wallClock` reads it: whole seconds, else milliseconds.
    static func text(_ duration: Duration) -> String {
        let ms = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return ms % 1000 == 0 ? "\(ms / 1000)s" : "\(ms)ms"
    }

    /// `500ms`, `31s`, `2m` as wall-clock time; one too large to count (in any unit) is longer than any wait.
    static func wallClock(_ text: String) -> Duration? {
        let units: [(String, Int64)] = [("ms", 1), ("s", 1000), ("m", 60_000)]
        for (suffix, ms) in units where text.hasSuffix(suffix) {
            let digits = text.dropLast(suffix.count)
            guard !digits.isEmpty, digits.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
            let n = Int64(digits) ?? .max
            guard n > 0 else { return nil }
            let (total, overflow) = n.multipliedReportingOverflow(by: ms)
            return .milliseconds(overflow ? .max : total)
        }
        return nil
    }

    /// `buy` and `cancel`'s words: what differs from a plain purchase of one.
    static func write(_ command: StoreCommand, answer: PaymentSheetAnswer) -> [String]? {
        guard case .buy(let product, let quantity, let offer, let signature, let askToBuy, let plan, let token, let eligibility, answer) = command
        else { return nil }
        var words = [product]
        if quantity != 1 { words += ["quantity", String(quantity)] }
        if let offer { words += ["offer", offer] }
        switch signature {
        case .valid: break
        case .missing: words += ["signature", "missing"]
        case .invalid: words += ["signature", "invalid"]
        case .file(let path): words += ["signature", "file", path]
        case .given: return nil  // the store signs a valid one on replay: the recorder writes it as .valid
        }
        if plan != .upFront { words += ["plan", plan.rawValue] }
        if let token { words += ["account-token", token.uuidString.lowercased()] }
        if let eligibility { words += ["intro-eligibility", eligibility] }
        return words + (askToBuy ? ["ask-to-buy"] : [])
    }

    static func buy(_ w: inout Words, answer: PaymentSheetAnswer) throws(ParseFailure) -> StoreCommand {
        let product = try w.next("PRODUCT")
        var quantity = 1, offer: String?, signature = StoreCommand.OfferSignature.valid, askToBuy = false, plan = BillingPlanType.upFront
        var token: UUID?, introEligibility: String?
        while let word = w.peek {
            switch word {
            case "plan": w.skip(); plan = try w.oneOf(BillingPlanType.self, "upFront|monthly")
            case "quantity": w.skip(); quantity = try w.int("N")
            case "offer": w.skip(); offer = try w.next("ID")
            case "signature":
                w.skip()
                switch try w.next("missing|invalid|file") {
                case "missing": signature = .missing
                case "invalid": signature = .invalid
                case "file": signature = .file(try w.next("FILE"))
                case let other: throw w.fail("unknown signature '\(other)' (missing, invalid or file FILE)")
                }
            case "intro-eligibility": w.skip(); introEligibility = try w.next("FILE")
            case "ask-to-buy": w.skip(); askToBuy = true
            case "account-token":
                w.skip()
                let text = try w.next("UUID")
                guard let uuid = UUID(uuidString: text) else { throw w.fail("'\(text)' is not a UUID") }
                token = uuid
            default: throw w.fail("unexpected '\(word)'")
            }
        }
        return .buy(product, quantity: quantity, offer: offer, signature: signature, askToBuy: askToBuy, plan: plan, appAccountToken: token,
                    introEligibility: introEligibility, answer: answer)
    }

    /// Every action step, one a line, by section (for `ScenarioParser.reference`, which `storefront run --help` prints).
    static var reference: [String] {
        Section.allCases.flatMap { section in steps.filter { $0.section == section }.map(\.usage) }
    }
}
