import Foundation
import StoreClient
import StoreCore
import StoreEngine
import Testing
import TerminalUI
@testable import StorefrontApp
import StorefrontTestSupport

/// The storefront on the billing-plans catalog, a new customer (eligible for intro offers), at the fixed time.
/// `buying`: the customer subscribes on that plan first.
private func planState(buying plan: BillingPlanType? = nil) async throws -> AppState {
    var catalog = try CatalogLoader.load(path: BillingPlanDisplayTests.path)
    catalog.settings.networkDelay = 0
    let stack = try await StoreStack.open(catalog: catalog, stateDirectory: nil, time: FixedTime())
    if let plan { await stack.manager.purchase(BillingPlanDisplayTests.yearly, options: PurchaseOptions(billingPlan: plan)) }
    await stack.manager.refresh()
    let state = await AppState.opening(catalog, manager: stack.manager, controls: stack.store)
    await stack.manager.stop()
    await stack.store.shutdown()
    return state
}

@Suite("Billing plans on show")
struct BillingPlanDisplayTests {
    static let path = Repo.root.appendingPathComponent("Tests/Scenarios/catalogs/billing-plans.json").path
    let catalog = try! CatalogLoader.load(path: BillingPlanDisplayTests.path)
    var products: [Product] { catalog.products(storefront: "USA", locale: "en_US") }

    @Test("a plan reads as the App Store shows it: the monthly price with its 12-month commitment")
    func planText() throws {
        let yearly = try #require(products.first)
        #expect(yearly.planText(.upFront) == "$29.99/year")
        #expect(yearly.planText(.monthly) == "$2.99/month, 12-month commitment")
        #expect(yearly.commitmentText(.monthly) == "$35.88")
        let japan = try #require(catalog.products(storefront: "JPN", locale: "ja_JP").first)
        #expect(japan.planText(.monthly)?.hasPrefix("￥480/") == true || japan.planText(.monthly)?.hasPrefix("¥480/") == true)
    }

    @Test("an offer on the monthly plan is followed by the monthly price")
    func offerTextFollowsItsPlan() throws {
        let yearly = try #require(products.first)
        let monthlyIntro = try #require(yearly.subscription?.introductoryOffer(on: .monthly))
        #expect(yearly.offerText(monthlyIntro) == "$0.99/month for 3 months, then $2.99/month, 12-month commitment")
        #expect(yearly.offerText(try #require(yearly.subscription?.introductoryOffer)) == "1 month free, then $29.99/year")
    }

    @Test("storefront catalog --json gives billingPlans and each offer's billingPlan")
    func catalogJSON() throws {
        let json = try JSONParser.parse(CatalogCommand.json(products, catalog: catalog, locale: "en_US"))
        let yearly = try #require(json.arrayValue?.first)
        let plans = try #require(yearly["billingPlans"]?.arrayValue)
        #expect(plans.compactMap { $0["billingPlanType"]?.stringValue } == ["BILLED_UPFRONT", "MONTHLY"])
        #expect(plans[1]["displayPrice"] == "$2.99" && plans[1]["billingPeriod"] == "P1M")
        #expect(plans[1]["commitmentDisplayPrice"] == "$35.88" && plans[1]["commitmentPeriod"] == "P1Y")
        #expect(yearly["offers"]?.arrayValue?.compactMap { $0["billingPlan"]?.stringValue } == ["upFront", "monthly", "upFront", "monthly"])
    }

    @Test("storefront catalog's table lists the billing plans and which plan each offer is for")
    func catalogTable() throws {
        let context = try StoreContext.resolve(CommandLineOptions(), catalogPath: Self.path)
        let text = CatalogCommand.table(products, context: context)
        #expect(text.contains("com.lumennotes.pro.yearly  monthly  $2.99/month, 12-month commitment  $35.88      yes"))
        #expect(text.contains("pro.monthly.comeback  1 month free, then $2.99/month, 12-month commitment              monthly"))
        let plain = try StoreContext.resolve(CommandLineOptions(), catalogPath: Repo.catalogPath)
        #expect(!CatalogCommand.table(plain.catalog.products(storefront: "USA", locale: "en_US"), context: plain).contains("Billing plans"))
    }

    static let yearly = "com.lumennotes.pro.yearly"

    @Test("the payment sheet starts up front, StoreKit's default, and b chooses the monthly plan with its own intro and offers")
    func paymentSheetChoosesThePlan() async throws {
        var state = try await planState()
        var sheet = draft(for: try #require(state.product(Self.yearly)), state)
        #expect(sheet.plans == [.upFront, .monthly] && sheet.plan == .upFront)
        #expect(sheet.offers == [.none, .promotional("pro.yearly.comeback")])
        #expect(sheet.body(state).contains("Billing plan: Up front   (b to change)"))
        #expect(sheet.body(state).contains("Intro offer: 1 month free, then $29.99/year"))
        _ = sheet.perform(.nextPlan, &state)
        #expect(sheet.plan == .monthly)
        #expect(sheet.offers == [.none, .promotional("pro.monthly.comeback")])
        #expect(sheet.body(state).contains("Intro offer: $0.99/month for 3 months, then $2.99/month, 12-month commitment"))
        #expect(sheet.body(state).contains("Commitment: 12 monthly payments, $35.88 in all."))
        let step = sheet.perform(.activate, &state)
        guard case .command(.buy(Self.yearly, _, nil, _, _, let plan, _, _, .confirm))? = step.effects.first else {
            Issue.record("no purchase: \(step.effects)")
            return
        }
        #expect(plan == .monthly)
    }

    @Test("a product without billing plans has no plan choice on its payment sheet")
    func noPlanChoiceWithoutPlans() async throws {
        let state = try await fixtureState(purchases: false)
        let sheet = draft(for: try #require(state.product("com.lumenquest.plus.yearly")), state)
        #expect(sheet.plans == [.upFront])
        #expect(!sheet.bindings(state).contains { $0.action == .nextPlan })
        #expect(!sheet.body(state).contains { $0.hasPrefix("Billing plan") })
    }

    @Test("choosing another plan keeps the payment sheet the same size")
    func planChoiceKeepsTheSheetsSize() async throws {
        var state = try await planState()
        var sheet = draft(for: try #require(state.product(Self.yearly)), state)
        var frames: Set<String> = []
        for _ in 0..<4 {
            var canvas = Canvas(width: 80, height: 24)
            sheet.draw(state, in: TerminalUI.Rect(x: 0, y: 0, width: 80, height: 24), on: &canvas)
            frames.insert(canvas.lines.filter { $0.contains("┌") || $0.contains("└") }.joined(separator: "|"))
            _ = sheet.perform(.nextPlan, &state)
            _ = sheet.perform(.nextOffer, &state)
        }
        #expect(frames.count == 1, "\(frames)")
    }

    @Test("the product detail lists the billing plans with their commitment")
    func productDetailListsPlans() async throws {
        let state = try await planState()
        let lines = ProductDetailSheet(productID: Self.yearly).lines(state)
        #expect(lines.contains("  Up front · $29.99/year"))
        #expect(lines.contains("  Monthly · $2.99/month, 12-month commitment · $35.88 in all"))
    }

    @Test("golden: the payment sheet on the monthly plan")
    func paymentSheetMonthlyGolden() async throws {
        var state = try await planState()
        press(&state, .enter, .character("b"))
        let record = ProcessInfo.processInfo.environment["RECORD_SCREENS"] == "1"
        if let failure = try Golden.check("payment-billing-plan-monthly", render(state, size: Size(width: 80, height: 24)).text,
                                          in: Repo.screens, record: record) {
            Issue.record(Comment(rawValue: failure))
        }
    }

    @Test("the Subscriptions screen shows the plan a subscriber pays on and what the next month charges")
    func subscriptionsScreenShowsThePlan() async throws {
        var state = try await planState(buying: .monthly)
        press(&state, .character("2"))
        let text = render(state, size: Size(width: 100, height: 30)).text
        #expect(text.contains("Product: Pro Yearly ($2.99/month, 12-month commitment)"))
        #expect(text.contains("Will auto-renew: yes at $0.99/month"))
    }

    @Test("a demo buys on a plan as a presenter would: b on the payment sheet, then the plan's own offer")
    func demoPressesBForThePlan() async throws {
        var state = WalkthroughState(app: try await planState(), walk: WalkState(scenario: Scenario(path: "d.scenario", title: "d", steps: []), isDemo: true))
        let line = "buy \(Self.yearly) plan monthly offer pro.monthly.comeback"
        guard case .action(let action) = try ScenarioParser.parse(line, path: "/tmp/d.scenario").steps[0].kind else { throw CancellationError() }
        let moves = try #require(DemoPlan.moves(for: action, in: state.app))
        #expect(moves.contains(.key(.character("b"))))
        var effects: [WalkthroughEffect] = []
        for case .key(let key) in moves { effects += reduce(&state, .walk(.demoKey(key))) }
        guard case .app(.command(.buy(Self.yearly, _, let offer, _, _, let plan, _, _, .confirm)))? = effects.last else {
            Issue.record("no purchase: \(effects)")
            return
        }
        #expect(plan == .monthly && offer == "pro.monthly.comeback")
    }
}
