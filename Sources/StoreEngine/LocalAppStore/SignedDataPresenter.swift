import Foundation
import StoreCore
import StoreSigning

/// Presenting signed data: signing what the store hands out, breaking it as the tester's injected
/// failures ask, and keeping what was signed or read so that a refresh does neither again.
struct SignedDataPresenter {
    private let signer: JWSSigner
    /// Signers whose header names a simulated verification error, made when first needed.
    private var simulatingSigners: [VerificationError: JWSSigner] = [:]
    /// Renewal info as last signed, by original transaction (see `signedRenewalInfo`).
    private var signedRenewals: [Int64: SignedRenewal] = [:]
    /// The tokens last read, and where the ledger stood then (see `tokens`).
    private var tokensRead: (stamp: ChangeStamp, tokens: [Int64: String])?

    init(signer: JWSSigner) { self.signer = signer }

    func sign(_ json: JSONValue) throws -> String {
        try signer.sign(payload: Data(json.compact.utf8))
    }

    /// A token as the store makes it now: while invalid signatures are on, with a broken signature,
    /// kept for good. (Its 11th character changes: `present` changes the first, so it cannot mend it.)
    static func asSigned(_ jws: String, _ injected: FailureInjection) -> String {
        guard injected.invalidSignatures, let dot = jws.lastIndex(of: "."),
              let spot = jws.index(dot, offsetBy: 11, limitedBy: jws.index(before: jws.endIndex)) else { return jws }
        return jws[..<spot] + (jws[spot] == "A" ? "B" : "A") + jws[jws.index(after: spot)...]
    }

    /// What the app receives: the signed data, or, while a verification error is simulated, the same
    /// payload signed with a header naming that error (`VerificationError.simulationHeader`), so the app
    /// gets exactly that error with the transaction itself, which it can still finish, as in StoreKit.
    mutating func present(_ jws: String, _ injected: FailureInjection) -> String {
        guard let failure = injected.verificationFailure else { return jws }
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Base64URL.decode(String(parts[1])) else { return jws }
        if simulatingSigners[failure] == nil {
            simulatingSigners[failure] = try? JWSSigner(key: signer.key, chain: signer.chain, keyID: signer.keyID,
                                                        header: [VerificationError.simulationHeader: failure.rawValue])
        }
        return (try? simulatingSigners[failure]?.sign(payload: Data(payload))) ?? jws
    }

    /// The subscription's renewal info (as `make` builds it), signed again only when what it says has
    /// changed: signing every subscription's at every refresh was most of a refresh with many
    /// subscriptions. Its `signedDate` says when it was signed, as with any signed data handed out again.
    /// What it says follows from the record, the storefront and the environment alone: while they are
    /// the same, it is not even built again (building a thousand was a fifth of a refresh).
    mutating func signedRenewalInfo(_ record: SubscriptionRecord, storefront: Storefront, environment: StoreEnvironment,
                                    make: () -> RenewalInfoPayload) throws -> String {
        let signed = signedRenewals[record.originalID]
        if let signed, signed.record == record, signed.storefront == storefront, signed.environment == environment {
            return signed.jws
        }
        var info = make()
        if let signed {
            let now = info.signedDate
            info.signedDate = signed.info.signedDate
            if info == signed.info {
                signedRenewals[record.originalID] = SignedRenewal(info, signed.jws, record, storefront, environment)
                return signed.jws
            }
            info.signedDate = now
        }
        let jws = try sign(info.json)
        signedRenewals[record.originalID] = SignedRenewal(info, jws, record, storefront, environment)
        return jws
    }

    /// A renewal info as signed, and what it was made from. A class: looking one up for each of a
    /// thousand subscriptions at every refresh copied every field of a struct.
    final class SignedRenewal {
        let info: RenewalInfoPayload
        let jws: String
        let record: SubscriptionRecord
        let storefront: Storefront
        let environment: StoreEnvironment

        init(_ info: RenewalInfoPayload, _ jws: String, _ record: SubscriptionRecord, _ storefront: Storefront, _ environment: StoreEnvironment) {
            (self.info, self.jws, self.record, self.storefront, self.environment) = (info, jws, record, storefront, environment)
        }
    }

    /// The tokens of transactions `ids` (as `read` reads them from the ledger), read only where the
    /// ledger moved since they were last read: a refresh reads the subscriptions' tokens for
    /// entitlements and again for statuses, and reading them twice was a fifth of it. While the stamp
    /// stands still, no row changed; `stamp` nil: the ledger cannot say, so every token is read.
    mutating func tokens(_ ids: [Int64], at stamp: ChangeStamp?, read: ([Int64]) throws -> [Int64: String]) rethrows -> [Int64: String] {
        guard let stamp else { return try read(ids) }
        var tokens = tokensRead?.stamp == stamp ? tokensRead!.tokens : [:]
        let unread = ids.filter { tokens[$0] == nil }
        if !unread.isEmpty { tokens.merge(try read(unread)) { _, read in read } }
        tokensRead = (stamp, tokens)
        return tokens
    }
}
