import Foundation

// The two original-StoreKit names StoreKitTest's API still speaks: `SKTestSession.failureError` and
// `SKTestTransaction.state`.

/// StoreKit's `SKError`: its codes.
public struct SKError: Error, Equatable, Sendable {
    public let code: Code
    public init(_ code: Code) { self.code = code }

    public enum Code: Int, Sendable, Equatable {
        case unknown = 0, clientInvalid, paymentCancelled, paymentInvalid, paymentNotAllowed, storeProductNotAvailable
        case cloudServicePermissionDenied, cloudServiceNetworkConnectionFailed, cloudServiceRevoked, privacyAcknowledgementRequired
        case unauthorizedRequestData, invalidOfferIdentifier, invalidSignature, missingOfferParams, invalidOfferPrice
        case overlayCancelled, overlayInvalidConfiguration, overlayTimeout, ineligibleForOffer, unsupportedPlatform
    }
}

/// StoreKit's `SKPaymentTransactionState`.
public enum SKPaymentTransactionState: Int, Sendable, Equatable {
    case purchasing = 0, purchased, failed, restored, deferred
}
