import Foundation
import StoreCore
import StoreSigning

/// A Retention Messaging message, as a backend uploaded it (Upload Message): what the cancel sheet shows.
public struct RetentionMessage: Sendable, Equatable {
    public var header: String
    public var body: String
    public var bullets: [String]
    /// The image's alt text: a terminal shows no image.
    public var imageAltText: String?

    public init(header: String, body: String, bullets: [String] = [], imageAltText: String? = nil) {
        (self.header, self.body, self.bullets, self.imageAltText) = (header, body, bullets, imageAltText)
    }

    init?(json: JSONValue) {
        guard let header = json["header"]?.stringValue, let body = json["body"]?.stringValue else { return nil }
        (self.header, self.body) = (header, body)
        bullets = json["bulletPoints"]?.arrayValue?.compactMap { $0["text"]?.stringValue } ?? []
        imageAltText = json["image"]?["altText"]?.stringValue
    }
}

/// What the cancel sheet offers before the customer cancels: the message, and what the backend
/// answered in real time (another product, or a promotional offer with its signature).
public struct RetentionOffer: Sendable, Equatable {
    public var message: RetentionMessage
    public var alternateProductID: String?
    /// The offer and its signature as the backend signed it (a JWS, or the legacy signature's JSON).
    public var promotionalOffer: PromotionalOfferChoice?
    /// Whether the backend answered (else the default message for the product and locale).
    public var fromBackend: Bool

    public init(message: RetentionMessage, alternateProductID: String? = nil, promotionalOffer: PromotionalOfferChoice? = nil, fromBackend: Bool) {
        (self.message, self.alternateProductID, self.promotionalOffer, self.fromBackend) = (message, alternateProductID, promotionalOffer, fromBackend)
    }
}

public struct PromotionalOfferChoice: Sendable, Equatable {
    public var offerID: String
    public var signature: String

    public init(offerID: String, signature: String) { (self.offerID, self.signature) = (offerID, signature) }
}

extension LocalAppStore {
    /// Before a cancel, as the App Store does: with a realtime URL set, the signed realtime request
    /// goes to the backend (`ask` posts it and gives back its JSON answer, nil when it failed or was
    /// slow) and its message, alternate product or promotional offer is shown; else, or when the answer
    /// is no use, the default message for the product in the customer's locale. nil: nothing to show.
    public func retentionOffer(group: String, ask: @Sendable (_ url: String, _ signedPayload: String) async -> JSONValue?) async -> RetentionOffer? {
        guard let record = activeSubscription(group: group) else { return nil }
        let locale = currentLocale.replacingOccurrences(of: "_", with: "-")
        if let url = serverRecord(.realtimeURL, id: ""),
           let signed = try? signedRealtimeRequest(originalTransactionID: record.originalID, locale: locale),
           let answer = await ask(url, signed), let offer = retentionOffer(answer: answer) {
            return offer
        }
        return defaultRetentionMessage(productID: record.productID, locale: locale).map {
            RetentionOffer(message: $0, alternateProductID: nil, promotionalOffer: nil, fromBackend: false)
        }
    }

    /// A backend's `RealtimeResponseBody`: a message, an alternate product or a promotional offer, each naming an uploaded message.
    func retentionOffer(answer: JSONValue) -> RetentionOffer? {
        let choice = answer["message"] ?? answer["alternateProduct"] ?? answer["promotionalOffer"]
        guard let id = choice?["messageIdentifier"]?.stringValue, let message = retentionMessage(id: id) else { return nil }
        var offer = RetentionOffer(message: message, alternateProductID: answer["alternateProduct"]?["productId"]?.stringValue,
                                   promotionalOffer: nil, fromBackend: true)
        if let promotional = answer["promotionalOffer"] { offer.promotionalOffer = Self.offerChoice(promotional) }
        return offer
    }

    /// The offer a `PromotionalOffer` answer names, with the signature the purchase passes on.
    static func offerChoice(_ answer: JSONValue) -> PromotionalOfferChoice? {
        if let jws = answer["promotionalOfferSignatureV2"]?.stringValue {
            let claims = jws.split(separator: ".").dropFirst().first.flatMap { Base64URL.decode(String($0)) }.flatMap { try? JSONParser.parse($0) }
            return claims?["offerIdentifier"]?.stringValue.map { PromotionalOfferChoice(offerID: $0, signature: jws) }
        }
        guard let v1 = answer["promotionalOfferSignatureV1"], let offerID = v1["offerIdentifier"]?.stringValue else { return nil }
        let legacy: JSONValue = ["keyIdentifier": v1["keyId"] ?? .null, "nonce": v1["nonce"] ?? .null, "timestamp": v1["timestamp"] ?? .null,
                                 "signature": v1["encodedSignature"] ?? .null]
        return PromotionalOfferChoice(offerID: offerID, signature: legacy.compact)
    }

    func retentionMessage(id: String) -> RetentionMessage? {
        serverRecord(.message, id: id.lowercased()).flatMap { try? JSONParser.parse(Data($0.utf8)) }.flatMap(RetentionMessage.init(json:))
    }

    /// The default message for `productID` in `locale` (`en-US`), else in its language.
    func defaultRetentionMessage(productID: String, locale: String) -> RetentionMessage? {
        let defaults = serverRecords(.defaultMessage).filter { $0.id.hasPrefix(productID + "/") }
        let language = locale.split(separator: "-").first.map(String.init) ?? locale
        let chosen = defaults.first { $0.id == productID + "/" + locale }
            ?? defaults.first { $0.id.dropFirst(productID.count + 1).split(separator: "-").first.map(String.init) == language }
        return chosen.flatMap { retentionMessage(id: $0.value) }
    }
}
