import Foundation
import StoreCore
import StoreEngine
@_spi(Storefront) import StoreKit

/// StoreKitTest's `SKTestError`: what a session's control refused, and why in words.
public struct SKTestError: Error, Equatable, Sendable, CustomStringConvertible, LocalizedError {
    public enum Code: Int, Sendable, Equatable {
        case unknown = 0, fileNotFound, invalidAction, invalidProductIdentifier, invalidProductType, invalidURL
        case noSubscriptionFound, noTransactionFound, serviceUnavailable
    }

    public let code: Code
    /// What went wrong and what to do, naming the file, product or transaction.
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public static var errorDomain: String { "SKTestErrorDomain" }
    public static var fileNotFound: Code { .fileNotFound }
    public static var invalidAction: Code { .invalidAction }
    public static var invalidProductIdentifier: Code { .invalidProductIdentifier }
    public static var invalidProductType: Code { .invalidProductType }
    public static var invalidURL: Code { .invalidURL }
    public static var noSubscriptionFound: Code { .noSubscriptionFound }
    public static var noTransactionFound: Code { .noTransactionFound }
    public static var serviceUnavailable: Code { .serviceUnavailable }

    public var description: String { "SKTestError.\(code): \(message)" }
    public var errorDescription: String? { message }


    /// The session's error for one the store's tester controls raised.
    static func from(_ error: any Error) -> any Error {
        // A team's shared ledger out of reach: the same control may succeed later.
        if let ledger = error as? LedgerError, ledger.isOutOfReach { return SKTestError(.serviceUnavailable, ledger.description) }
        // What the store refused as the App Store does (an offer not granted) is StoreKit's error, as the app would get it.
        if error is StoreFailure { return StoreConnection.storeKitError(error) }
        guard let control = error as? TestControlError else { return error }
        let text = control.description
        let code: Code = if text.hasPrefix("no transaction") || text.hasPrefix("no completed transaction") || text.hasPrefix("no pending") {
            .noTransactionFound
        } else if text.hasPrefix("no subscription") || text.hasPrefix("no active subscription") {
            .noSubscriptionFound
        } else if text.hasPrefix("unknown product") {
            .invalidProductIdentifier
        } else if text.hasSuffix("is not an auto-renewable subscription") {
            .invalidProductType
        } else {
            .invalidAction
        }
        return SKTestError(code, text)
    }
}

extension SKTestError.Code {
    /// `catch SKTestError.noTransactionFound`, as with Apple's error codes.
    public static func ~= (code: Self, error: any Error) -> Bool { (error as? SKTestError)?.code == code }
}
