import Foundation
import StoreCore
import StoreSigning

/// One of the team's In-App Purchase keys (App Store Connect › Users and Access › In-App Purchase):
/// its ID, the issuer ID a JWS names, and the public half of the `.p8` the team's server signs with.
public struct InAppPurchaseKey: Sendable {
    public var keyID: String
    public var issuerID: String?
    public var publicKey: PublicKey

    public init(keyID: String, issuerID: String?, publicKey: PublicKey) {
        (self.keyID, self.issuerID, self.publicKey) = (keyID, issuerID, publicKey)
    }
}

/// A signature the developer's server made with one of the team's keys, as the app hands it to
/// StoreKit: a compact JWS (`PromotionalOfferV2SignatureCreator`, `IntroductoryOfferEligibilitySignatureCreator`),
/// or the legacy promotional offer signature's fields as JSON (`PromotionalOfferSignatureCreator`:
/// `{"keyIdentifier", "nonce", "timestamp", "signature"}`). Verified as the App Store does: a key the
/// team registered, the signature, the app, the product and offer, and at most 24 hours old.
struct DeveloperSignature: Equatable {
    enum Audience: String { case promotionalOffer = "promotional-offer", introductoryOfferEligibility = "introductory-offer-eligibility" }

    /// Why a signature is refused; StoreKit answers every one with `invalidOfferSignature`.
    enum Refusal: Error, Equatable {
        case malformed, unknownKey(String), forged, otherAudience, otherApp, otherProduct, otherOffer, stale
    }

    var nonce: String
    var allowIntroductoryOffer: Bool?
    var transactionID: String?

    /// How long a signature is good for (the legacy timestamp "keeps the offer active for 24 hours").
    static let lifetime: TimeInterval = 24 * 3600
    static let clockSkew: TimeInterval = 60

    struct Expected {
        var audience: Audience
        var bundleID: String
        var productID: String
        var offerID: String?
        var appAccountToken: UUID?
        var now: Date
    }

    static func verify(_ text: String, keys: [String: InAppPurchaseKey], expecting e: Expected) throws(Refusal) -> DeveloperSignature {
        if text.hasPrefix("{") { return try legacy(text, keys: keys, expecting: e) }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let header = Base64URL.decode(parts[0]).flatMap({ try? JSONParser.parse($0) }),
              let claims = Base64URL.decode(parts[1]).flatMap({ try? JSONParser.parse($0) }), let signature = Base64URL.decode(parts[2]),
              header["alg"]?.stringValue == "ES256", let keyID = header["kid"]?.stringValue else { throw .malformed }
        guard let key = keys[keyID] else { throw .unknownKey(keyID) }
        guard key.publicKey.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8)) else { throw .forged }
        guard claims["aud"]?.stringValue == e.audience.rawValue else { throw .otherAudience }
        guard claims["bid"]?.stringValue == e.bundleID, key.issuerID.map({ claims["iss"]?.stringValue == $0 }) ?? true else { throw .otherApp }
        guard claims["productId"]?.stringValue == e.productID else { throw .otherProduct }
        if let offerID = e.offerID, claims["offerIdentifier"]?.stringValue != offerID { throw .otherOffer }
        guard let issued = claims["iat"]?.doubleValue, let nonce = claims["nonce"]?.stringValue else { throw .malformed }
        try fresh(Date(timeIntervalSince1970: issued), now: e.now)
        return DeveloperSignature(nonce: nonce.lowercased(), allowIntroductoryOffer: claims["allowIntroductoryOffer"]?.boolValue,
                                  transactionID: claims["transactionId"]?.stringValue)
    }

    /// The legacy signature: ECDSA (SHA-256) over the fields joined by U+2063, base64 DER.
    private static func legacy(_ text: String, keys: [String: InAppPurchaseKey], expecting e: Expected) throws(Refusal) -> DeveloperSignature {
        guard e.audience == .promotionalOffer, let offerID = e.offerID, let fields = try? JSONParser.parse(Data(text.utf8)),
              let keyID = fields["keyIdentifier"]?.stringValue, let nonce = fields["nonce"]?.stringValue,
              let timestamp = fields["timestamp"].flatMap({ $0.stringValue ?? $0.numberText }), let milliseconds = Double(timestamp),
              let signature = fields["signature"]?.stringValue.flatMap({ Data(base64Encoded: $0) }) else { throw .malformed }
        guard let key = keys[keyID] else { throw .unknownKey(keyID) }
        let message = [e.bundleID, keyID, e.productID, offerID, e.appAccountToken?.uuidString.lowercased() ?? "", nonce.lowercased(), timestamp]
            .joined(separator: "\u{2063}")
        guard key.publicKey.isValidDERSignature(signature, for: Data(message.utf8)) else { throw .forged }
        try fresh(Date(timeIntervalSince1970: milliseconds / 1000), now: e.now)
        return DeveloperSignature(nonce: nonce.lowercased())
    }

    private static func fresh(_ signed: Date, now: Date) throws(Refusal) {
        guard signed.timeIntervalSince(now) <= clockSkew, now.timeIntervalSince(signed) <= lifetime else { throw .stale }
    }
}

extension JSONValue {
    /// A number as written (`1700000000000`), for fields signed as text.
    var numberText: String? { if case .number(let text) = self { text } else { nil } }
}
