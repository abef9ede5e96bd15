import Foundation
import StoreCore
import StoreSigning

extension TransactionPayload {
    /// Whether `Transaction.all` (and `latest(for:)`) hands the app this transaction: StoreKit leaves out
    /// finished consumables, unless refunded or revoked, when the app does not opt in (Info.plist's
    /// `SKIncludeConsumableInAppPurchaseHistory`, the catalog's `includeConsumableInAppPurchaseHistory`).
    public func isInHistory(finished: Bool, includesConsumables: Bool) -> Bool {
        includesConsumables || productType != .consumable || !finished || isRevoked
    }
}

/// What verifying signed data found: the decoded payload, and whether its signature and chain held
/// (what StoreKit's `VerificationResult` carries; the `StoreKit` module wraps it in Apple's type).
public enum Verification<Payload: Sendable & Equatable>: Sendable, Equatable {
    case verified(Payload)
    case unverified(Payload?, VerificationError)

    public var payload: Payload? {
        switch self { case .verified(let p): p; case .unverified(let p, _): p }
    }
    public var isVerified: Bool { if case .verified = self { true } else { false } }
    public var error: VerificationError? { if case .unverified(_, let e) = self { e } else { nil } }
}

/// Checks signed data the way StoreKit does before the app sees it, and as strictly as Apple's App
/// Store Server Library does on a backend: an `x5c` of exactly three certificates that chains to a
/// trusted root under X509_STRICT, the App Store's marker OIDs on the leaf and intermediate whatever
/// the root, and validity at the payload's `signedDate`.
public struct SignedDataVerifier: Sendable {
    let verifier: JWSVerifier

    public init(trustedRoots: [Certificate]) {
        verifier = JWSVerifier.appStore(trustedRoots: trustedRoots)
    }

    public func transaction(_ jws: String) -> Verification<TransactionPayload> {
        decode(jws, TransactionPayload.init(json:))
    }

    public func renewalInfo(_ jws: String) -> Verification<RenewalInfoPayload> {
        decode(jws, RenewalInfoPayload.init(json:))
    }

    public func appTransaction(_ jws: String) -> Verification<AppTransactionPayload> {
        decode(jws, AppTransactionPayload.init(json:))
    }

    /// Any payload as JSON (for `storefront verify` and the history's detail view).
    public func json(_ jws: String, at time: VerificationTime = .signedDate) -> Verification<JSONValue> {
        decode(jws, at: time) { $0 }
    }

    /// Which check failed, in words ("x5c holds 1 certificate; …"); nil when the token verifies.
    public func failureReason(_ jws: String, at time: VerificationTime = .signedDate) -> String? {
        verifier.verify(jws, at: time).error?.message
    }

    func decode<P>(_ jws: String, at time: VerificationTime = .signedDate, _ make: (JSONValue) -> P?) -> Verification<P> {
        let result = verifier.verify(jws, at: time)
        let json = result.payload.flatMap { try? JSONParser.parse($0) }
        let payload = json.flatMap(make)
        if let error = result.error { return .unverified(payload, Self.storeKitError(error.kind)) }
        guard let payload else { return .unverified(nil, .missingRequiredProperties) }
        if let simulated = result.header.flatMap(Self.simulatedError) { return .unverified(payload, simulated) }
        return .verified(payload)
    }

    /// The verification error a tester simulates, named in the header of a token the store signed
    /// (see `VerificationError.simulationHeader`). The signer writes its members sorted, so the name
    /// comes before `x5c`, within the header's first bytes: looking there, by bytes, costs little for
    /// other tokens (Foundation's string search there was a fortieth of an app's purchase).
    static func simulatedError(_ header: Data) -> VerificationError? {
        let (start, marker) = ([UInt8](header.prefix(128)), simulationMarker)
        guard start.count >= marker.count else { return nil }
        for i in 0...(start.count - marker.count) where start[i] == marker[0] && start[i..<(i + marker.count)].elementsEqual(marker) {
            let value = start[(i + marker.count)...].prefix { $0 != UInt8(ascii: "\"") }
            return VerificationError(rawValue: String(decoding: value, as: UTF8.self))
        }
        return nil
    }

    private static let simulationMarker = Array("\"\(VerificationError.simulationHeader)\":\"".utf8)

    static func storeKitError(_ kind: JWSVerificationError.Kind) -> VerificationError {
        switch kind {
        case .invalidEncoding: .invalidEncoding
        case .invalidSignature: .invalidSignature
        case .invalidCertificateChain: .invalidCertificateChain
        case .revokedCertificate: .revokedCertificate
        case .missingRequiredProperties: .missingRequiredProperties
        }
    }
}
