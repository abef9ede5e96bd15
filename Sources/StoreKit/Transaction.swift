import Foundation
import StoreCore

/// StoreKit's `Transaction`: one purchase or renewal, as the App Store signed it.
public struct Transaction: Identifiable, Hashable, Sendable, SignedValue, CustomDebugStringConvertible {
    /// What the App Store signed, decoded: Storefront's own app reads it whole.
    @_spi(Storefront) public let payload: TransactionPayload
    let jws: String
    /// The store that handed it out: it is finished there.
    let store: StoreConnection

    init(payload: TransactionPayload, jws: String, store: StoreConnection) {
        self.payload = payload
        self.jws = jws
        self.store = store
    }

    public var id: UInt64 { UInt64(payload.transactionID) }
    public var originalID: UInt64 { UInt64(payload.originalTransactionID) }
    public var webOrderLineItemID: String? { payload.webOrderLineItemID }
    public var productID: String { payload.productID }
    public var subscriptionGroupID: String? { payload.subscriptionGroupID }
    public var appBundleID: String { payload.bundleID }
    public var purchaseDate: Date { payload.purchaseDate }
    public var originalPurchaseDate: Date { payload.originalPurchaseDate }
    public var expirationDate: Date? { payload.expirationDate }
    public var purchasedQuantity: Int { payload.quantity }
    public var isUpgraded: Bool { payload.isUpgraded }
    public var ownershipType: OwnershipType { OwnershipType(rawValue: payload.ownership.rawValue) }
    public var signedDate: Date { payload.signedDate }
    public var revocationDate: Date? { payload.revocationDate }
    public var revocationReason: RevocationReason? { payload.revocationReason.map { RevocationReason(rawValue: $0.rawValue) } }
    public var productType: Product.ProductType { Product.ProductType(payload.productType) }
    public var appAccountToken: UUID? { payload.appAccountToken }
    public var environment: AppStore.Environment { AppStore.Environment(rawValue: payload.environment) }
    public var reason: Reason { Reason(rawValue: payload.reason.rawValue) }
    public var storefront: Storefront { Storefront(countryCode: payload.storefront, id: payload.storefrontID, currencyCode: payload.currency) }
    @available(*, deprecated, renamed: "storefront.countryCode")
    public var storefrontCountryCode: String { payload.storefront }
    /// The environment as signed (`Sandbox`, `Production`, `Xcode`), for code written before `environment`.
    @available(*, deprecated, renamed: "environment.rawValue")
    public var environmentStringRepresentation: String { payload.environment }
    /// Why the transaction was made as signed (`PURCHASE`, `RENEWAL`), for code written before `reason`.
    @available(*, deprecated, renamed: "reason.rawValue")
    public var reasonStringRepresentation: String { payload.reason.rawValue }
    /// What the customer paid, for the whole quantity.
    public var price: Decimal? { payload.price }
    public var currency: Locale.Currency? { payload.currency.isEmpty ? nil : Locale.Currency(payload.currency) }
    public var offer: Offer? {
        payload.offerType.map {
            Offer(type: OfferType($0), id: payload.offerID, paymentMode: payload.offerPaymentMode.map(Offer.PaymentMode.init),
                  period: payload.offerPeriod.map(Product.SubscriptionPeriod.init))
        }
    }
    @available(*, deprecated, renamed: "offer.type")
    public var offerType: OfferType? { offer?.type }
    @available(*, deprecated, renamed: "offer.id")
    public var offerID: String? { payload.offerID }
    /// The offer's payment mode as signed (`FREE_TRIAL`…), for a mode this version does not name.
    public var offerPaymentModeStringRepresentation: String? { payload.offerPaymentMode?.signedName }
    /// The offer's whole length in ISO 8601 (`P2M`).
    public var offerPeriodStringRepresentation: String? { payload.offerPeriod?.iso }
    public var appTransactionID: String { payload.appTransactionID }
    /// How the subscription is paid; nil for a product without billing plans.
    public var billingPlanType: Product.SubscriptionInfo.BillingPlanType? { payload.billingPlanType.map(Product.SubscriptionInfo.BillingPlanType.init) }
    /// A local store binds no device: empty, as for a transaction read on another device.
    public var deviceVerification: Data { Data() }
    public var deviceVerificationNonce: UUID { UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }
    /// The payload's JSON, as signed.
    public var jsonRepresentation: Data { parts.payload }
    public var debugDescription: String { String(decoding: jsonRepresentation, as: UTF8.self) }

    /// The status of this subscription in its group now (the one it began, not a family member's):
    /// nil for anything but an auto-renewable subscription, or when the store cannot say.
    public var subscriptionStatus: Product.SubscriptionInfo.Status? {
        get async {
            guard productType == .autoRenewable, let groupID = subscriptionGroupID,
                  let signed = try? await store.call({ try await $0.subscriptionStatuses(groupID: groupID) }) else { return nil }
            return store.statuses(signed).first { $0.transaction.unsafePayloadValue.originalID == originalID }
        }
    }

    /// Tells the App Store the app delivered what was bought; until then the transaction comes back
    /// in `updates` at every launch and stays in `unfinished`.
    nonisolated(nonsending) public func finish() async {
        await store.finishes.finish(payload.transactionID)
    }
}

extension Transaction {
    public struct OwnershipType: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let purchased = OwnershipType(rawValue: "PURCHASED")
        public static let familyShared = OwnershipType(rawValue: "FAMILY_SHARED")
    }

    public struct RevocationReason: RawRepresentable, Hashable, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public static let developerIssue = RevocationReason(rawValue: 1)
        public static let other = RevocationReason(rawValue: 0)

        /// Why the App Store took the purchase back, in words.
        public var localizedDescription: String {
            self == .developerIssue ? "Refunded because of an issue with the app" : "Refunded for another reason"
        }
    }

    public struct Reason: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let purchase = Reason(rawValue: "PURCHASE")
        public static let renewal = Reason(rawValue: "RENEWAL")
    }

    public struct OfferType: RawRepresentable, Hashable, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        init(_ type: StoreCore.OfferType) { self.init(rawValue: type.signedValue) }
        public static let introductory = OfferType(rawValue: 1)
        public static let promotional = OfferType(rawValue: 2)
        public static let code = OfferType(rawValue: 3)
        public static let winBack = OfferType(rawValue: 4)

        /// The offer's kind, in words.
        public var localizedDescription: String {
            ["Introductory Offer", "Promotional Offer", "Offer Code", "Win-Back Offer"][safe: rawValue - 1] ?? "Offer"
        }
    }

    /// The offer a transaction was bought or renewed with.
    public struct Offer: Hashable, Sendable {
        public let type: OfferType
        public let id: String?
        public let paymentMode: PaymentMode?
        /// The whole offer's length.
        public let period: Product.SubscriptionPeriod?

        public struct PaymentMode: RawRepresentable, Hashable, Sendable {
            public let rawValue: String
            public init(rawValue: String) { self.rawValue = rawValue }
            init(_ mode: StoreCore.PaymentMode) { self.init(rawValue: mode.signedName) }
            public static let freeTrial = PaymentMode(rawValue: "FREE_TRIAL")
            public static let payAsYouGo = PaymentMode(rawValue: "PAY_AS_YOU_GO")
            public static let payUpFront = PaymentMode(rawValue: "PAY_UP_FRONT")
            public static let oneTime = PaymentMode(rawValue: "ONE_TIME")
        }
    }

    public enum RefundRequestError: String, Error, Sendable, Equatable, LocalizedError {
        case duplicateRequest, failed
        public var errorDescription: String? { StoreFailure.refund(StoreCore.RefundRequestError(rawValue: rawValue)!).message }
    }

    public enum RefundRequestStatus: Sendable, Equatable { case success, userCancelled }
}
