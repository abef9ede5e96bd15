/// StoreKit's `StoreKitError`.
public enum StoreKitError: String, Error, CaseIterable, Sendable {
    case unknown, userCancelled, networkError, systemError, notAvailableInStorefront, notEntitled, unsupported
}

/// StoreKit's `Product.PurchaseError`.
public enum PurchaseError: String, Error, CaseIterable, Sendable {
    case invalidQuantity, productUnavailable, purchaseNotAllowed, ineligibleForOffer
    case invalidOfferIdentifier, invalidOfferPrice, invalidOfferSignature, missingOfferParameters
}

/// StoreKit's `VerificationResult.VerificationError`.
public enum VerificationError: String, Error, CaseIterable, Sendable {
    case revokedCertificate, invalidCertificateChain, invalidDeviceVerification
    case invalidEncoding, invalidSignature, missingRequiredProperties

    /// The JWS header member that carries a verification error the tester simulates (Xcode's
    /// `setSimulatedError(.verification(…))`): the token is the store's own, intact and valid, and the
    /// app's verifier reports exactly this error for it, with the transaction, as StoreKit does on the device.
    public static let simulationHeader = "simulatedVerificationError"
}

/// StoreKit's `Transaction.RefundRequestError`.
public enum RefundRequestError: String, Error, CaseIterable, Sendable {
    case duplicateRequest, failed
}

/// Why an offer code could not be redeemed (the redeem sheet shows these; StoreKit has no public enum).
public enum OfferCodeError: String, Error, CaseIterable, Sendable {
    case unknownCode, usedUp, expired, notEligible, alreadyOwned, notAvailableInStorefront
}

/// Any error the store can raise, as one value that can be injected, stored, compared and shown.
public enum StoreFailure: Error, Hashable, Sendable, CustomStringConvertible {
    case storeKit(StoreKitError)
    case purchase(PurchaseError)
    case verification(VerificationError)
    case refund(RefundRequestError)
    case offerCode(OfferCodeError)

    /// The Swift spelling, e.g. `StoreKitError.networkError`.
    public var description: String {
        switch self {
        case .storeKit(let e): "StoreKitError.\(e.rawValue)"
        case .purchase(let e): "Product.PurchaseError.\(e.rawValue)"
        case .verification(let e): "VerificationError.\(e.rawValue)"
        case .refund(let e): "RefundRequestError.\(e.rawValue)"
        case .offerCode(let e): "OfferCodeError.\(e.rawValue)"
        }
    }

    /// The bare case name, as catalogs and scenarios write it (`networkError`).
    public var name: String {
        switch self {
        case .storeKit(let e): e.rawValue
        case .purchase(let e): e.rawValue
        case .verification(let e): e.rawValue
        case .refund(let e): e.rawValue
        case .offerCode(let e): e.rawValue
        }
    }

    /// Accepts a bare case name or a qualified one (`StoreKitError.networkError`).
    public init?(name: String) {
        let bare = String(name.split(separator: ".").last ?? "")
        if let e = StoreKitError(rawValue: bare) { self = .storeKit(e) }
        else if let e = PurchaseError(rawValue: bare) { self = .purchase(e) }
        else if let e = VerificationError(rawValue: bare) { self = .verification(e) }
        else if let e = RefundRequestError(rawValue: bare) { self = .refund(e) }
        else if let e = OfferCodeError(rawValue: bare) { self = .offerCode(e) }
        else { return nil }
    }

    public static var allNames: [String] {
        StoreKitError.allCases.map(\.rawValue) + PurchaseError.allCases.map(\.rawValue)
            + VerificationError.allCases.map(\.rawValue) + RefundRequestError.allCases.map(\.rawValue)
    }

    /// What a person reads when this happens.
    public var message: String {
        switch self {
        case .storeKit(.unknown): "Unable to Complete Request"  // StoreKit's own words for it
        case .storeKit(.userCancelled): "The purchase was cancelled."
        case .storeKit(.networkError): "Cannot connect to the App Store (network error)."
        case .storeKit(.systemError): "The App Store reported a system error."
        case .storeKit(.notAvailableInStorefront): "This item is not available in your country or region."
        case .storeKit(.notEntitled): "This app is not entitled to use this App Store feature."
        case .storeKit(.unsupported): "This action is not supported here."
        case .purchase(.invalidQuantity): "That quantity cannot be purchased."
        case .purchase(.productUnavailable): "Item Unavailable"  // StoreKit's own words for it
        case .purchase(.purchaseNotAllowed): "Purchases are not allowed on this account."
        case .purchase(.ineligibleForOffer): "You are not eligible for this offer."
        case .purchase(.invalidOfferIdentifier): "The offer identifier is not valid."
        case .purchase(.invalidOfferPrice): "The offer price is not valid."
        case .purchase(.invalidOfferSignature): "The offer signature is not valid."
        case .purchase(.missingOfferParameters): "The offer is missing its signature."
        case .verification(let e): "The transaction failed verification (\(e.rawValue))."
        case .refund(.duplicateRequest): "A refund request for this purchase is already pending."
        case .refund(.failed): "The refund request could not be submitted."
        case .offerCode(.unknownCode): "This code is not valid."
        case .offerCode(.usedUp): "This code has already been redeemed the maximum number of times."
        case .offerCode(.expired): "This code has expired."
        case .offerCode(.notEligible): "This account is not eligible for this code."
        case .offerCode(.alreadyOwned): "You already own what this code grants."
        case .offerCode(.notAvailableInStorefront): "This code is not available in your country or region."
        }
    }
}

/// The nine APIs whose failures `SKTestSession.setSimulatedError(_:forAPI:)` can inject, in Xcode's order.
public enum StoreAPI: String, CaseIterable, Sendable, Codable {
    case loadProducts, purchase, verification, appStoreSync, subscriptionStatus
    case appTransaction, manageSubscriptions, refundRequest, offerCodeRedeem

    public var title: String {
        switch self {
        case .loadProducts: "Load Products"
        case .purchase: "Purchase"
        case .verification: "Verification"
        case .appStoreSync: "App Store Sync"
        case .subscriptionStatus: "Subscription Status"
        case .appTransaction: "App Transaction"
        case .manageSubscriptions: "Manage Subscriptions Sheet"
        case .refundRequest: "Refund Request Sheet"
        case .offerCodeRedeem: "Offer Code Redeem Sheet"
        }
    }

    /// The errors Xcode lets a tester inject for this API (the first is the default choice).
    public var injectableFailures: [StoreFailure] {
        let common: [StoreFailure] = [.storeKit(.networkError), .storeKit(.systemError), .storeKit(.unknown), .storeKit(.notEntitled)]
        switch self {
        case .purchase:
            return [.purchase(.purchaseNotAllowed), .purchase(.productUnavailable), .purchase(.invalidQuantity),
                    .purchase(.ineligibleForOffer), .purchase(.invalidOfferIdentifier), .purchase(.invalidOfferPrice),
                    .purchase(.invalidOfferSignature), .purchase(.missingOfferParameters),
                    .storeKit(.networkError), .storeKit(.systemError), .storeKit(.notAvailableInStorefront)]
        case .verification:
            return VerificationError.allCases.map(StoreFailure.verification)
        case .refundRequest:
            return [.refund(.duplicateRequest), .refund(.failed)] + common
        default:
            return common
        }
    }
}
