import Foundation
import StoreCore
import StoreSigning

/// The team's In-App Purchase keys, and the signatures its server makes with them: promotional
/// offers (V2 JWS and the legacy signature) and introductory-offer eligibility, checked at purchase
/// as the App Store checks them (see `DeveloperSignature`).
extension LocalAppStore {
    /// Registers one of the team's keys by its ID: only the public half of the `.p8` is kept, in the
    /// ledger, so `serve`, the storefront and scenarios on the state all accept what it signs.
    @discardableResult
    public func registerInAppPurchaseKey(keyID: String, privateKeyPEM: String, issuerID: String?) throws -> InAppPurchaseKey {
        guard keyID.count == 10, keyID.allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber) }) else {
            throw TestControlError("\(keyID): a key ID is 10 upper-case letters and digits, as App Store Connect shows it")
        }
        if let issuerID, UUID(uuidString: issuerID) == nil { throw TestControlError("\(issuerID): an issuer ID is a UUID") }
        let publicKey: PublicKey
        do { publicKey = try SigningKey(pem: privateKeyPEM).publicKey } catch {
            throw TestControlError("key \(keyID): not a P-256 private key in PEM (the .p8 App Store Connect lets you download): \(error)")
        }
        var record: [(key: String, value: JSONValue)] = [(key: "publicKey", value: .string(publicKey.derRepresentation.base64EncodedString()))]
        if let issuerID { record.append((key: "issuerId", value: .string(issuerID.lowercased()))) }
        try putServerRecord(.inAppPurchaseKey, id: keyID, value: JSONValue.object(record).compact)
        return InAppPurchaseKey(keyID: keyID, issuerID: issuerID?.lowercased(), publicKey: publicKey)
    }

    /// The keys registered, by key ID, and the `.storekit` file's offer key.
    public func inAppPurchaseKeys() -> [String: InAppPurchaseKey] {
        var keys: [String: InAppPurchaseKey] = [:]
        if let own = catalog.offerSigningKey, let key = try? SigningKey(pem: own.privateKeyPEM) {
            keys[own.keyID] = InAppPurchaseKey(keyID: own.keyID, issuerID: nil, publicKey: key.publicKey)
        }
        for (id, value) in serverRecords(.inAppPurchaseKey) {
            guard let json = try? JSONParser.parse(Data(value.utf8)), let der = json["publicKey"]?.stringValue.flatMap({ Data(base64Encoded: $0) }),
                  let key = try? PublicKey(der: der) else { continue }
            keys[id] = InAppPurchaseKey(keyID: id, issuerID: json["issuerId"]?.stringValue, publicKey: key)
        }
        return keys
    }

    /// A promotional offer's signature: this store's own (`signPromotionalOffer`, what a scenario's
    /// `buy … offer ID` passes), or the team's server's with a registered key. nil: it does not verify.
    func promotion(_ signature: String, productID: String, offerID: String, appAccountToken: UUID?) throws -> SignedPromotion? {
        if let own = try storeSignedPromotion(signature) { return own }
        let expected = DeveloperSignature.Expected(audience: .promotionalOffer, bundleID: catalog.app.bundleID, productID: productID,
                                                   offerID: offerID, appAccountToken: appAccountToken, now: time.now())
        guard let verified = try? DeveloperSignature.verify(signature, keys: inAppPurchaseKeys(), expecting: expected) else { return nil }
        return SignedPromotion(productID: productID, offerID: offerID, nonce: verified.nonce, isNonceUsed: try ledger.isNonceUsed(verified.nonce))
    }

    /// `.introductoryOfferEligibility(compactJWS:)`: whether the team's server lets this purchase have
    /// the introductory offer, for one of this customer's transactions; a signature that does not verify,
    /// is for another customer or was used before is `invalidOfferSignature`.
    func introductoryOfferEligibility(_ jws: String, productID: String) throws -> DeveloperSignature {
        let expected = DeveloperSignature.Expected(audience: .introductoryOfferEligibility, bundleID: catalog.app.bundleID,
                                                   productID: productID, offerID: nil, appAccountToken: nil, now: time.now())
        guard let verified = try? DeveloperSignature.verify(jws, keys: inAppPurchaseKeys(), expecting: expected),
              verified.allowIntroductoryOffer != nil, let customer = verified.transactionID.flatMap(Int64.init), identifiesCustomer(customer),
              try !ledger.isNonceUsed(verified.nonce) else {
            throw StoreFailure.purchase(.invalidOfferSignature)
        }
        return verified
    }
}

extension Ledger {
    func isNonceUsed(_ nonce: String) throws -> Bool {
        try !db.query("SELECT 1 FROM nonces WHERE nonce = ?", [.text(nonce)]).isEmpty
    }
}
