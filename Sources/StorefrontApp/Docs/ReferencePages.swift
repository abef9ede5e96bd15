import StoreEngine

/// The reference pages under `docs/`, as Markdown made from the code that dispatches keys and parses
/// scenarios, so the pages cannot drift from them: `ReferencePageTests` fails when a page differs.
enum ReferencePages {
    /// Each page's path in the repository and its text.
    static var all: [(path: String, text: String)] {
        [("docs/keys.md", keys), ("docs/scenario-steps.md", scenarioSteps)]
    }

    static let regenerate = "`RECORD_DOCS=1 swift test --filter ReferencePageTests` rewrites it"

    // MARK: Keys

    /// Where a set of bindings is in force, and a note on when.
    struct Place {
        var title: String
        var note: String
        var bindings: [Binding]
    }

    /// Every screen and sheet, with the bindings its file declares.
    static var places: [Place] {
        let screens = Screen.allCases.map { screen in
            Place(title: "\(screen.rawValue + 1) \(screen.title)", note: "", bindings: screen.view.bindings)
        }
        let sheets = sheetSpecimens.map { title, note, sheet in
            Place(title: title, note: note, bindings: sheet.view.bindings(AppState()))
        }
        return [Place(title: "Everywhere", note: "On every screen, after the screen's own keys, while no sheet is open.",
                      bindings: KeyMap.global),
                Place(title: "Filtering", note: "While typing a filter (`/`); Esc on a screen whose list a kept filter narrows clears it too.",
                      bindings: KeyMap.filterEditing)]
            + screens + sheets
            + [Place(title: "Recording a scenario", note: "`storefront --record-scenario FILE`: added to every screen's keys.",
                     bindings: KeyMap.recording),
               Place(title: "Walk", note: "`storefront walk`: added to every screen's keys.", bindings: KeyMap.walk),
               Place(title: "Demo", note: "`storefront demo` while it plays; once it hands over, the store's keys and `w` work again.",
                     bindings: KeyMap.demo)]
    }

    /// One sheet of each kind, with every key it can show: some keys depend on what the sheet holds.
    static var sheetSpecimens: [(String, String, SheetState)] {
        [("Payment sheet", "`o` when the product has more than one offer, `b` more than one billing plan, `s` with a promotional offer, `+ -` for a consumable; Enter does the selected button.",
          .payment(PaymentSheet(productID: "", allowsQuantity: true, offers: [.promotional(""), .none], plans: [.upFront, .monthly]))),
         ("Offer signature", "Every other key types into the path of the file your server's signature is in.", .offerSignature(OfferSignatureSheet(current: nil))),
         ("Redeem code", "Every other key types into the code.", .redeem(RedeemSheet())),
         ("Notification URL", "Every other key types into the URL.", .notificationURL(NotificationURLSheet(current: nil))),
         ("Product details", "", .productDetail("")),
         ("Transaction details", "", .transactionDetail(0)),
         ("Notification details", "", .notificationDetail(NotificationDetailSheet(sequence: 0))),
         ("Confirmation", "Opens on Cancel; Enter does the selected button.", .confirm(title: "", message: "", effect: .quit)),
         ("Menu", "The QA panel's transaction menu, buy outside the app, refund request, manage subscriptions.",
          .menu(MenuSheet(title: "", items: []))),
         ("App info", "", .appInfo),
         ("Message", "", .message(MessageSheet(title: "", text: ""))),
         ("App Store message", "Price increase, billing problem, win-back offer; Enter does the selected button (here Agree).",
          .storeMessage(StoreMessageSheet(reason: .priceIncreaseConsent, key: "", productID: "", transactionID: 0, lines: [],
                                          primary: "Agree", winBackOfferID: nil))),
         ("Paywall", "`$` on the Store screen or `storefront --paywall GROUP`: SubscriptionStoreView for a group; Enter does the selected button (see [paywall.md](paywall.md)).",
          .paywall(PaywallSheet(groupID: "", style: .automatic))),
         ("Product card", "`v` on a product's details (`i` on the Store screen): ProductView in its three styles.", .productCard(ProductCardSheet(productID: ""))),
         ("Help", "", .help)]
    }

    static var keys: String {
        var page = """
            # Keys

            Every key of every screen and sheet, generated from the key map that dispatches them
            (`Sources/StorefrontApp/UI/KeyMap.swift` and each screen's and sheet's `bindings`); do not edit:
            \(regenerate).

            The footer shows the keys that have a footer hint; `?` lists every key in force. With the mouse,
            a click on a tab, a row, a button or a footer hint does what its key does; the wheel scrolls.

            """
        for place in places {
            page += "\n## \(place.title)\n\n"
            if !place.note.isEmpty { page += place.note + "\n\n" }
            page += table(["keys", "does", "footer"], place.bindings.map { b in
                [b.keys.isEmpty ? b.name : b.keys.map { code($0.name) }.joined(separator: " "), b.label,
                 b.footer ? code("[\(b.name)] \(b.hint ?? b.label)") : ""]
            })
        }
        return page
    }

    // MARK: Scenario steps

    static var scenarioSteps: String {
        var page = """
            # Scenario steps

            Every step of the scenario language ([scenarios.md](scenarios.md)), generated from the command table
            (`Sources/StorefrontApp/StoreCommands/CommandTable.swift`, the tester controls of `TesterControl.table`,
            and the checks of `ScenarioParser`) that the parser, its errors and `storefront run --help` read; do not edit:
            \(regenerate).

            """
        let setUp = [("catalog FILE", stepHelp["catalog"] ?? "")] + steps(.setUp)
        let sections: [(String, [(String, String)])] = [(CommandTable.Section.setUp.rawValue, setUp)]
            + CommandTable.Section.allCases.dropFirst().map { ($0.rawValue, steps($0)) }
            + [("checks", ScenarioExpectation.Probe.allCases.map { probe in
                let (usage, detail) = split(ScenarioParser.probe(probe).usage)
                return (usage, [checkHelp[probe] ?? "", detail].filter { !$0.isEmpty }.joined(separator: " · "))
            })]
        for (title, rows) in sections {
            page += "\n## \(title.prefix(1).uppercased() + title.dropFirst())\n\n"
            page += table(["step", "help"], rows.map { [code($0.0), $0.1] })
        }
        return page
    }

    /// A section's steps as usage and help; a tester control's help is its QA panel menu item.
    static func steps(_ section: CommandTable.Section) -> [(String, String)] {
        CommandTable.steps.filter { $0.section == section }.map { step in
            let (usage, detail) = split(step.usage)
            let labels = TesterControl.table.filter { $0.step.split(separator: " ")[0] == step.keyword }.map { "*\($0.label)*" }
            let help = labels.isEmpty ? stepHelp[step.keyword] ?? "" : "QA panel: " + labels.joined(separator: ", ")
            return (usage, [help, detail].filter { !$0.isEmpty }.joined(separator: " · "))
        }
    }

    /// What a step does, for the steps whose usage does not say (`ReferencePageTests` requires one for
    /// every step that is not a tester control, so a new step cannot reach the page without it).
    static let stepHelp: [String: String] = [
        "catalog": "The catalog the scenario runs on (`catalog.json` or `.storekit`), relative to the scenario file.",
        "storefront": "The storefront (and locale) the customer buys in.",
        "set": "A test setting by the catalog's `settings` name (`billingRetry` still reads), or the time rate, or the app account token the storefront's own app passes with every purchase (`none`: none).",
        "fail": "Makes an API fail with an error case name (`networkError`, `purchaseNotAllowed`…); `off` stops it.",
        "original-app": "The AppTransaction's original app version, platform and purchase date.",
        "iap-key": "Registers the team's In-App Purchase key (`.p8`), whose promotional offers and eligibility signatures the store then accepts.",
        "buy": "The payment sheet, confirmed: a quantity, an offer (signed by the local store unless `signature` says; `signature file FILE` is what the team's server signed), a billing plan, an app account token, an introductory-offer eligibility JWS from a file, or held for Ask to Buy.",
        "cancel": "The payment sheet's Cancel.",
        "restore": "Restore purchases (`AppStore.sync()`).",
        "refresh": "The app reads the store again.",
        "redeem": "Redeems an offer code as the customer.",
        "request-refund": "The app's refund request for the product's newest transaction; REASON is the customer's (words from the refund sheet, or Apple's `consumptionRequestReason` name, which `CONSUMPTION_REQUEST` carries).",
        "manage": "The manage-subscriptions sheet: cancel, re-enable, or switch to another product of the group.",
        "quit": "The app quits.",
        "launch": "The app launches again on the same store.",
        "restart": "The app quits and launches again.",
        "crash-before-finish": "The app dies after delivering the next transaction, before `finish()`; `launch` brings it back.",
        "device": "Another device on the same account, with its own app state.",
        "wait": "Wall-clock time passes.",
        "buy-elsewhere": "QA panel: *Buy outside app…*; with `family`, *Family member purchase…*.",
        "promote": "QA panel: *Promoted on the App Store…*; the offer is one of the subscription's promotional or win-back offers. The storefront's app opens its payment sheet on it; the step ends when the app has heard it (at most 2 s; with several devices, the first app to look takes it). A product the storefront does not sell is refused, and a win-back offer for a customer who is not a lapsed subscriber of the group (the App Store shows it to no one else).",
        "advance": "QA panel: *Advance time P…*: the store clock jumps, and what falls due meanwhile happens.",
        "export": "Writes every signed token to FILE.",
        "clear": "QA panel: *Clear all transactions*: every transaction deleted; the app keeps its own data (its wallet).",
        "reset": "QA panel: *Reset store*: all transactions deleted, the app's wallet emptied, the catalog's settings and clock restored.",
    ]

    /// What a check reads.
    static let checkHelp: [ScenarioExpectation.Probe: String] = [
        .result: "The outcome of the last purchase.",
        .entitled: "Whether the app's current entitlements hold the product.",
        .balance: "A consumable's balance in the app's wallet.",
        .status: "The group's subscription state.",
        .renewal: "A field of the group's renewal info.",
        .introEligible: "Whether the customer may have the group's introductory offer.",
        .error: "The error the last action failed with.",
        .transactions: "How many completed transactions the store holds for the customer.",
        .ledger: "How many rows the store's ledger holds.",
        .unfinished: "How many transactions are not finished.",
        .verification: "How the product's newest transaction verified.",
        .transaction: "A field of the product's newest transaction in the store's ledger; `same-as` compares with another product's, `=` and `!=` with another field of the same transaction.",
        .message: "Any event the app reported since the last action (a `launch` included); `none`: nothing reached it.",
        .all: "How many transactions the app's `Transaction.all` hands it (finished consumables only with the catalog's `includeConsumableInAppPurchaseHistory`).",
        .latest: "A field of the app's `Transaction.latest(for:)`; `none` when it has none.",
        .refused: "Why the step before was refused (text it contains): the refusal is the expected outcome and the scenario goes on.",
        .storefront: "The storefront the app sees.",
        .price: "The product's display price.",
        .products: "How many products the app loaded.",
        .appTransaction: "A field of the AppTransaction.",
        .boughtBefore: "Whether the app was first bought before VERSION.",
        .restored: "How many transactions the last restore brought back.",
    ]

    /// `wait DURATION  (500ms, 31s…)` → the usage and the words in brackets.
    static func split(_ usage: String) -> (String, String) {
        guard let range = usage.range(of: "  (") else { return (usage, "") }
        return (String(usage[..<range.lowerBound]), String(usage[range.upperBound...].dropLast()))
    }

    // MARK: Markdown

    static func code(_ text: String) -> String {
        text.contains("`") ? "`` \(text) ``" : "`\(text)`"
    }

    static func table(_ header: [String], _ rows: [[String]]) -> String {
        ([header, header.map { _ in "---" }] + rows).map { row in
            "| " + row.map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ") + " |"
        }.joined(separator: "\n") + "\n"
    }
}
