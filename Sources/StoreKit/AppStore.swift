import Foundation
import StoreCore
import StoreEngine

/// StoreKit's `AppStore`: restoring purchases and what the App Store says of itself.
public enum AppStore {
    /// Syncs the customer's transactions with the App Store. Call it only from an explicit
    /// "Restore Purchases" action, then read `Transaction.currentEntitlements` again.
    public static func sync() async throws {
        guard let connection = StoreKitRuntime.current else { throw StoreKitError.unknown }
        try await connection.call { try await $0.sync() }
    }

    /// Whether the customer may make payments (a local store always lets them).
    public static var canMakePayments: Bool { StoreKitRuntime.current != nil }

    /// Where signed data comes from.
    public struct Environment: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let production = Environment(rawValue: "Production")
        public static let sandbox = Environment(rawValue: "Sandbox")
        public static let xcode = Environment(rawValue: "Xcode")
    }

    public struct Platform: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let iOS = Platform(rawValue: "iOS")
        public static let macOS = Platform(rawValue: "macOS")
        public static let tvOS = Platform(rawValue: "tvOS")
        public static let visionOS = Platform(rawValue: "visionOS")
    }
}

/// StoreKit's `Storefront`: the customer's App Store country or region.
public struct Storefront: Identifiable, Hashable, Sendable {
    /// ISO 3166-1 alpha-3 (`USA`).
    public let countryCode: String
    /// Apple's numeric identifier (`143441`).
    public let id: String
    public let currency: Locale.Currency?

    init(countryCode: String, id: String, currencyCode: String) {
        self.countryCode = countryCode
        self.id = id
        currency = currencyCode.isEmpty ? nil : Locale.Currency(currencyCode)
    }

    init(_ storefront: StoreCore.Storefront) { self.init(countryCode: storefront.code, id: storefront.id, currencyCode: storefront.currency) }

    /// The customer's storefront now; nil when there is no store.
    public static var current: Storefront? {
        get async {
            guard let connection = StoreKitRuntime.current else { return nil }
            return Storefront(await connection.source.storefront())
        }
    }

    /// The storefront each time the customer's changes (looked at four times a second, as the store's clock ticks).
    public static var updates: Storefronts { Storefronts() }

    public struct Storefronts: AsyncSequence, Sendable {
        public typealias Element = Storefront

        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator() }

        public struct AsyncIterator: AsyncIteratorProtocol {
            var last: Storefront?

            public mutating func next() async -> Storefront? {
                while !Task.isCancelled {
                    guard let connection = await StoreKitRuntime.listening() else { return nil }
                    let now = Storefront(await connection.source.storefront())
                    if last == nil { last = now }
                    if now != last {
                        last = now
                        return now
                    }
                    guard (try? await Task.sleep(for: .milliseconds(250))) != nil else { return nil }
                }
                return nil
            }
        }
    }
}

/// StoreKit's `StoreKitError`.
public enum StoreKitError: Error, Sendable, Equatable, LocalizedError {
    case unknown
    case userCancelled
    case networkError(URLError)
    case systemError(any Error)
    case notAvailableInStorefront
    case notEntitled
    case unsupported

    @_spi(Storefront) public init(_ error: StoreCore.StoreKitError) {
        switch error {
        case .unknown: self = .unknown
        case .userCancelled: self = .userCancelled
        case .networkError: self = .networkError(URLError(.notConnectedToInternet))
        case .systemError: self = .systemError(error)
        case .notAvailableInStorefront: self = .notAvailableInStorefront
        case .notEntitled: self = .notEntitled
        case .unsupported: self = .unsupported
        }
    }

    /// The store's name for it.
    @_spi(Storefront) public var storeCode: StoreCore.StoreKitError {
        switch self {
        case .unknown: .unknown
        case .userCancelled: .userCancelled
        case .networkError: .networkError
        case .systemError: .systemError
        case .notAvailableInStorefront: .notAvailableInStorefront
        case .notEntitled: .notEntitled
        case .unsupported: .unsupported
        }
    }

    /// Same case; network errors by code, system errors by what they say.
    public static func == (a: StoreKitError, b: StoreKitError) -> Bool {
        switch (a, b) {
        case (.networkError(let x), .networkError(let y)): x.code == y.code
        case (.systemError(let x), .systemError(let y)): String(describing: x) == String(describing: y)
        case (.unknown, .unknown), (.userCancelled, .userCancelled), (.notAvailableInStorefront, .notAvailableInStorefront),
             (.notEntitled, .notEntitled), (.unsupported, .unsupported): true
        default: false
        }
    }

    public var errorDescription: String? {
        switch self {
        case .unknown: StoreFailure.storeKit(.unknown).message
        case .userCancelled: StoreFailure.storeKit(.userCancelled).message
        case .networkError: StoreFailure.storeKit(.networkError).message
        case .systemError: StoreFailure.storeKit(.systemError).message
        case .notAvailableInStorefront: StoreFailure.storeKit(.notAvailableInStorefront).message
        case .notEntitled: StoreFailure.storeKit(.notEntitled).message
        case .unsupported: StoreFailure.storeKit(.unsupported).message
        }
    }
}

/// StoreKit's `AppTransaction`: the signed record of the customer's purchase of the app itself.
public struct AppTransaction: Hashable, Sendable, SignedValue, CustomDebugStringConvertible {
    @_spi(Storefront) public let payload: AppTransactionPayload
    let jws: String

    init(payload: AppTransactionPayload, jws: String) {
        self.payload = payload
        self.jws = jws
    }

    public var appID: UInt64? { payload.appAppleID.map { UInt64($0) } }
    public var appTransactionID: String { payload.appTransactionID }
    public var bundleID: String { payload.bundleID }
    public var appVersion: String { payload.appVersion }
    public var appVersionID: UInt64? { payload.versionExternalIdentifier.map { UInt64($0) } }
    public var originalAppVersion: String { payload.originalAppVersion }
    public var originalPurchaseDate: Date { payload.originalPurchaseDate }
    public var originalPlatform: AppStore.Platform { AppStore.Platform(rawValue: payload.originalPlatform) }
    public var originalPlatformStringRepresentation: String { payload.originalPlatform }
    public var preorderDate: Date? { payload.preorderDate }
    public var environment: AppStore.Environment { AppStore.Environment(rawValue: payload.environment) }
    public var signedDate: Date { payload.signedDate }
    public var deviceVerificationNonce: UUID { payload.deviceVerificationNonce }
    public var deviceVerification: Data { Data(base64Encoded: payload.deviceVerification) ?? Data() }
    public var jsonRepresentation: Data { parts.payload }
    /// The payload's JSON, as signed (as `Transaction`'s).
    public var debugDescription: String { String(decoding: jsonRepresentation, as: UTF8.self) }

    /// The app's transaction, verified.
    public static var shared: VerificationResult<AppTransaction> {
        get async throws {
            guard let connection = StoreKitRuntime.current else { throw StoreKitError.unknown }
            let jws = try await connection.call { try await $0.appTransaction() }
            guard let result = connection.appTransaction(jws) else { throw StoreKitError.unknown }
            return result
        }
    }

    /// Asks the App Store for the app's transaction again (may ask the customer to sign in).
    public static func refresh() async throws -> VerificationResult<AppTransaction> { try await shared }
}
