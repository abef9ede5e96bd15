import Foundation
import Testing
import StoreCore
import StoreEngine
import StoreClient
import StoreSigning
import StorefrontTestSupport
import StoreVerification

/// Apple's own App Store Server Library (Python, `app-store-server-library` 3.x) is the client: the
/// venv `.ci/run` creates (`.venv-apple`, or `APPLE_LIBRARY_PYTHON`). Without it the suite is skipped,
/// unless `CI=true`, where a missing library is a failure.
enum AppleLibrary {
    static let script = Repo.root.appendingPathComponent("Tests/AppleLibrary/verify_with_apple.py").path
    static let python = AppleLibraryPython.path
    static let requiredByCI = AppleLibraryPython.requiredByCI
    static let enabled = AppleLibraryPython.enabled

    struct Case: Encodable {
        var label: String
        var kind: String
        var jws: String
        var root: String
        var environment: String
        var bundleId: String
        var appAppleId: Int64?
    }

    struct Result: Decodable {
        var label: String
        var status: String
        var cause: String?
        var unknownEnums: [String]
        var unknownFields: [String]
        /// The signature and chain held (a later bundle or environment check may still have failed).
        var signatureVerified: Bool { ["OK", "INVALID_APP_IDENTIFIER", "INVALID_ENVIRONMENT"].contains(status) }
    }

    struct Reply: Decodable {
        var library: String
        var results: [Result]
    }

    /// Runs every case through the library in one Python process.
    static func run(_ cases: [Case]) throws -> Reply {
        let python = try #require(python, "CI=true but Apple's library is missing: .ci/run creates .venv-apple (python3 -m venv .venv-apple && .venv-apple/bin/pip install app-store-server-library==3.1.2)")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("apple-library-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("in.json"), output = directory.appendingPathComponent("out.json")
        try JSONEncoder().encode(["cases": cases]).write(to: input)
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script]
        process.standardInput = try FileHandle(forReadingFrom: input)
        process.standardOutput = try FileHandle(forWritingTo: output)
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "the Python helper failed")
        return try JSONDecoder().decode(Reply.self, from: Data(contentsOf: output))
    }
}

/// Signed data of every kind the store makes, gathered by driving stores through their flows.
struct TokenTour {
    struct Token {
        var label: String
        var kind: String
        var jws: String
        var root: Certificate
    }
    var tokens: [Token] = []
    private var seen: Set<String> = []
    static let appAppleID: Int64 = 1_234_567_890

    static func catalog() -> Catalog {
        var catalog = Repo.catalog
        catalog.app.appAppleID = appAppleID
        // Every AppTransaction field, so Apple's models must know each (unknownFields).
        catalog.app.preorderDate = Date(timeIntervalSince1970: 1_700_000_000)
        catalog.app.versionExternalIdentifier = 8_675_309
        catalog.settings.networkDelay = 0
        return catalog
    }

    /// Keeps every token the store would export now.
    mutating func collect(_ store: LocalAppStore, after step: String) async throws {
        let export = try await store.exportSignedData()
        let root = store.certificate
        for (kind, list) in [("transaction", export.transactions), ("renewalInfo", export.renewalInfo), ("appTransaction", [export.appTransaction])] {
            for jws in list where seen.insert(jws).inserted {
                tokens.append(Token(label: "\(kind) after \(step)", kind: kind, jws: jws, root: root))
            }
        }
    }

    /// A session: a fresh store, customer and clock; each step's tokens are collected.
    mutating func session(_ environment: StoreEnvironment, _ steps: [(String, (LocalAppStore, ManualTime) async throws -> Void)]) async throws {
        let time = ManualTime()
        let store = try LocalAppStore(catalog: Self.catalog(), stateDirectory: nil, time: time)
        await store.update { $0.environment = environment }
        for (name, step) in steps {
            try await step(store, time)
            try await collect(store, after: name)
        }
        await store.shutdown()
    }

    static func make(_ environment: StoreEnvironment) async throws -> TokenTour {
        var tour = TokenTour()
        func buy(_ id: String, _ options: PurchaseOptions = PurchaseOptions()) -> (String, (LocalAppStore, ManualTime) async throws -> Void) {
            ("buy \(id)", { store, _ in _ = try await store.purchase(id, options: options, answer: .confirm) })
        }
        func act(_ name: String, _ body: @escaping (LocalAppStore) async throws -> Void) -> (String, (LocalAppStore, ManualTime) async throws -> Void) {
            (name, { store, _ in try await body(store) })
        }
        func advance(_ period: Period) -> (String, (LocalAppStore, ManualTime) async throws -> Void) {
            ("advance \(period.iso)", { store, _ in try await store.advanceTime(by: period) })
        }
        func latest(_ store: LocalAppStore, _ id: String) async throws -> Int64 {
            try #require(await store.ledgerEntries().first { $0.payload.productID == id && $0.status == .completed }).payload.transactionID
        }
        // One-time purchases, codes and refunds.
        try await tour.session(environment, [
            buy(ID.coins, PurchaseOptions(quantity: 3, appAccountToken: UUID())), buy(ID.pro), buy(ID.removeAds), buy(ID.season),
            act("redeem COINS100") { try await $0.redeem(offerCode: "COINS100") },
            act("redeem SEASON2026") { try await $0.redeem(offerCode: "SEASON2026") },
            act("refund pro") { try await $0.refund(transactionID: latest($0, ID.pro), prorated: false) },
            act("refund request approved") { store in
                let id = try await latest(store, ID.removeAds)
                _ = try await store.requestRefund(transactionID: id, reason: "other")
                try await store.decideRefundRequest(transactionID: id, approve: true)
            },
        ])
        // A free trial, renewals, grace period, billing retry, price increase, cancellation, expiry, win-back.
        try await tour.session(environment, [
            act("grace and billing retry on") { await $0.update { $0.gracePeriod = true; $0.billingRetryOnRenewal = true } },
            buy(ID.plusMonthly), advance(Period(1, .week)), advance(Period(1, .month)),
            act("fix billing") { try await $0.resolveBillingIssue(productID: ID.plusMonthly) },
            act("billing retry off") { await $0.update { $0.billingRetryOnRenewal = false } },
            act("price increase requested") { try await $0.requestPriceIncrease(productID: ID.plusMonthly) },
            act("price increase agreed") { try await $0.respondToPriceIncrease(productID: ID.plusMonthly, agree: true) },
            advance(Period(1, .month)),
            act("auto-renew off") { try await $0.setAutoRenew(productID: ID.plusMonthly, enabled: false) },
            advance(Period(2, .month)),
            buy(ID.plusMonthly, PurchaseOptions(winBackOfferID: "plus.winback")),
            act("expire") { try await $0.expireSubscription(productID: ID.plusMonthly) },
        ])
        // Pay-as-you-go intro, a downgrade pending, promotional offer, pay-up-front intro, upgrade, prorated refund.
        try await tour.session(environment, [
            buy(ID.proMonthly), advance(Period(1, .month)),
            act("downgrade to plus") { try await $0.manageSubscription(groupID: ID.group, .switchTo(productID: ID.plusMonthly)) },
            advance(Period(1, .month)),
            act("cancel") { try await $0.manageSubscription(groupID: ID.group, .cancel) },
            advance(Period(3, .month)),
            act("promotional offer") { store in
                let signature = try await store.signPromotionalOffer(productID: ID.proMonthly, offerID: "pro.comeback50")
                _ = try await store.purchase(ID.proMonthly, options: PurchaseOptions(promotionalOffer: ("pro.comeback50", signature)), answer: .confirm)
            },
        ])
        try await tour.session(environment, [
            buy(ID.plusYearly), buy(ID.proYearly),
            act("prorated refund") { try await $0.refund(transactionID: latest($0, ID.proYearly), prorated: true) },
            act("redeem PLUSMONTH") { try await $0.redeem(offerCode: "PLUSMONTH") },
        ])
        // Family Sharing, and codes for a new customer.
        try await tour.session(environment, [
            act("family pro") { try await $0.buyOutsideApp(productID: ID.pro, familyShared: true) },
            act("family pro.yearly") { try await $0.buyOutsideApp(productID: ID.proYearly, familyShared: true) },
            act("revoke family pro") { try await $0.revokeFamilySharing(transactionID: latest($0, ID.pro)) },
            act("revoke family pro.yearly") { try await $0.revokeFamilySharing(transactionID: latest($0, ID.proYearly)) },
            act("redeem ADFREE") { try await $0.redeem(offerCode: "ADFREE") },
            act("redeem PLUSMONTH") { try await $0.redeem(offerCode: "PLUSMONTH") },
        ])
        return tour
    }

    /// Payload values by key across the tour's tokens of one kind, to check that every flow is covered.
    func values(_ kind: String, _ key: String) -> Set<String> {
        Set(tokens.filter { $0.kind == kind }.compactMap { token in
            token.jws.split(separator: ".").dropFirst().first.flatMap { Base64URL.decode(String($0)) }
                .flatMap { try? JSONParser.parse($0) }?[key].map { $0.stringValue ?? $0.serialized() }
        })
    }
}

@Suite("Apple's App Store Server Library accepts Storefront's signed data", .tags(.appleLibrary), .notInFastLoop, .serialized,
       .enabled(if: AppleLibrary.enabled, "Apple's library is not installed: run .ci/run, or see docs/backend.md, 'The proof'"))
struct AppleLibraryTests {
    @Test("every kind of token verifies and decodes in Sandbox and Production with storefront cert as the only root; tampered and re-signed ones are refused",
          arguments: [StoreEnvironment.sandbox, .production])
    func everyToken(environment: StoreEnvironment) async throws {
        let tour = try await TokenTour.make(environment)
        // The tour covers every kind of signed data the store makes.
        #expect(tour.values("transaction", "type") == ["Consumable", "Non-Consumable", "Non-Renewing Subscription", "Auto-Renewable Subscription"])
        #expect(tour.values("transaction", "transactionReason") == ["PURCHASE", "RENEWAL"])
        #expect(tour.values("transaction", "offerType") == ["1", "2", "3", "4"])
        #expect(tour.values("transaction", "offerDiscountType") == ["FREE_TRIAL", "PAY_AS_YOU_GO", "PAY_UP_FRONT", "ONE_TIME"])
        #expect(tour.values("transaction", "revocationType") == ["REFUND_FULL", "REFUND_PRORATED", "FAMILY_REVOKE"])
        #expect(tour.values("transaction", "inAppOwnershipType") == ["PURCHASED", "FAMILY_SHARED"])
        #expect(tour.values("transaction", "isUpgraded") == ["true"])
        #expect(tour.values("renewalInfo", "autoRenewStatus") == ["0", "1"])
        #expect(tour.values("renewalInfo", "isInBillingRetryPeriod") == ["true", "false"])
        #expect(tour.values("renewalInfo", "priceIncreaseStatus") == ["0", "1"])
        #expect(!tour.values("renewalInfo", "expirationIntent").isEmpty && !tour.values("renewalInfo", "gracePeriodExpiresDate").isEmpty)
        #expect(!tour.values("renewalInfo", "eligibleWinBackOfferIds").isEmpty)
        #expect(tour.values("renewalInfo", "autoRenewProductId").count > 1, "a pending downgrade")
        #expect(tour.values("transaction", "environment") == [environment.rawValue])
        #expect(tour.values("appTransaction", "receiptType") == [environment.rawValue])

        let bundle = TokenTour.catalog().app.bundleID
        func make(_ label: String, _ kind: String, _ jws: String, _ root: Certificate) -> AppleLibrary.Case {
            AppleLibrary.Case(label: label, kind: kind, jws: jws, root: root.der.base64EncodedString(), environment: environment.rawValue,
                              bundleId: bundle, appAppleId: TokenTour.appAppleID)
        }
        var cases = tour.tokens.map { make($0.label, $0.kind, $0.jws, $0.root) }
        let forgeries = try Self.forgeries(of: tour.tokens[0])
        cases += forgeries.map { make($0.label, "transaction", $0.jws, tour.tokens[0].root) }

        let reply = try AppleLibrary.run(cases)
        print("[apple library \(reply.library)] \(environment.rawValue): \(tour.tokens.count) tokens, \(forgeries.count) forgeries")
        #expect(reply.library.hasPrefix("3."))
        #expect(reply.results.count == cases.count)
        let local = SignedDataVerifier(trustedRoots: [tour.tokens[0].root])
        for (result, token) in zip(reply.results, tour.tokens) {
            #expect(result.status == "OK", "\(result.label): \(result.status) \(result.cause ?? "")")
            #expect(result.unknownEnums.isEmpty, "\(result.label): values Apple's models do not know: \(result.unknownEnums)")
            // StoreKit's AppTransaction also carries environment and signedDate, which the server model leaves out.
            let allowed: Set<String> = token.kind == "appTransaction" ? ["environment", "signedDate"] : []
            #expect(Set(result.unknownFields).subtracting(allowed).isEmpty, "\(result.label): keys Apple's models do not know: \(result.unknownFields)")
            #expect(SignedDataVerifier(trustedRoots: [token.root]).json(token.jws).isVerified, "\(result.label): Storefront's own verifier")
        }
        for (result, forgery) in zip(reply.results.suffix(forgeries.count), forgeries) {
            #expect(!result.signatureVerified, "\(forgery.label) was accepted by Apple's library")
            #expect(!local.json(forgery.jws).isVerified, "\(forgery.label) was accepted by Storefront's verifier")
        }
    }

    @Test("a transaction handed to the app while a verification error is simulated is the store's genuine token: Apple's library accepts it")
    func simulatedVerificationErrorTokenIsGenuine() async throws {
        var catalog = TokenTour.catalog()
        catalog.settings.failures[.verification] = .verification(.revokedCertificate)
        let store = try LocalAppStore(catalog: catalog, stateDirectory: nil, time: ManualTime())
        await store.update { $0.environment = .sandbox }
        guard case .success(let jws) = try await store.purchase(ID.pro, options: PurchaseOptions(), answer: .confirm) else {
            Issue.record("expected a purchase"); return
        }
        #expect(SignedDataVerifier(trustedRoots: [store.certificate]).transaction(jws).error == .revokedCertificate)
        let reply = try AppleLibrary.run([AppleLibrary.Case(label: "simulated revokedCertificate", kind: "transaction", jws: jws,
                                                            root: store.certificate.der.base64EncodedString(), environment: "Sandbox",
                                                            bundleId: catalog.app.bundleID, appAppleId: TokenTour.appAppleID)])
        #expect(reply.results.first?.status == "OK", "\(reply.results.first?.cause ?? "")")
        await store.shutdown()
    }

    /// A tampered payload, the same payload re-signed by another store or by a stray key, and `alg: none`.
    static func forgeries(of token: TokenTour.Token) throws -> [(label: String, jws: String)] {
        let parts = token.jws.split(separator: ".").map(String.init)
        let payload = String(decoding: try #require(Base64URL.decode(parts[1])), as: UTF8.self)
        let richer = payload.replacingOccurrences(of: "\"quantity\":3", with: "\"quantity\":30")
        #expect(richer != payload)
        let stranger = try StoreIdentity.ephemeral()
        return [
            ("tampered payload", [parts[0], Base64URL.encode(Data(richer.utf8)), parts[2]].joined(separator: ".")),
            ("re-signed by another store's identity", try stranger.signer.sign(payload: Data(payload.utf8))),
            ("signed by another key under the same header", parts[0] + "." + parts[1] + "." + Base64URL.encode(try SigningKey.generate().sign(Data((parts[0] + "." + parts[1]).utf8)))),
            ("alg none", Base64URL.encode(Data(#"{"alg":"none"}"#.utf8)) + "." + parts[1] + "."),
        ]
    }

    @Test("on every shared fixture, Storefront's verifier and Apple's agree about the signature and chain, whatever the root")
    func fixturesAgree() throws {
        let directory = Repo.sharedFixtures.appendingPathComponent("jws")
        func text(_ name: String) throws -> String {
            try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let xcode = try text("xcode-signed-transaction")
        let xcodeHeader = try JSONParser.parse(try #require(Base64URL.decode(String(xcode.split(separator: ".")[0]))))
        let xcodeCertificate = try #require(xcodeHeader["x5c"]?.arrayValue?.first?.stringValue.flatMap { Data(base64Encoded: $0) })
        let roots: [(String, Certificate)] = [
            ("testCA", try Certificate(der: Data(contentsOf: directory.appendingPathComponent("testCA.der")))),
            ("Apple Root CA G3", try Certificate(pem: text("AppleRootCA-G3.pem"))),
            ("Xcode's certificate", try Certificate(der: xcodeCertificate)),
        ]
        let tokens = [("transactionInfo", "transaction"), ("renewalInfo", "renewalInfo"), ("testNotification", "notification"),
                      ("real-sandbox-TEST-notification.jws", "notification"), ("xcode-signed-transaction", "transaction")]
        var cases: [AppleLibrary.Case] = [], local: [Bool] = []
        for (name, kind) in tokens {
            let jws = try text(name)
            let payload = try JSONParser.parse(try #require(Base64URL.decode(String(jws.split(separator: ".")[1]))))
            let bundle = payload["bundleId"]?.stringValue ?? payload["data"]?["bundleId"]?.stringValue ?? ""
            for (rootName, root) in roots {
                cases.append(.init(label: "\(name) against \(rootName)", kind: kind, jws: jws, root: root.der.base64EncodedString(),
                                   environment: "Sandbox", bundleId: bundle, appAppleId: nil))
                local.append(SignedDataVerifier(trustedRoots: [root]).json(jws, at: .signedDate).isVerified)
            }
        }
        let reply = try AppleLibrary.run(cases)
        for (result, verified) in zip(reply.results, local) {
            #expect(result.signatureVerified == verified, "\(result.label): Apple \(result.status) \(result.cause ?? ""), Storefront \(verified ? "verified" : "unverified")")
        }
        #expect(local.filter { $0 }.count == 1, "only the real notification against Apple's root verifies")
    }
}
