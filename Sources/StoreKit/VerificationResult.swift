import Foundation
import StoreVerification
import StoreCore
import StoreSigning

/// StoreKit's `VerificationResult`: a signed value, and whether its signature and certificate chain held.
/// The library verifies every token against the store's root before the app sees it.
@frozen public enum VerificationResult<SignedType> {
    case unverified(SignedType, VerificationResult<SignedType>.VerificationError)
    case verified(SignedType)

    /// Why a signed value failed verification.
    public enum VerificationError: String, Error, Sendable, Equatable, CaseIterable, LocalizedError {
        case revokedCertificate, invalidCertificateChain, invalidDeviceVerification
        case invalidEncoding, invalidSignature, missingRequiredProperties

        public var errorDescription: String? { "The signed data failed verification (\(rawValue))." }
    }

    /// The value, when it passed verification; throws the verification error otherwise.
    public var payloadValue: SignedType {
        get throws {
            switch self {
            case .verified(let value): return value
            case .unverified(_, let error): throw error
            }
        }
    }

    /// The value whether or not it passed verification (never trust it for unlocking content).
    public var unsafePayloadValue: SignedType {
        switch self { case .verified(let value), .unverified(let value, _): value }
    }
}

extension VerificationResult: Sendable where SignedType: Sendable {}
extension VerificationResult: Equatable where SignedType: Equatable {}
extension VerificationResult: Hashable where SignedType: Hashable {}

extension VerificationResult {
    /// StoreKit's result for a token the verifier read; nil when the payload could not be read at all.
    init?<Payload>(_ result: Verification<Payload>, jws: String, _ make: (Payload) -> SignedType) {
        switch result {
        case .verified(let payload): self = .verified(make(payload))
        case .unverified(let payload?, let error): self = .unverified(make(payload), VerificationError(rawValue: error.rawValue) ?? .invalidEncoding)
        case .unverified(nil, _): return nil
        }
    }
}

/// A value StoreKit hands out signed: its token's parts; two are the same when their tokens are.
protocol SignedValue: Hashable {
    var jws: String { get }
}

extension SignedValue {
    public static func == (a: Self, b: Self) -> Bool { a.jws == b.jws }
    public func hash(into hasher: inout Hasher) { hasher.combine(jws) }

    /// The token's three parts, decoded (empty when a part is not base64url).
    var parts: (header: Data, payload: Data, signature: Data) {
        let pieces = jws.split(separator: ".", omittingEmptySubsequences: false).map { Base64URL.decode(String($0)) ?? Data() }
        return (pieces.first ?? Data(), pieces.count > 1 ? pieces[1] : Data(), pieces.count > 2 ? pieces[2] : Data())
    }
}

extension VerificationResult {
    /// The result as Storefront's own app keeps it: what the App Store signed, decoded, and the verifier's word.
    @_spi(Storefront) public func verification<Payload>(_ payload: (SignedType) -> Payload) -> Verification<Payload> {
        switch self {
        case .verified(let value): .verified(payload(value))
        case .unverified(let value, let error):
            .unverified(payload(value), StoreCore.VerificationError(rawValue: error.rawValue) ?? .invalidEncoding)
        }
    }
}

extension VerificationResult where SignedType == Transaction {
    /// The transaction as the App Store signed it, in JWS compact serialization.
    public var jwsRepresentation: String { unsafePayloadValue.jws }
    public var headerData: Data { unsafePayloadValue.parts.header }
    public var payloadData: Data { unsafePayloadValue.parts.payload }
    public var signatureData: Data { unsafePayloadValue.parts.signature }
    /// What the signature covers: the header and payload as they stand in the token.
    public var signedData: Data { VerificationResult.signedPart(of: jwsRepresentation) }
    public var signedDate: Date { unsafePayloadValue.signedDate }
    public var deviceVerification: Data { unsafePayloadValue.deviceVerification }
    public var deviceVerificationNonce: UUID { unsafePayloadValue.deviceVerificationNonce }
}

extension VerificationResult where SignedType == Product.SubscriptionInfo.RenewalInfo {
    public var jwsRepresentation: String { unsafePayloadValue.jws }
    public var headerData: Data { unsafePayloadValue.parts.header }
    public var payloadData: Data { unsafePayloadValue.parts.payload }
    public var signatureData: Data { unsafePayloadValue.parts.signature }
    /// What the signature covers: the header and payload as they stand in the token.
    public var signedData: Data { VerificationResult.signedPart(of: jwsRepresentation) }
    public var signedDate: Date { unsafePayloadValue.signedDate }
}

extension VerificationResult where SignedType == AppTransaction {
    public var jwsRepresentation: String { unsafePayloadValue.jws }
    public var headerData: Data { unsafePayloadValue.parts.header }
    public var payloadData: Data { unsafePayloadValue.parts.payload }
    public var signatureData: Data { unsafePayloadValue.parts.signature }
    /// What the signature covers: the header and payload as they stand in the token.
    public var signedData: Data { VerificationResult.signedPart(of: jwsRepresentation) }
    public var signedDate: Date { unsafePayloadValue.signedDate }
}

extension VerificationResult {
    /// A token's header and payload with the dot between them, as they stand: what its signature covers.
    static func signedPart(of jws: String) -> Data {
        Data(jws.split(separator: ".", omittingEmptySubsequences: false).prefix(2).joined(separator: ".").utf8)
    }
}
