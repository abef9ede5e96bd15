import Foundation
import Testing
import StoreClient
import StoreCore
import StoreEngine
import TerminalUI
@testable import StorefrontApp
import StorefrontTestSupport

/// The customer's language: one table per language, chosen once from the locale, every customer
/// sheet and screen wholly in it.
@Suite struct LanguageTests {
    /// One locale per table, as a customer would launch with it.
    static let locales = ["en_US", "ja_JP", "zh_CN", "zh_TW", "ko_KR", "de_DE", "fr_FR", "es_ES", "it_IT", "pt_BR"]

    /// Words of the English table that no other language's sentences use: one left in a render is
    /// English in the middle of another language.
    static let englishWords = ["Price", "Renews", "Subscribed", "Subscription", "Subscriptions", "Balance", "Environment", "then", "free",
                               "Confirm", "Cancel", "Offer", "Intro offer", "offer", "until", "for", "month", "months", "week", "year",
                               "Manage", "Keep", "Agree", "Not Now", "Refund", "Redeem", "Expires", "Product", "Switch", "Billing",
                               "Owned", "Pending", "Purchasing", "renew", "once", "Win-back", "Update", "Payment", "Commitment",
                               "Waiting", "approval", "interrupted", "unverified", "Lasts", "Sharing", "customers", "anyone",
                               "available", "cannot", "redeemed", "Consumable", "Non-Consumable", "Auto-Renewable"]

    @Test("every table has every phrase, with the English phrase's slots")
    func everyTableHasEveryPhrase() {
        #expect(StringTable.all.count == Self.locales.count)
        for table in StringTable.all {
            for phrase in Phrase.allCases {
                let text = table.entries[phrase]
                #expect(text?.isEmpty == false, "\(table.id) has no \(phrase)")
                #expect(Set(StringTable.slots(text ?? "")) == Set(StringTable.slots(StringTable.english.entries[phrase] ?? "")),
                        "\(table.id).\(phrase) names other slots than English")
            }
            #expect(table.isComplete)
        }
    }

    @Test("a template's slots are filled once, in any script; a slot with no value and a lone brace stay as written")
    func templatesFillTheirSlotsOnce() {
        #expect(StringTable.fill("{price}/月、{length}", ["price": "¥800", "length": "1か月"]) == "¥800/月、1か月")
        #expect(StringTable.fill("Total: {total}", ["total": "{price}", "price": "$1"]) == "Total: {price}")
        #expect(StringTable.fill("{missing} é", [:]) == "{missing} é")
        #expect(StringTable.fill("a { b", ["b": "x"]) == "a { b")
        #expect(StringTable.fill("no slots", ["a": "b"]) == "no slots")
        #expect(StringTable.slots("{a} and {b}, {") == ["a", "b"])
    }

    @Test func theTableIsChosenByLanguageScriptAndRegion() {
        let chosen = ["ja_JP": "ja", "ja": "ja", "zh_CN": "zh-Hans", "zh-Hans": "zh-Hans", "zh_SG": "zh-Hans", "zh_TW": "zh-Hant",
                      "zh_HK": "zh-Hant", "zh_MO": "zh-Hant", "zh-Hant": "zh-Hant", "zh-Hant-CN": "zh-Hant", "zh-Hans-HK": "zh-Hans",
                      "pt_BR": "pt-BR", "de_AT": "de", "fr_CA": "fr", "es_MX": "es", "it_IT": "it", "ko_KR": "ko", "en_GB": "en"]
        for (locale, id) in chosen { #expect(StringTable.for(locale).id == id, "\(locale)") }
    }

    @Test("a language without a table falls back whole to English, never mid-sentence")
    func aLanguageWithoutATableFallsBackWholeToEnglish() async throws {
        for locale in ["sv_SE", "pt_PT", "nl_NL", "", "xx"] { #expect(StringTable.for(locale).id == "en", "\(locale)") }
        // A table missing one phrase is never chosen: English is not mixed into it.
        var partial = StringTable.german.entries
        partial[.renewsAutomatically] = nil
        #expect(!StringTable(id: "de", entries: partial).isComplete)
        let state = try await fixtureState(locale: "sv_SE")
        let text = try #require(Self.customerText(state).first { $0.contains("Renews automatically") })
        #expect(text == "Renews automatically until cancelled.")
    }

    @Test("offer terms are wholly German under de_DE")
    func offerTermsAreWhollyGerman() async throws {
        let state = try await fixtureState(storefront: "DEU", locale: "de_DE", purchases: false)
        let store = StoreScreen.lines(state, width: 120, rows: 100).map(\.text).joined(separator: "\n")
        #expect(store.contains("Einführungsangebot: "), "\(store)")
        #expect(!store.contains("free") && !store.contains("then"), "\(store)")
        let t = state.words
        let product = try #require(state.product("com.lumenquest.plus.monthly"))
        let intro = try #require(product.subscription?.introductoryOffer)
        let terms = t.offerText(product, intro).replacingOccurrences(of: "\u{00A0}", with: " ")
        #expect(terms == "1 Woche gratis, danach 4,99 €/Monat", "\(terms)")
    }

    @Test("the answer to a purchase or a code is in the customer's language: Ask to Buy, StoreKit's errors, OK")
    func outcomesAreInTheCustomersLanguage() async throws {
        var state = try await fixtureState(storefront: "JPN", locale: "ja_JP", purchases: false)
        PaymentSheet.finish("com.lumenquest.pro", .pending(.askToBuy), &state)
        RedeemSheet.finish(code: "NOPE", .offerCode(.unknownCode), &state)
        let drawn = state.sheets.map { $0.view.sheet(state, in: Rect(x: 0, y: 0, width: 100, height: 30)) }
        #expect(drawn.map(\.title) == [StringTable.japanese(.waitingTitle), StringTable.japanese(.codeNotRedeemedTitle)])
        #expect(drawn.last?.body == [StringTable.japanese(.errorCodeUnknown)])
        #expect(drawn.allSatisfy { $0.buttons == [StringTable.japanese(.okButton)] })
        var korean = try await fixtureState(storefront: "USA", locale: "ko_KR", purchases: false)
        PaymentSheet.finish("com.lumenquest.pro", .pending(.askToBuy), &korean)
        #expect(korean.sheets.first.map { $0.view.sheet(korean, in: Rect(x: 0, y: 0, width: 100, height: 30)).buttons } == ["확인"])
        #expect(drawn.first?.body.first?.contains(state.product("com.lumenquest.pro")?.displayName ?? "?") == true)
    }

    @Test func periodsAfterAPriceAreTheAppStoresUnitInEachLanguage() async throws {
        let expected = ["ja_JP": "¥800/月", "zh_CN": "/月", "zh_TW": "/月", "ko_KR": "/월", "de_DE": "/Monat", "fr_FR": "/mois",
                        "es_ES": "/mes", "it_IT": "/mese", "pt_BR": "/mês", "en_US": "/month"]
        for (locale, unit) in expected {
            let storefront = locale == "ja_JP" ? "JPN" : "USA"
            let state = try await fixtureState(storefront: storefront, locale: locale, purchases: false)
            let product = try #require(state.product("com.lumenquest.plus.monthly"))
            #expect(state.words.priceWithPeriod(product).hasSuffix(unit), "\(locale): \(state.words.priceWithPeriod(product))")
        }
    }

    @Test("every customer sheet and screen renders in every table, with no English left in another language")
    func everySheetAndScreenInEveryTable() async throws {
        for locale in Self.locales {
            let state = try await fixtureState(locale: locale)
            var texts = Self.customerText(state) + (try await Self.messageText(locale))
            #expect(!texts.isEmpty)
            #expect(!texts.contains { $0.contains("{") && $0.contains("}") }, "\(locale): an unfilled slot")
            guard locale != "en_US" else { continue }
            // Names from the catalog are the catalog's, not the tables'.
            let names = state.snapshot.products.flatMap { [$0.displayName, $0.description, $0.groupName ?? "", $0.id] }
                + state.snapshot.products.compactMap(\.subscription).flatMap { $0.promotionalOffers.compactMap(\.id) + $0.winBackOffers.compactMap(\.id) }
                + state.offerCodes.map(\.referenceName)
            texts = texts.map { text in names.filter { !$0.isEmpty }.sorted { $0.count > $1.count }.reduce(text) { $0.replacingOccurrences(of: $1, with: "") } }
            for text in texts {
                let words = Set(text.split { !$0.isLetter && $0 != "-" }.map(String.init))
                for english in Self.englishWords where words.contains(english) || english.contains(" ") && text.contains(english) {
                    Issue.record("\(locale): English “\(english)” in “\(text)”")
                }
            }
        }
    }

    /// What the customer reads on the Store and Subscriptions screens, the payment sheet of every
    /// product, Manage Subscriptions and its cancel question, the refund request and offer-code sheets.
    static func customerText(_ state: AppState) -> [String] {
        let area = Rect(x: 0, y: 0, width: 120, height: 40)
        var texts = StoreScreen.lines(state, width: 120, rows: 100).flatMap { [$0.text, $0.trailing] }
            + SubscriptionsScreen.lines(state, width: 120, rows: 100).map(\.text)
        func add(_ sheet: SheetState) {
            let drawn = sheet.view.sheet(state, in: area)
            texts += [drawn.title] + drawn.body + drawn.buttons + drawn.alternativeBodies.flatMap { $0 }
            if case .menu(let menu) = sheet { texts += menu.items.flatMap { item in [item.label] + (item.confirmation.map { [$0, item.yes, item.no] } ?? []) } + [menu.note ?? ""] }
        }
        for product in state.snapshot.products { add(.payment(draft(for: product, state))) }
        for group in SubscriptionsScreen.groups(state) {
            add(ManageSubscriptionsSheet.sheet(group: group, state))
            texts.append(ManageSubscriptionsSheet.cancelQuestion(group: group, state))
        }
        if let bought = state.ledger.first(where: { $0.status == .completed }) { add(RefundRequestSheet.sheet(for: bought.payload, state)) }
        add(.redeem(RedeemSheet()))
        for product in state.snapshot.products { add(.productDetail(ProductDetailSheet(productID: product.id))) }
        texts += outcomeText(state)
        return texts.filter { !$0.isEmpty }
    }

    /// Every StoreKit error, as the message after a purchase or an offer code; Ask to Buy,
    /// an interrupted purchase and an unverified one; each with its OK.
    static func outcomeText(_ state: AppState) -> [String] {
        let failures = StoreKitError.allCases.map(StoreFailure.storeKit) + PurchaseError.allCases.map(StoreFailure.purchase)
            + VerificationError.allCases.map(StoreFailure.verification) + RefundRequestError.allCases.map(StoreFailure.refund)
            + OfferCodeError.allCases.map(StoreFailure.offerCode)
        let productID = "com.lumenquest.pro"
        let results = failures.map(PurchaseResult.failed) + [.pending(.askToBuy), .pending(.interrupted), .success(.unverified(nil, .invalidSignature))]
        var sheets: [SheetState] = []
        for result in results {
            var after = state
            PaymentSheet.finish(productID, result, &after)
            sheets += after.sheets
        }
        for failure in failures {
            var after = state
            RedeemSheet.finish(code: "LUMENWEEK", failure, &after)
            sheets += after.sheets
        }
        #expect(sheets.count == results.count + failures.count, "every outcome but success shows a message")
        return sheets.flatMap { sheet in
            let drawn = sheet.view.sheet(state, in: Rect(x: 0, y: 0, width: 120, height: 40))
            return [drawn.title] + drawn.body + drawn.buttons
        }
    }

    /// StoreKit's messages (price increase, billing issue, win-back) as a customer in `locale` reads them.
    static func messageText(_ locale: String) async throws -> [String] {
        let setUps: [(StoreMessageSheet.Reason, @Sendable (LocalAppStore, StoreManager) async throws -> Void)] = [
            (.priceIncreaseConsent, { store, manager in
                await manager.purchase("com.lumenquest.pro.yearly")
                try await store.requestPriceIncrease(productID: "com.lumenquest.pro.yearly")
            }),
            (.billingIssue, { store, manager in
                await manager.purchase("com.lumenquest.pro.monthly")
                await store.update { $0.billingRetryOnRenewal = true }
                try await store.advanceTime(by: Period(1, .month))
            }),
            (.winBackOffer, { store, manager in
                await manager.purchase("com.lumenquest.plus.monthly")
                try await store.expireSubscription(productID: "com.lumenquest.plus.monthly")
            }),
        ]
        var texts: [String] = []
        for (reason, setUp) in setUps {
            let state = try await StoreMessagesTests().launch(locale: locale, setUp)
            let message = try #require(StoreMessages.pending(state).first { $0.reason == reason }, "\(locale): no \(reason)")
            let drawn = message.sheet(state, in: Rect(x: 0, y: 0, width: 120, height: 40))
            texts += drawn.body + drawn.buttons
        }
        return texts
    }
}

/// The payment sheet and the Subscriptions screen in Japanese and German, at 80×24.
@Suite struct LanguageGoldenTests {
    static let places = [("JPN", "ja_JP", "ja"), ("DEU", "de_DE", "de")]

    @Test func paymentSheetInJapaneseAndGerman() async throws {
        for (storefront, locale, name) in Self.places {
            var state = try await fixtureState(storefront: storefront, locale: locale, purchases: false)
            state.selection[.store] = StoreScreen.products(state).firstIndex { $0.id == "com.lumenquest.pro.monthly" }!
            press(&state, .enter)
            try GoldenScreenTests().assertScreen("payment-subscription-\(name)", render(state, size: GoldenScreenTests.size).text)
        }
    }

    @Test func subscriptionsScreenInJapaneseAndGerman() async throws {
        for (storefront, locale, name) in Self.places {
            var state = try await fixtureState(storefront: storefront, locale: locale)
            press(&state, .character("2"))
            try GoldenScreenTests().assertScreen("subscriptions-\(name)", render(state, size: GoldenScreenTests.size).text)
        }
    }
}
