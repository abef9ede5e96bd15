import Foundation
import StoreCore
import StoreSigning

/// Checks a JWS signed by this store's own identity (promotional offer signatures).
struct SignatureCheck {
    let identity: StoreIdentity

    func verifiedPayload(_ jws: String) -> JSONValue? {
        let result = JWSVerifier(trustedRoots: [identity.certificate]).verify(jws, at: .now)
        guard result.isVerified, let data = result.payload else { return nil }
        return try? JSONParser.parse(data)
    }
}
