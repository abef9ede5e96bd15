import Foundation
import StoreCore
import StoreEngine

/// StoreKit's `Product`: an In-App Purchase as the store sells it in the customer's storefront and language.
public struct Product: Identifiable, Hashable, Sendable {
    public typealias ID = String
    /// The catalog's product: Storefront's own app shows all of it.
    @_spi(Storefront) public let item: StoreCore.Product

    /// The product for a catalog item (Storefront's own app reads its whole catalog from the store).
    @_spi(Storefront) public init(_ item: StoreCore.Product) { self.item = item }

    public var id: ID { item.id }
    public var type: ProductType { ProductType(item.type) }
    public var displayName: String { item.displayName }
    public var description: String { item.description }
    public var price: Decimal { item.price }
    /// The price in the storefront's currency, formatted for the customer's locale.
    public var displayPrice: String { item.displayPrice }
    public var priceFormatStyle: Decimal.FormatStyle.Currency { .init(code: item.currency, locale: Locale(identifier: item.locale)) }
    public var isFamilyShareable: Bool { item.isFamilyShareable }
    public var subscription: SubscriptionInfo? { item.subscription.map { SubscriptionInfo(product: item, terms: $0) } }

    /// The products sold in the current storefront with these identifiers; an unknown or mistyped one is left out, never an error.
    public static func products<Identifiers: Collection>(for identifiers: Identifiers) async throws -> [Product]
    where Identifiers.Element == ID {
        guard let connection = StoreKitRuntime.current else { return [] }
        let ids = Array(Set(identifiers))
        return try await connection.call { try await $0.products(for: ids) }.map(Product.init)
    }

    /// Buys the product: the payment sheet is confirmed (as with `SKTestSession.disableDialogs`).
    /// The transaction comes back verified (or not) and unfinished: deliver, then `finish()` it.
    public func purchase(options: Set<PurchaseOption> = []) async throws -> PurchaseResult {
        try await purchase(options: options) { .confirm }.result
    }

    /// Buys the product after the payment sheet in `scene`: its customer confirms or cancels (see `UIScene`).
    public func purchase(confirmIn scene: some UIScene, options: Set<PurchaseOption> = []) async throws -> PurchaseResult {
        try await purchase(options: options) { await scene.customer(.payment(self)) == .cancel ? .cancel : .confirm }.result
    }

    /// `purchase(confirmIn:options:)`, and why a pending purchase waits: the App Store's own sheets tell the
    /// customer (Ask to Buy's "Ask Permission", an interrupted purchase's terms), StoreKit's result does not.
    /// Storefront's own app plays those sheets too.
    @_spi(Storefront) nonisolated(nonsending) public func purchaseTellingWhy(confirmIn scene: some UIScene, options: Set<PurchaseOption> = []) async throws
        -> (result: PurchaseResult, pendingReason: PendingReason?) {
        try await purchase(options: options) { await scene.customer(.payment(self)) == .cancel ? .cancel : .confirm }
    }

    nonisolated(nonsending) private func purchase(options: Set<PurchaseOption>, sheet: nonisolated(nonsending) () async -> PaymentSheetAnswer) async throws
        -> (result: PurchaseResult, pendingReason: PendingReason?) {
        guard let connection = StoreKitRuntime.current else { throw PurchaseError.productUnavailable }
        let decisions = options.compactMap { if case .onStorefrontChange(let decision) = $0.kind { decision } else { nil } }
        let storefrontAtStart = decisions.isEmpty ? nil : await connection.source.storefront()
        let answer = await sheet()
        if let storefrontAtStart, answer == .confirm {
            let storefront = await connection.source.storefront()
            if storefront != storefrontAtStart, !decisions.allSatisfy({ $0.shouldContinue(Storefront(storefront)) }) {
                throw PurchaseError.productUnavailable
            }
        }
        let outcome: PurchaseOutcome
        do {
            outcome = try await connection.call { try await $0.purchase(id, options: PurchaseOption.engineOptions(options), answer: answer) }
        } catch StoreKitError.userCancelled {
            return (.userCancelled, nil)  // a cancelled payment sheet is a result, not an error
        }
        switch outcome {
        case .success(let jws):
            guard let result = connection.transaction(jws) else { throw StoreKitError.unknown }
            return (.success(result), nil)
        case .userCancelled: return (.userCancelled, nil)
        case .pending(let reason): return (.pending, reason)
        }
    }

    /// The customer's latest transaction for this product.
    public var latestTransaction: VerificationResult<Transaction>? { get async { await Transaction.latest(for: id) } }
    /// The transactions that entitle the customer to this product.
    public var currentEntitlements: Transaction.Transactions { Transaction.currentEntitlements(for: id) }
    @available(*, deprecated, renamed: "currentEntitlements")
    public var currentEntitlement: VerificationResult<Transaction>? {
        get async { for await result in currentEntitlements { return result }; return nil }
    }
}

extension Product {
    public struct ProductType: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        init(_ type: StoreCore.ProductType) { self.init(rawValue: type.signedName) }

        public static let consumable = ProductType(rawValue: "Consumable")
        public static let nonConsumable = ProductType(rawValue: "Non-Consumable")
        public static let nonRenewable = ProductType(rawValue: "Non-Renewing Subscription")
        public static let autoRenewable = ProductType(rawValue: "Auto-Renewable Subscription")

        public var localizedDescription: String { rawValue }
    }

    /// What a purchase ended in.
    public enum PurchaseResult: Sendable, Equatable {
        case success(VerificationResult<Transaction>)
        case userCancelled
        /// Ask to Buy or an interrupted purchase: nothing to unlock; the transaction arrives through `Transaction.updates` if it completes.
        case pending
    }

    public enum PurchaseError: String, Error, Sendable, Hashable, CaseIterable, LocalizedError {
        case invalidQuantity, productUnavailable, purchaseNotAllowed, ineligibleForOffer
        case invalidOfferIdentifier, invalidOfferPrice, invalidOfferSignature, missingOfferParameters

        public var errorDescription: String? { StoreFailure.purchase(StoreCore.PurchaseError(rawValue: rawValue)!).message }
    }

    /// An option of one purchase.
    public struct PurchaseOption: Hashable, Sendable, CustomDebugStringConvertible {
        enum Kind: Hashable, Sendable {
            case quantity(Int), appAccountToken(UUID), simulatesAskToBuy(Bool)
            case promotionalOffer(id: String, signature: String?), winBackOffer(id: String)
            case introductoryOfferEligibility(String), billingPlan(SubscriptionInfo.BillingPlanType)
            case purchaseDate(Date, renews: Bool)
            case custom(key: String, value: CustomValue)
            case codeOffer(referenceName: String), unsignedPromotionalOffer(id: String)
            case onStorefrontChange(StorefrontChangeDecision)
        }
        let kind: Kind

        /// The option as an app writes it: `quantity(3)`, `custom(key: "source", value: "paywall")`.
        public var debugDescription: String {
            switch kind {
            case .quantity(let n): "quantity(\(n))"
            case .appAccountToken(let token): "appAccountToken(\(token.uuidString))"
            case .simulatesAskToBuy(let on): "simulatesAskToBuyInSandbox(\(on))"
            case .promotionalOffer(let id, _): "promotionalOffer(\"\(id)\")"
            case .winBackOffer(let id): "winBackOffer(\"\(id)\")"
            case .introductoryOfferEligibility: "introductoryOfferEligibility(compactJWS:)"
            case .billingPlan(let plan): "billingPlanType(\(plan.rawValue))"
            case .purchaseDate(let date, let renews): "purchaseDate(\(date.formatted(.iso8601)), renews: \(renews))"
            case .custom(let key, let value): "custom(key: \"\(key)\", value: \(value))"
            case .onStorefrontChange: "onStorefrontChange(shouldContinuePurchase:)"
            case .codeOffer(let name): "codeOffer(referenceName: \"\(name)\")"
            case .unsignedPromotionalOffer(let id): "promotionalOffer(id: \"\(id)\")"
            }
        }

        /// A custom option's value: sent with the purchase, not echoed in the transaction.
        enum CustomValue: Hashable, Sendable, CustomStringConvertible {
            case string(String), number(Double), bool(Bool), data(Data)
            var description: String {
                switch self { case .string(let s): "\"\(s)\""; case .number(let n): "\(n)"; case .bool(let b): "\(b)"; case .data(let d): "\(d.count) bytes" }
            }
        }

        /// The app's answer to a storefront change during the purchase; options compare by identity, as closures can't.
        final class StorefrontChangeDecision: Hashable, Sendable {
            let shouldContinue: @Sendable (Storefront) -> Bool
            init(_ shouldContinue: @escaping @Sendable (Storefront) -> Bool) { self.shouldContinue = shouldContinue }
            static func == (a: StorefrontChangeDecision, b: StorefrontChangeDecision) -> Bool { a === b }
            func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
        }

        /// How many of a consumable.
        public static func quantity(_ quantity: Int) -> PurchaseOption { .init(kind: .quantity(quantity)) }
        /// The app's own account for the customer; it comes back in the transaction.
        public static func appAccountToken(_ token: UUID) -> PurchaseOption { .init(kind: .appAccountToken(token)) }
        /// Ask to Buy for this purchase: the result is `.pending` until the tester approves or declines it.
        public static func simulatesAskToBuyInSandbox(_ simulate: Bool) -> PurchaseOption { .init(kind: .simulatesAskToBuy(simulate)) }
        /// A promotional offer, with the signature the developer's server made for it (compact JWS).
        public static func promotionalOffer(_ offer: Product.SubscriptionOffer, compactJWS: String) -> PurchaseOption {
            .init(kind: .promotionalOffer(id: offer.id ?? "", signature: compactJWS))
        }
        /// A promotional offer by its ID, with the signature the developer's server made for it (compact JWS).
        public static func promotionalOffer(_ offerID: String, compactJWS: String) -> [PurchaseOption] {
            [.init(kind: .promotionalOffer(id: offerID, signature: compactJWS))]
        }
        /// A promotional offer with the developer's server's signature of the earlier kind (`PromotionalOfferSignatureCreator`:
        /// ECDSA over the app, key, product, offer, app account token, nonce and timestamp in milliseconds).
        public static func promotionalOffer(offerID: String, keyID: String, nonce: UUID, signature: Data, timestamp: Int) -> PurchaseOption {
            promotionalOffer(offerID: offerID, signature: SubscriptionOffer.Signature(keyID: keyID, nonce: nonce, timestamp: timestamp, signature: signature))
        }
        public static func promotionalOffer(offerID: String, signature: SubscriptionOffer.Signature) -> PurchaseOption {
            // As the store reads a server's answer of this kind (see `DeveloperSignature`).
            let fields: JSONValue = ["keyIdentifier": .string(signature.keyID), "nonce": .string(signature.nonce.uuidString.lowercased()),
                                     "timestamp": .number(String(signature.timestamp)), "signature": .string(signature.signature.base64EncodedString())]
            return .init(kind: .promotionalOffer(id: offerID, signature: fields.compact))
        }
        /// The developer's server's word on whether this purchase gets the introductory offer (compact JWS,
        /// signed with the team's In-App Purchase key for one of the customer's transactions).
        public static func introductoryOfferEligibility(compactJWS: String) -> PurchaseOption { .init(kind: .introductoryOfferEligibility(compactJWS)) }
        /// How a subscription with billing plans is paid: up front (the default) or monthly for a 12-month commitment.
        public static func billingPlanType(_ type: SubscriptionInfo.BillingPlanType) -> PurchaseOption { .init(kind: .billingPlan(type)) }
        /// StoreKitTest's `purchaseDate(_:renewalBehavior:)`, which StoreKitTest declares over this.
        @_spi(Storefront) public static func purchaseDate(_ date: Date, renews: Bool) -> PurchaseOption { .init(kind: .purchaseDate(date, renews: renews)) }
        /// StoreKitTest's `codeOffer(referenceName:)` and `promotionalOffer(id:)`, which StoreKitTest declares over these.
        @_spi(Storefront) public static func testCodeOffer(_ referenceName: String) -> PurchaseOption { .init(kind: .codeOffer(referenceName: referenceName)) }
        @_spi(Storefront) public static func testPromotionalOffer(_ id: String) -> PurchaseOption { .init(kind: .unsignedPromotionalOffer(id: id)) }
        /// A key and value of the app's own, sent with the purchase. StoreKit says these have no effect (the
        /// `Data` one is for the Advanced Commerce API); the transaction does not carry them back.
        public static func custom(key: String, value: String) -> PurchaseOption { .init(kind: .custom(key: key, value: .string(value))) }
        public static func custom(key: String, value: Double) -> PurchaseOption { .init(kind: .custom(key: key, value: .number(value))) }
        public static func custom(key: String, value: Bool) -> PurchaseOption { .init(kind: .custom(key: key, value: .bool(value))) }
        public static func custom(key: String, value: Data) -> PurchaseOption { .init(kind: .custom(key: key, value: .data(value))) }
        /// Whether the purchase goes on when the customer's storefront changes while it is made (between the
        /// payment sheet's opening and the store's charge): `false` ends it with `PurchaseError.productUnavailable`
        /// (StoreKit 1's `storeProductNotAvailable`); without this option it goes on in the new storefront.
        @preconcurrency public static func onStorefrontChange(shouldContinuePurchase: @escaping @Sendable (Storefront) -> Bool) -> PurchaseOption {
            .init(kind: .onStorefrontChange(StorefrontChangeDecision(shouldContinuePurchase)))
        }
        /// A win-back offer for a lapsed subscriber.
        public static func winBackOffer(_ offer: Product.SubscriptionOffer) -> PurchaseOption { .init(kind: .winBackOffer(id: offer.id ?? "")) }

        /// The options that ask for what `options` says (a promotional offer without its signature too,
        /// which Storefront's own app may send to show the App Store's refusal).
        @_spi(Storefront) public static func options(_ options: PurchaseOptions) -> Set<PurchaseOption> {
            var set: Set<PurchaseOption> = [.quantity(options.quantity), .simulatesAskToBuyInSandbox(options.simulatesAskToBuy),
                                            .billingPlanType(SubscriptionInfo.BillingPlanType(options.billingPlan))]
            if let token = options.appAccountToken { set.insert(.appAccountToken(token)) }
            if let offer = options.promotionalOffer { set.insert(.init(kind: .promotionalOffer(id: offer.id, signature: offer.signature))) }
            if let id = options.winBackOfferID { set.insert(.init(kind: .winBackOffer(id: id))) }
            if let jws = options.introductoryOfferEligibility { set.insert(.introductoryOfferEligibility(compactJWS: jws)) }
            if let date = options.purchaseDate { set.insert(.purchaseDate(date, renews: options.renewsAfterFirstPeriod)) }
            if let name = options.codeOfferReferenceName { set.insert(.testCodeOffer(name)) }
            if let id = options.unsignedPromotionalOfferID { set.insert(.testPromotionalOffer(id)) }
            return set
        }

        @_spi(Storefront) public static func engineOptions(_ options: Set<PurchaseOption>) -> PurchaseOptions {
            var engine = PurchaseOptions()
            for option in options {
                switch option.kind {
                case .quantity(let n): engine.quantity = n
                case .appAccountToken(let token): engine.appAccountToken = token
                case .simulatesAskToBuy(let on): engine.simulatesAskToBuy = on
                case .promotionalOffer(let id, let signature): engine.promotionalOffer = (id, signature)
                case .winBackOffer(let id): engine.winBackOfferID = id
                case .introductoryOfferEligibility(let jws): engine.introductoryOfferEligibility = jws
                case .billingPlan(let plan): engine.billingPlan = plan.plan
                case .purchaseDate(let date, let renews): (engine.purchaseDate, engine.renewsAfterFirstPeriod) = (date, renews)
                case .custom, .onStorefrontChange: break  // nothing the store charges by; see `Product.purchase`
                case .codeOffer(let name): engine.codeOfferReferenceName = name
                case .unsignedPromotionalOffer(let id): engine.unsignedPromotionalOfferID = id
                }
            }
            return engine
        }
    }
}
