import Foundation
import Testing
import StoreCore
import StoreEngine
@testable import StorefrontApp

@Suite("Scenario parser")
struct ScenarioParserTests {
    func kinds(_ text: String) throws -> [ScenarioStep.Kind] {
        try ScenarioParser.parse(text, path: "/tmp/t.scenario").steps.map(\.kind)
    }

    func error(_ text: String) -> String? {
        do { _ = try ScenarioParser.parse(text, path: "/q/refund.scenario"); return nil } catch { return error.description }
    }

    @Test("every action form")
    func actions() throws {
        let cases: [(String, StoreCommand)] = [
            ("storefront jpn locale ja_JP", .storefront("JPN", locale: "ja_JP")),
            ("storefront GBR", .storefront("GBR", locale: nil)),
            ("set askToBuy on", .set(.askToBuy, true)),
            ("set billingRetry off", .set(.billingRetryOnRenewal, false)),
            ("set timeRate monthlyRenewalEveryThirtySeconds", .timeRate(.monthlyRenewalEveryThirtySeconds)),
            ("set timeRate 1005", .timeRate(.oneRenewalEveryTwoSeconds)),
            ("fail purchase networkError", .fail(.purchase, .storeKit(.networkError))),
            ("fail verification invalidSignature", .fail(.verification, .verification(.invalidSignature))),
            ("fail purchase off", .fail(.purchase, nil)),
            ("buy p", .buy("p", quantity: 1, offer: nil, signature: .valid, askToBuy: false, answer: .confirm)),
            ("buy p quantity 3 ask-to-buy", .buy("p", quantity: 3, offer: nil, signature: .valid, askToBuy: true, answer: .confirm)),
            ("buy p offer o signature missing", .buy("p", quantity: 1, offer: "o", signature: .missing, askToBuy: false, answer: .confirm)),
            ("cancel p", .buy("p", quantity: 1, offer: nil, signature: .valid, askToBuy: false, answer: .cancel)),
            ("buy p plan monthly offer o", .buy("p", quantity: 1, offer: "o", signature: .valid, askToBuy: false, plan: .monthly, answer: .confirm)),
            ("buy p account-token 0b7f1c5e-2d1a-4c3e-9f00-5a6b7c8d9e0f", .buy("p", quantity: 1, offer: nil, signature: .valid, askToBuy: false,
                                                                             appAccountToken: UUID(uuidString: "0b7f1c5e-2d1a-4c3e-9f00-5a6b7c8d9e0f"), answer: .confirm)),
            ("set appAccountToken 0b7f1c5e-2d1a-4c3e-9f00-5a6b7c8d9e0f", .appAccountToken(UUID(uuidString: "0b7f1c5e-2d1a-4c3e-9f00-5a6b7c8d9e0f"))),
            ("set appAccountToken none", .appAccountToken(nil)),
            ("buy p offer o signature file offer.jws intro-eligibility intro.jws", .buy("p", quantity: 1, offer: "o", signature: .file("offer.jws"),
                                                                                       askToBuy: false, introEligibility: "intro.jws", answer: .confirm)),
            ("restore", .restore), ("refresh", .refresh), ("redeem CODE", .redeem("CODE")),
            ("request-refund p", .requestRefund(.newest(productID: "p"), reason: "scenario")),
            ("request-refund p reason I didn't receive it", .requestRefund(.newest(productID: "p"), reason: "I didn't receive it")), ("quit", .quit), ("launch", .launch), ("restart", .restart),
            ("approve p", .control(.approve, .newest(productID: "p"))), ("decline p", .control(.decline, .newest(productID: "p"))), ("resolve p", .control(.resolve, .newest(productID: "p"))),
            ("revoke-family p", .control(.revokeFamily, .newest(productID: "p"))), ("approve-refund p", .control(.approveRefund, .newest(productID: "p"))),
            ("decline-refund p", .control(.declineRefund, .newest(productID: "p"))), ("delete p", .control(.delete, .newest(productID: "p"))),
            ("expire p", .control(.expire, .newest(productID: "p"))), ("renew p", .control(.renew, .newest(productID: "p"))), ("fix-billing p", .control(.fixBilling, .newest(productID: "p"))),
            ("refund p", .control(.refund(prorated: false, reason: .other), .newest(productID: "p"))),
            ("refund p prorated", .control(.refund(prorated: true, reason: .other), .newest(productID: "p"))),
            ("refund p prorated developerIssue", .control(.refund(prorated: true, reason: .developerIssue), .newest(productID: "p"))),
            ("auto-renew p off", .control(.autoRenew(false), .newest(productID: "p"))), ("price-increase p agree", .control(.priceIncrease(.agree), .newest(productID: "p"))),
            ("buy-elsewhere p family", .buyElsewhere("p", family: true)), ("buy-elsewhere p", .buyElsewhere("p", family: false)),
            ("advance P1M", .advance(Period(1, .month))), ("clear", .clear), ("reset", .reset),
        ]
        for (text, action) in cases {
            #expect(try kinds(text) == [.action(action)], "\(text)")
        }
    }

    @Test("every expectation form")
    func expectations() throws {
        let cases: [(String, ScenarioExpectation)] = [
            ("expect result pending", ScenarioExpectation(probe: .result, subject: [], expected: "pending")),
            ("expect result failed notEligible", ScenarioExpectation(probe: .result, subject: [], expected: "failed notEligible")),
            ("expect entitled p", ScenarioExpectation(probe: .entitled, subject: ["p"], expected: "yes")),
            ("expect not entitled p", ScenarioExpectation(probe: .entitled, subject: ["p"], expected: "no")),
            ("expect balance p 3", ScenarioExpectation(probe: .balance, subject: ["p"], expected: "3")),
            ("expect status g inGracePeriod", ScenarioExpectation(probe: .status, subject: ["g"], expected: "inGracePeriod")),
            ("expect renewal g willAutoRenew false", ScenarioExpectation(probe: .renewal, subject: ["g", "willAutoRenew"], expected: "no")),
            ("expect intro-eligible g yes", ScenarioExpectation(probe: .introEligible, subject: ["g"], expected: "yes")),
            ("expect not intro-eligible g", ScenarioExpectation(probe: .introEligible, subject: ["g"], expected: "no")),
            ("expect error none", ScenarioExpectation(probe: .error, subject: [], expected: "none")),
            ("expect transactions 3", ScenarioExpectation(probe: .transactions, subject: [], expected: "3")),
            ("expect ledger 4", ScenarioExpectation(probe: .ledger, subject: [], expected: "4")),
            ("expect unfinished 0", ScenarioExpectation(probe: .unfinished, subject: [], expected: "0")),
            ("expect products 9", ScenarioExpectation(probe: .products, subject: [], expected: "9")),
            ("expect verification p invalidSignature", ScenarioExpectation(probe: .verification, subject: ["p"], expected: "invalidSignature")),
            ("expect transaction p offer code", ScenarioExpectation(probe: .transaction, subject: ["p", "offer"], expected: "code")),
            ("expect message \"Restored 1 purchase\" # done", ScenarioExpectation(probe: .message, subject: [], expected: "Restored 1 purchase")),
            ("expect storefront JPN", ScenarioExpectation(probe: .storefront, subject: [], expected: "JPN")),
            ("expect price p \"¥1,600\"", ScenarioExpectation(probe: .price, subject: ["p"], expected: "¥1,600")),
        ]
        for (text, expectation) in cases {
            #expect(try kinds(text) == [.expect(expectation)], "\(text)")
        }
    }

    @Test("comments, blank lines, the title, line numbers, catalog path and the source text")
    func fileStructure() throws {
        let s = try ScenarioParser.parse("""
            # Refund a purchase
            catalog ../catalog.json

               # just a comment
            buy  p   # first
            expect  message "a # b"
            """, path: "/work/x/refund.scenario")
        #expect(s.title == "Refund a purchase")
        #expect(s.catalogPath == "/work/x/../catalog.json")
        #expect(s.steps.map(\.line) == [5, 6])
        #expect(s.steps.map(\.text) == ["buy p", "expect message \"a # b\""])
        #expect(s.name == "refund.scenario")
        #expect(try ScenarioParser.parse("buy p", path: "/a/b.scenario").title == "b")
    }

    @Test("errors name the file, the line and what was expected")
    func errors() {
        #expect(error("buy p\n\nrefnd p")?.hasPrefix("refund.scenario:3: unknown step 'refnd' (expected one of: catalog, storefront, set, ") == true)
        #expect(error("buy")  == "refund.scenario:1: missing PRODUCT (expected: buy PRODUCT [quantity N] [offer ID [signature missing|invalid|file FILE]] [plan upFront|monthly] [account-token UUID] [intro-eligibility FILE] [ask-to-buy])")
        #expect(error("buy p quantity x")?.hasPrefix("refund.scenario:1: 'x' is not a number") == true)
        #expect(error("set askToBuy maybe")?.hasPrefix("refund.scenario:1: expected on or off, got 'maybe'") == true)
        #expect(error("set sparkles on")?.hasPrefix("refund.scenario:1: unknown setting 'sparkles'") == true)
        #expect(error("set timeRate warp")?.hasPrefix("refund.scenario:1: unknown time rate 'warp'") == true)
        #expect(error("buy p account-token 42")?.hasPrefix("refund.scenario:1: '42' is not a UUID") == true)
        #expect(error("fail purchase oops")?.hasPrefix("refund.scenario:1: unknown error 'oops'") == true)
        #expect(error("fail sheet networkError")?.hasPrefix("refund.scenario:1: unexpected 'sheet' (expected one of: loadProducts,") == true)
        #expect(error("advance 1M")?.hasPrefix("refund.scenario:1: '1M' is not a period") == true)
        #expect(error("restore now")?.hasPrefix("refund.scenario:1: unexpected 'now' (expected: restore)") == true)
        #expect(error("expect happiness")?.hasPrefix("refund.scenario:1: unknown expectation 'happiness'") == true)
        #expect(error("expect balance p lots")?.hasPrefix("refund.scenario:1: 'lots' is not a number (expected: expect balance PRODUCT N)") == true)
        #expect(error("expect status g fine")?.hasPrefix("refund.scenario:1: unexpected 'fine' (expected one of: subscribed,") == true)
        #expect(error("expect renewal g colour blue")?.hasPrefix("refund.scenario:1: unknown renewal field 'colour'") == true)
        #expect(error("expect result failed oops")?.hasPrefix("refund.scenario:1: unknown error 'oops'") == true)
        #expect(error("expect not balance p 1")?.hasPrefix("refund.scenario:1: 'not' only goes with") == true)
        #expect(error("expect message")?.hasPrefix("refund.scenario:1: missing the expected value") == true)
        #expect(error("buy p\ncatalog c.json") == "refund.scenario:2: 'catalog' must come before every other step")
        #expect(error("buy p\n# fine\nexpect entitled p") == nil)
    }

    @Test("products, groups and storefronts are checked against the catalog, with file:line")
    func catalogReferences() throws {
        let catalog = try CatalogLoader.load(path: ScenarioPaths.catalog)
        func check(_ text: String) -> String? {
            do { try ScenarioParser.validate(try ScenarioParser.parse(text, path: "/q/x.scenario"), against: catalog); return nil }
            catch { return "\(error)" }
        }
        #expect(check("buy com.lumenquest.pro\nexpect status lumenquest.membership none\nredeem NOPE\nbuy com.lumenquest.pro.monthly offer nope") == nil)
        #expect(check("buy com.lumenquest.pro\nrefund com.lumenquest.prro")?.hasPrefix("x.scenario:2: unknown product 'com.lumenquest.prro' (the catalog has com.lumenquest.coins.100,") == true)
        #expect(check("expect balance com.lumenquest.gold 1")?.hasPrefix("x.scenario:1: unknown product 'com.lumenquest.gold'") == true)
        #expect(check("expect status membership none")?.hasPrefix("x.scenario:1: unknown subscription group 'membership'") == true)
        #expect(check("expect renewal lumenquest.membership autoRenewProduct com.x")?.hasPrefix("x.scenario:1: unknown product 'com.x'") == true)
        #expect(check("storefront XYZ")?.hasPrefix("x.scenario:1: unknown storefront 'XYZ'") == true)
    }

    @Test("the reference lists every step and expectation")
    func reference() {
        let text = ScenarioParser.reference.joined(separator: "\n")
        for word in ["catalog FILE", "buy PRODUCT", "fix-billing PRODUCT", "expect [not] entitled", "expect price PRODUCT"] {
            #expect(text.contains(word), "\(word)")
        }
    }
}
