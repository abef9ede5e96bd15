import Foundation
import StoreCore
import StoreEngine

extension Product {
    /// An auto-renewable subscription's group, period, offers and the customer's status in its group.
    public struct SubscriptionInfo: Hashable, Sendable {
        let product: StoreCore.Product
        let terms: SubscriptionTerms

        init(product: StoreCore.Product, terms: SubscriptionTerms) {
            self.product = product
            self.terms = terms
        }

        public var subscriptionGroupID: String { terms.groupID }
        public var subscriptionPeriod: SubscriptionPeriod { SubscriptionPeriod(terms.period) }
        public var introductoryOffer: SubscriptionOffer? { terms.introductoryOffer.map { SubscriptionOffer($0, of: product) } }
        public var promotionalOffers: [SubscriptionOffer] { terms.promotionalOffers.map { SubscriptionOffer($0, of: product) } }
        public var winBackOffers: [SubscriptionOffer] { terms.winBackOffers.map { SubscriptionOffer($0, of: product) } }
        /// The service level in the group: 1 is the highest.
        public var groupLevel: Int { terms.level }
        public var groupDisplayName: String { product.groupName ?? "" }

        /// Whether the customer may still get an introductory offer in this subscription's group.
        public var isEligibleForIntroOffer: Bool { get async { await Self.isEligibleForIntroOffer(for: subscriptionGroupID) } }

        public static func isEligibleForIntroOffer(for groupID: String) async -> Bool {
            await StoreKitRuntime.current?.source.isEligibleForIntroOffer(groupID: groupID) ?? false
        }

        /// The customer's statuses in this subscription's group (their own, and a family member's shared one).
        public var status: [Status] { get async throws { try await Self.status(for: subscriptionGroupID) } }

        public static func status(for groupID: String) async throws -> [Status] {
            guard let connection = StoreKitRuntime.current else { return [] }
            return connection.statuses(try await connection.call { try await $0.subscriptionStatuses(groupID: groupID) })
        }
    }

    public struct SubscriptionPeriod: Hashable, Sendable, CustomDebugStringConvertible {
        public enum Unit: Hashable, Sendable, CaseIterable, CustomDebugStringConvertible {
            case day, week, month, year

            /// The unit's name in the customer's language, capitalized as StoreKit gives it ("Month", "Monat"):
            /// apps lowercase it after a price ("$4.99/month").
            public var localizedDescription: String {
                let locale = Locale.current
                return PeriodNames.per(Period(1, period), locale: locale.identifier).capitalized(with: locale)
            }

            public var debugDescription: String { switch self { case .day: "day"; case .week: "week"; case .month: "month"; case .year: "year" } }

            var period: Period.Unit { switch self { case .day: .day; case .week: .week; case .month: .month; case .year: .year } }
        }

        public let value: Int
        public let unit: Unit

        init(_ period: Period) {
            value = period.value
            unit = Unit.allCases.first { $0.period == period.unit }!  // one of the four
        }

        // The periods App Store Connect sells, to compare with (`period == .yearly`).
        public static var everyThreeDays: Self { Self(Period(3, .day)) }
        public static var weekly: Self { Self(Period(1, .week)) }
        public static var everyTwoWeeks: Self { Self(Period(2, .week)) }
        public static var monthly: Self { Self(Period(1, .month)) }
        public static var everyTwoMonths: Self { Self(Period(2, .month)) }
        public static var everyThreeMonths: Self { Self(Period(3, .month)) }
        public static var everySixMonths: Self { Self(Period(6, .month)) }
        public static var yearly: Self { Self(Period(1, .year)) }

        /// One period from `referenceDate`: a month from February 1 ends on March 1, from January 31 on the
        /// last day of February (the calendar's arithmetic, as a renewal's).
        public func dateRange(referenceDate: Date = .now) -> Range<Date> {
            referenceDate..<Period(value, unit.period).advance(referenceDate)
        }

        public var debugDescription: String { "\(value) \(unit.debugDescription)" }

        /// The period from `referenceDate` in a format of date ranges (as `Product.subscriptionPeriodFormatStyle` is on Apple's platforms).
        public func formatted<S: FormatStyle>(_ format: S, referenceDate: Date = .now) -> S.FormatOutput where S.FormatInput == Range<Date> {
            format.format(dateRange(referenceDate: referenceDate))
        }

        /// The period from `referenceDate` as a duration (a month from February 1 is 28 days).
        public func formatted<S: FormatStyle>(_ format: S, referenceDate: Date = .now) -> S.FormatOutput where S.FormatInput == Duration {
            let range = dateRange(referenceDate: referenceDate)
            return format.format(.seconds(range.upperBound.timeIntervalSince(range.lowerBound)))
        }
    }

    /// An introductory, promotional or win-back offer on a subscription.
    public struct SubscriptionOffer: Hashable, Sendable {
        public let id: String?
        public let type: OfferType
        public let price: Decimal
        public let displayPrice: String
        /// One period of the offer (of a pay-as-you-go offer, one discounted billing period).
        public let period: SubscriptionPeriod
        public let periodCount: Int
        public let paymentMode: PaymentMode

        init(_ offer: StoreCore.SubscriptionOffer, of product: StoreCore.Product) {
            id = offer.id
            type = OfferType(rawValue: offer.type.rawValue)
            price = offer.price(in: product.storefront)
            displayPrice = product.format(price)
            period = SubscriptionPeriod(offer.period)
            periodCount = offer.periodCount
            paymentMode = PaymentMode(rawValue: offer.paymentMode.rawValue)
        }

        /// The developer's server's signature of a promotional offer, of the earlier kind (the fields
        /// `PromotionalOfferSignatureCreator` signs over and the signature, DER); see `PurchaseOption.promotionalOffer(offerID:signature:)`.
        public struct Signature: Hashable, Sendable {
            public var keyID: String
            public var nonce: UUID
            /// UNIX time in milliseconds, as signed.
            public var timestamp: Int
            public var signature: Data

            public init(keyID: String, nonce: UUID, timestamp: Int, signature: Data) {
                (self.keyID, self.nonce, self.timestamp, self.signature) = (keyID, nonce, timestamp, signature)
            }
        }

        public struct OfferType: RawRepresentable, Hashable, Sendable {
            public let rawValue: String
            public init(rawValue: String) { self.rawValue = rawValue }
            public static let introductory = OfferType(rawValue: "introductory")
            public static let promotional = OfferType(rawValue: "promotional")
            public static let winBack = OfferType(rawValue: "winBack")

            /// The offer's kind, in words.
            public var localizedDescription: String {
                switch self {
                case .introductory: "Introductory Offer"
                case .promotional: "Promotional Offer"
                case .winBack: "Win-Back Offer"
                default: "Offer"
                }
            }
        }

        public struct PaymentMode: RawRepresentable, Hashable, Sendable {
            public let rawValue: String
            public init(rawValue: String) { self.rawValue = rawValue }
            public static let freeTrial = PaymentMode(rawValue: "freeTrial")
            public static let payAsYouGo = PaymentMode(rawValue: "payAsYouGo")
            public static let payUpFront = PaymentMode(rawValue: "payUpFront")

            /// How the offer is paid, in words.
            public var localizedDescription: String {
                switch self {
                case .freeTrial: "Free Trial"
                case .payAsYouGo: "Pay As You Go"
                case .payUpFront: "Pay Up Front"
                default: rawValue
                }
            }
        }
    }
}

extension Product.SubscriptionInfo {
    /// The customer's subscription in a group: its state, latest transaction and renewal info, each verified.
    public struct Status: Equatable, Sendable {
        public let state: RenewalState
        public let transaction: VerificationResult<Transaction>
        public let renewalInfo: VerificationResult<RenewalInfo>
    }

    public struct RenewalState: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        init(_ state: SubscriptionState) {
            switch state {
            case .subscribed: self = .subscribed
            case .expired: self = .expired
            case .inBillingRetryPeriod: self = .inBillingRetryPeriod
            case .inGracePeriod: self = .inGracePeriod
            case .revoked: self = .revoked
            }
        }

        public static let subscribed = RenewalState(rawValue: 1)
        public static let expired = RenewalState(rawValue: 2)
        public static let inBillingRetryPeriod = RenewalState(rawValue: 3)
        public static let inGracePeriod = RenewalState(rawValue: 4)
        public static let revoked = RenewalState(rawValue: 5)

        public var localizedDescription: String { description }

        public var description: String {
            ["subscribed", "expired", "inBillingRetryPeriod", "inGracePeriod", "revoked"][safe: rawValue - 1] ?? "RenewalState(\(rawValue))"
        }
    }

    /// What happens at the subscription's next renewal, as the App Store signed it.
    public struct RenewalInfo: Hashable, Sendable, SignedValue {
        let payload: RenewalInfoPayload
        let jws: String

        init(payload: RenewalInfoPayload, jws: String) {
            self.payload = payload
            self.jws = jws
        }

        public var originalTransactionID: UInt64 { UInt64(payload.originalTransactionID) }
        public var currentProductID: String { payload.productID }
        /// The product the subscription renews to (a pending downgrade or crossgrade shows here).
        public var autoRenewPreference: String? { payload.autoRenewProductID }
        public var willAutoRenew: Bool { payload.willAutoRenew }
        public var expirationReason: ExpirationReason? { payload.expirationReason.map { ExpirationReason(rawValue: $0.rawValue) } }
        public var gracePeriodExpirationDate: Date? { payload.gracePeriodExpirationDate }
        public var isInBillingRetry: Bool { payload.isInBillingRetry }
        public var priceIncreaseStatus: PriceIncreaseStatus {
            switch payload.priceIncreaseStatus { case nil: .noIncreasePending; case .notYetResponded: .pending; case .agreed: .agreed }
        }
        public var renewalDate: Date? { payload.renewalDate }
        public var recentSubscriptionStartDate: Date? { payload.recentSubscriptionStartDate }
        /// The offer the next renewal gets (an introductory period still to come, a redeemed code, a promotional offer).
        public var offer: Transaction.Offer? {
            payload.offerType.map {
                Transaction.Offer(type: Transaction.OfferType($0), id: payload.offerID, paymentMode: payload.offerPaymentMode.map(Transaction.Offer.PaymentMode.init),
                                  period: payload.offerPeriod.map(Product.SubscriptionPeriod.init))
            }
        }
        @available(*, deprecated, renamed: "offer.id")
        public var offerID: String? { payload.offerID }
        @available(*, deprecated, renamed: "offer.type")
        public var offerType: Transaction.OfferType? { payload.offerType.map(Transaction.OfferType.init) }
        /// The next renewal's offer's payment mode as signed (`FREE_TRIAL`…), for code written before `offer`.
        @available(*, deprecated, renamed: "offer.paymentMode")
        public var offerPaymentModeStringRepresentation: String? { payload.offerPaymentMode?.signedName }
        /// The environment as signed, for code written before `environment`.
        @available(*, deprecated, renamed: "environment.rawValue")
        public var environmentStringRepresentation: String { payload.environment }
        /// A local store binds no device: empty, as for renewal info read on another device.
        public var deviceVerification: Data { Data() }
        public var deviceVerificationNonce: UUID { UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }
        public var renewalPrice: Decimal? { payload.renewalPriceMilliunits.map { Decimal($0) / 1000 } }
        public var currency: Locale.Currency? { payload.currency.isEmpty ? nil : Locale.Currency(payload.currency) }
        public var eligibleWinBackOfferIDs: [String] { payload.eligibleWinBackOfferIDs }
        public var environment: AppStore.Environment { AppStore.Environment(rawValue: payload.environment) }
        public var signedDate: Date { payload.signedDate }
        public var appAccountToken: UUID? { payload.appAccountToken }
        public var appTransactionID: String { payload.appTransactionID }
        /// The billing plan the subscription renews on; nil for a product without billing plans.
        public var renewalBillingPlanType: Product.SubscriptionInfo.BillingPlanType? { payload.renewalBillingPlanType.map(Product.SubscriptionInfo.BillingPlanType.init) }
        public var jsonRepresentation: Data { parts.payload }

        public struct ExpirationReason: RawRepresentable, Hashable, Sendable {
            public let rawValue: Int
            public init(rawValue: Int) { self.rawValue = rawValue }
            public static let autoRenewDisabled = ExpirationReason(rawValue: 1)
            public static let billingError = ExpirationReason(rawValue: 2)
            public static let didNotConsentToPriceIncrease = ExpirationReason(rawValue: 3)
            public static let productUnavailable = ExpirationReason(rawValue: 4)
            public static let unknown = ExpirationReason(rawValue: 5)

            /// Why the subscription ended, in words.
            public var localizedDescription: String {
                ["Auto-renew was turned off", "Billing error", "Did not consent to the price increase",
                 "Product unavailable"][safe: rawValue - 1] ?? "Unknown reason"
            }
        }

        public enum PriceIncreaseStatus: Hashable, Sendable { case noIncreasePending, pending, agreed }
    }
}

extension Product.SubscriptionInfo {
    /// How a subscription with billing plans is paid (iOS 26.4): the whole period up front, or monthly for a
    /// 12-month commitment. Its raw value is the signed data's `billingPlanType`.
    public struct BillingPlanType: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        init(_ plan: StoreCore.BillingPlanType) { self.init(rawValue: plan.signedName) }

        public static let upFront = BillingPlanType(StoreCore.BillingPlanType.upFront)
        public static let monthly = BillingPlanType(StoreCore.BillingPlanType.monthly)

        /// The store's plan; a raw value StoreKit does not know is up front, StoreKit's default.
        var plan: StoreCore.BillingPlanType { StoreCore.BillingPlanType(signedName: rawValue) ?? .upFront }
    }
}

// The top-level names StoreKit gave these in iOS 18.4.
public typealias SubscriptionInfo = Product.SubscriptionInfo
public typealias SubscriptionStatus = Product.SubscriptionInfo.Status
public typealias SubscriptionRenewalInfo = Product.SubscriptionInfo.RenewalInfo
public typealias SubscriptionRenewalState = Product.SubscriptionInfo.RenewalState

extension DateComponents {
    /// A subscription period as date components (`Calendar.date(byAdding:to:)`, `DateComponentsFormatter`):
    /// days, weeks (`weekOfYear`), months or years.
    public init(subscriptionPeriod period: Product.SubscriptionPeriod) {
        switch period.unit {
        case .day: self.init(day: period.value)
        case .week: self.init(weekOfYear: period.value)
        case .month: self.init(month: period.value)
        case .year: self.init(year: period.value)
        }
    }
}

extension Product.SubscriptionInfo {
    public typealias BillingPeriod = Product.SubscriptionPeriod

    /// Each way the subscription is sold (iOS 26.4): up front, and monthly for a 12-month commitment when the
    /// catalog sells that plan; a subscription without billing plans is sold up front only.
    public var pricingTerms: [PricingTerms] {
        StoreCore.BillingPlanType.allCases.compactMap { plan in terms.billingPlan(plan).map { PricingTerms($0, of: product, terms: terms) } }
    }

    /// What one billing plan charges: each billing period's price, the whole commitment, and its offers.
    public struct PricingTerms: Hashable, Sendable {
        public let billingPlanType: BillingPlanType
        public let billingPrice: Decimal
        /// `billingPrice` formatted for the customer, charged at each billing event.
        public let billingDisplayPrice: String
        public let billingPeriod: BillingPeriod
        public let commitmentInfo: CommitmentInfo
        /// The introductory, promotional and win-back offers a purchase on this plan may get.
        public let subscriptionOffers: [Product.SubscriptionOffer]

        public subscript(offers type: Product.SubscriptionOffer.OfferType) -> [Product.SubscriptionOffer] {
            subscriptionOffers.filter { $0.type == type }
        }

        init(_ plan: BillingPlan, of product: StoreCore.Product, terms: SubscriptionTerms) {
            billingPlanType = BillingPlanType(plan.type)
            billingPrice = plan.price(in: product.storefront, listed: product.price)
            billingDisplayPrice = product.format(billingPrice)
            billingPeriod = BillingPeriod(terms.billingPeriod(on: plan.type))
            let committed = plan.commitmentPrice(in: product.storefront, listed: product.price)
            // The commitment is the subscription's period: a year, paid monthly or at once.
            commitmentInfo = CommitmentInfo(price: committed, displayPrice: product.format(committed), period: Product.SubscriptionPeriod(terms.period))
            subscriptionOffers = (terms.introductoryOffers + terms.promotionalOffers + terms.winBackOffers)
                .filter { $0.billingPlan == plan.type }.map { Product.SubscriptionOffer($0, of: product) }
        }
    }

    /// The whole commitment of a plan: what it comes to, and how long it binds.
    public struct CommitmentInfo: Hashable, Sendable {
        public let price: Decimal
        public let displayPrice: String
        public let period: Product.SubscriptionPeriod
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
