import Foundation
import StoreCore
import StoreEngine

/// `storefront iap-key`: registers one of the team's In-App Purchase keys (its ID and the `.p8` App
/// Store Connect lets you download; only the public half is kept, in the ledger), so the store accepts
/// the promotional offers and introductory-offer eligibility a backend signs with it. Lists the keys.
enum InAppPurchaseKeyCommand {
    static func run(_ options: CommandLineOptions) async throws -> Int32 {
        let store = try await StoreContext.openSaved(options).store
        do {
            try await register(options, on: store)
        } catch {
            await store.shutdown()
            throw error
        }
        let keys = await store.inAppPurchaseKeys().values.sorted { $0.keyID < $1.keyID }
        let catalogs = store.catalog.offerSigningKey?.keyID  // the .storekit file's own, not registered
        await store.shutdown()
        if options.json {
            print(JSONValue.array(keys.map { key in
                .object([("keyId", .string(key.keyID)), ("issuerId", key.issuerID.map(JSONValue.string) ?? .null),
                         ("source", .string(key.keyID == catalogs ? "catalog" : "registered"))])
            }).serialized())
        } else {
            print(keys.isEmpty ? "No In-App Purchase keys registered (storefront iap-key KEY_ID FILE.p8 [--issuer UUID])."
                  : keys.map { $0.keyID == catalogs ? "\($0.keyID)  the catalog's Subscription Offers Key (subscriptionOffersKeyPair)"
                                                    : "\($0.keyID)  issuer \($0.issuerID ?? "(any)")" }.joined(separator: "\n"))
        }
        return 0
    }

    private static func register(_ options: CommandLineOptions, on store: LocalAppStore) async throws {
        if options.files.count == 2 {
            let (keyID, path) = (options.files[0], options.files[1])
            guard let pem = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw UsageError(description: "\(path): cannot read the key file (the .p8 App Store Connect lets you download)")
            }
            do {
                try await store.registerInAppPurchaseKey(keyID: keyID, privateKeyPEM: pem, issuerID: options.issuerID)
            } catch let error as TestControlError {
                throw UsageError(description: "\(path): \(error.description)")
            }
        }
    }
}
