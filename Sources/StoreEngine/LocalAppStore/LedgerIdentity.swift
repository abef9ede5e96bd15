import Foundation
import StoreCore
import StoreSigning

extension Ledger {
    /// Ties the ledger to the identity that signs its transactions. The first open records the root's
    /// key; later opens refuse any other root, so a replaced `signing.pem` can never make the stored
    /// transactions unverifiable, or verify another store's. When the identity's chain changed under the
    /// same root (an old one-certificate identity migrated to the App Store's chain), the stored
    /// transactions are signed again with the new chain, in one write transaction, so they still verify.
    func bind(to identity: StoreIdentity, path: String) throws {
        let root = identity.certificate.keyFingerprint
        try db.transaction {
            let known = try meta("signingRootKey")
            // A byte flipped in the recorded key is damage to the ledger, not another identity.
            if let known, let check = try meta("signingRootKeyCheck"), check != Self.checksum(known) {
                throw LedgerError.damagedRow(path: self.path ?? ":memory:", table: "meta", key: "signingRootKey",
                                             detail: "the recorded signing root no longer matches its checksum")
            }
            if let known, known != root {
                // Not a fingerprint at all (a ledger from before the checksum): damaged, and signing.pem is not to blame.
                guard known.utf8.count == root.utf8.count, known.allSatisfy(\.isHexDigit) else {
                    throw LedgerError.damagedRow(path: self.path ?? ":memory:", table: "meta", key: "signingRootKey",
                                                 detail: "the recorded signing root key is not a key fingerprint")
                }
                throw StateError("\(path) holds a different signing identity (root key \(root.prefix(16))…) from the one that signed the transactions in its ledger (root key \(known.prefix(16))…): put the original signing.pem back, or move the state directory aside to start a new store")
            }
            if try meta("tokenPrefix") != tokenPrefix {
                for var row in try allRows() where row.jws != nil {
                    row.jws = try identity.signer.sign(payload: Data(row.payload.json.compact.utf8))
                    try update(row)
                }
                try setMeta("tokenPrefix", tokenPrefix)
            }
            try setMeta("signingRootKey", root)
            try setMeta("signingRootKeyCheck", Self.checksum(root))
        }
    }

    /// FNV-1a of the recorded root key: cheap, stable across runs, enough to tell damage from a replacement.
    static func checksum(_ text: String) -> String {
        var hash: UInt64 = 14_695_981_039_346_656_037
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 1_099_511_628_211 }
        return String(hash, radix: 16)
    }
}
