import Foundation
import Testing
import StoreCore
import TerminalUI
@testable import StorefrontApp
import StorefrontTestSupport

/// The paywall (`SubscriptionStoreView`), the product card (`ProductView`) and how they open.
@Suite struct PaywallTests {
    static let group = "lumenquest.membership"

    /// The Store screen with its selection on `productID`.
    static func store(_ state: AppState, on productID: String) -> AppState {
        var state = state
        state.selection[.store] = StoreScreen.products(state).firstIndex { $0.id == productID }
        return state
    }

    static func paywall(_ state: AppState) -> PaywallSheet? {
        if case .paywall(let sheet) = state.top { sheet } else { nil }
    }

    @Test func dollarOnASubscriptionOpensItsGroupsPaywallInTheChosenStyle() async throws {
        var state = Self.store(try await fixtureState(purchases: false), on: ID.plusMonthly)
        state.paywallStyle = .buttons
        _ = press(&state, .character("$"))
        let sheet = try #require(Self.paywall(state))
        #expect(sheet.groupID == Self.group)
        #expect(sheet.style == .buttons)
    }

    @Test func sSwitchesTheControlStyleLiveThroughEveryStyle() async throws {
        var state = try await fixtureState(purchases: false)
        state.sheets.append(.paywall(PaywallSheet(groupID: Self.group, style: .automatic)))
        var seen: [PaywallStyle] = []
        for _ in PaywallStyle.allCases {
            _ = press(&state, .character("s"))
            seen.append(try #require(Self.paywall(state)).style)
        }
        #expect(seen == [.picker, .buttons, .prominentPicker, .compactPicker, .automatic])
        #expect(state.paywallStyle == .automatic, "the next paywall opens in the style chosen last")
    }

    @Test func subscribeOpensTheSamePaymentSheetOnTheChosenPlanAndItsIntroOffer() async throws {
        var state = try await fixtureState(purchases: false)
        state.sheets.append(.paywall(PaywallSheet(groupID: Self.group, style: .picker)))
        _ = press(&state, .down, .enter)  // Pro Monthly, Subscribe
        guard case .payment(let payment) = state.top else { Issue.record("no payment sheet"); return }
        #expect(payment.productID == ID.proMonthly)
        #expect(payment.offer == .none, "the intro offer applies by itself, as on the Store screen")
        #expect(state.sheets.count == 2, "the paywall stays under the payment sheet")
        let effects = press(&state, .enter)  // Confirm
        guard case .command(.buy(let id, _, _, _, _, _, _, _, _))? = effects.first else { Issue.record("no purchase command"); return }
        #expect(id == ID.proMonthly, "bought through the command layer")
    }

    @Test func aClickOnEachButtonDoesWhatItSays() async throws {
        var state = try await fixtureState(purchases: false)
        state.size = Size(width: 80, height: 24)
        state.sheets.append(.paywall(PaywallSheet(groupID: Self.group, style: .picker, button: 2)))
        func click(_ label: String) -> [Effect] {
            let lines = render(state, size: state.size).lines
            guard let y = lines.firstIndex(where: { $0.contains(label) }), let x = lines[y].range(of: label).map({ DisplayWidth.of(String(lines[y][..<$0.lowerBound])) + 2 })
            else { Issue.record("no \(label)"); return [] }
            return reduce(&state, .key(.mouse(Mouse(.click, x: x, y: y))))
        }
        #expect(click("[ Restore Purchases ]") == [.command(.restore)])
        _ = click("[ Subscribe ]")
        if case .payment = state.top {} else { Issue.record("Subscribe opens the payment sheet, whichever button was selected") }
    }

    @Test func aPlansEligibleOfferIsTheIntroductoryOneForANewCustomerAndAPromotionalOneForASubscriber() async throws {
        let newcomer = try await fixtureState(purchases: false)
        let plus = try #require(newcomer.product(ID.plusMonthly))
        #expect(PaywallSheet.activeOffer(plus, newcomer)?.terms.type == .introductory)
        let subscriber = try await fixtureState()  // has Plus Monthly
        let offer = try #require(PaywallSheet.activeOffer(plus, subscriber))
        #expect(offer.terms.type == .promotional, "no second intro offer in the group; a subscriber may take a promotional one")
        if case .promotional = offer.choice {} else { Issue.record("the payment sheet opens on the promotional offer") }
    }

    @Test func aLapsedSubscriberGetsTheWinBackOfferTheirRenewalInfoNamesAndSubscribeOpensOnIt() async throws {
        var lapsed = try await WinBackInStoreTests().state(expired: true)
        let plus = try #require(lapsed.product(ID.plusMonthly))
        #expect(PaywallSheet.activeOffer(plus, lapsed)?.choice == .winBack("plus.winback"))
        let index = try #require(PaywallSheet.plans(Self.group, lapsed).firstIndex { $0.id == ID.plusMonthly })
        lapsed.sheets.append(.paywall(PaywallSheet(groupID: Self.group, style: .picker, selected: index)))
        _ = press(&lapsed, .enter)
        guard case .payment(let payment) = lapsed.top else { Issue.record("no payment sheet"); return }
        #expect(payment.offer == .winBack("plus.winback"))
    }

    @Test func restoreAndRedeemCodeAreTheStoresOwn() async throws {
        var state = try await fixtureState(purchases: false)
        state.sheets.append(.paywall(PaywallSheet(groupID: Self.group, style: .picker)))
        #expect(press(&state, .right, .enter) == [.command(.restore)])
        _ = press(&state, .right, .enter)
        if case .redeem = state.top {} else { Issue.record("Redeem Code opens the redeem sheet") }
    }

    @Test func aSubscriberIsToldWhatChoosingAnotherPlanDoes() async throws {
        var state = try await fixtureState()  // Plus Monthly, level 2
        state.sheets.append(.paywall(PaywallSheet(groupID: Self.group, style: .picker)))
        let text = render(state, size: Size(width: 140, height: 40)).text
        #expect(text.contains("You're subscribed to Plus Monthly."))
        #expect(text.contains("Upgrade to Pro Yearly · $99.99/year · starts now"), "Pro is a higher level: an upgrade, at once")
    }

    @Test func vShowsAProductCardInEachProductViewStyle() async throws {
        var state = Self.store(try await fixtureState(purchases: false), on: ID.pro)
        _ = press(&state, .character("i"), .character("v"))
        var styles: [ProductCardStyle] = []
        for _ in 0..<3 {
            guard case .productCard(let card) = state.top else { Issue.record("no product card"); return }
            styles.append(card.style)
            #expect(render(state, size: Size(width: 80, height: 24)).text.contains("[ $9.99 ]"), "the buy button shows the price")
            _ = press(&state, .character("s"))
        }
        #expect(styles == [.regular, .compact, .large])
        _ = press(&state, .enter)
        #expect(state.sheets.count == 3, "over the card, over the details")
        if case .payment = state.top {} else { Issue.record("its button buys through the payment sheet") }
    }

    @MainActor @Test func anUnknownGroupOnTheCommandLineNamesTheGroupsThereAre() async throws {
        #expect(throws: UsageError(description: "--paywall: unknown subscription group 'Gold' (this catalog has: lumenquest.membership (Membership))")) {
            try StorefrontTUI.paywallGroup(named: "Gold", in: Repo.catalog)
        }
        #expect(try StorefrontTUI.paywallGroup(named: "Membership", in: Repo.catalog) == Self.group, "by reference name")
        #expect(await StorefrontProgram.main(["--catalog", Repo.catalogPath, "--ephemeral", "--paywall", "Gold"]) == 2)
        #expect(await StorefrontProgram.main(["--paywall-style", "carousel"]) == 2)
        guard case .run(let o) = try CommandLineParser.parse(["--paywall", "Membership", "--paywall-style", "compactPicker"]) else { return }
        #expect(o.paywall == "Membership" && o.paywallStyle == .compactPicker)
    }

    // MARK: Golden screens

    static let sizes = [Size(width: 80, height: 24), Size(width: 140, height: 40)]

    @Test(arguments: PaywallStyle.allCases)
    func paywall(style: PaywallStyle) async throws {
        var state = try await fixtureState(purchases: false)
        state.sheets.append(.paywall(PaywallSheet(groupID: Self.group, style: style, selected: 1)))
        for size in Self.sizes {
            state.size = size
            try GoldenScreenTests().assertScreen("paywall-\(style.rawValue)-\(size.width)x\(size.height)", render(state, size: size).text)
        }
    }

    @Test func paywallForASubscriberInJapanese() async throws {
        var state = try await fixtureState(storefront: "JPN", locale: "ja_JP")
        state.sheets.append(.paywall(PaywallSheet(groupID: Self.group, style: .prominentPicker)))
        for size in Self.sizes {
            state.size = size
            let text = render(state, size: size).text
            try GoldenScreenTests().assertScreen("paywall-ja-\(size.width)x\(size.height)", text)
            #expect(text.contains("¥"), "prices in yen")
        }
    }

    @Test(arguments: ProductCardStyle.allCases)
    func productCard(style: ProductCardStyle) async throws {
        var state = try await fixtureState(purchases: false)
        state.sheets.append(.productCard(ProductCardSheet(productID: ID.plusMonthly, style: style)))
        try GoldenScreenTests().assertScreen("product-card-\(style.rawValue)-80x24", render(state, size: Self.sizes[0]).text)
    }
}
