import Foundation
import StoreSigning

/// The local store's signing identity: a P-256 key and a self-signed certificate, like Xcode's
/// "StoreKit Testing in Xcode" certificate. Created on first use and kept in the state directory
/// (owner-only permissions), so a developer's backend can trust it once (`storefront cert`).
public struct StoreIdentity: Sendable {
    public let key: SigningKey
    public let certificate: Certificate
    public let signer: JWSSigner

    public static let commonName = "Storefront Local Testing"
    public static let keyID = "Storefront_Local_Key"

    public init(key: SigningKey, certificate: Certificate) throws {
        self.key = key
        self.certificate = certificate
        signer = try JWSSigner(key: key, chain: [certificate], keyID: Self.keyID)
    }

    /// A fresh identity kept only in memory.
    public static func ephemeral() throws -> StoreIdentity {
        let key = try SigningKey.generate()
        return try StoreIdentity(key: key, certificate: certificate(for: key))
    }

    /// Loads `signing.pem` (key and certificate) from `directory`, creating it on first use. Creation is
    /// atomic (a private temporary file hard-linked into place), so two first launches agree on one identity.
    public static func load(directory: String) throws -> StoreIdentity {
        let path = directory + "/signing.pem"
        if let identity = try read(path) { return identity }
        let fresh = try ephemeral()
        let temporary = path + ".\(UUID().uuidString)"
        try StateDirectory.writePrivate(Data((fresh.key.pemRepresentation + fresh.certificate.pemRepresentation).utf8), to: temporary)
        defer { unlink(temporary) }
        if link(temporary, path) == 0 { return fresh }
        guard errno == EEXIST, let winner = try read(path) else { throw TestControlError("cannot create \(path)") }
        return winner
    }

    private static func read(_ path: String) throws -> StoreIdentity? {
        guard let pem = FileManager.default.contents(atPath: path).flatMap({ String(data: $0, encoding: .utf8) }) else { return nil }
        return try StoreIdentity(key: SigningKey(pem: pem), certificate: Certificate(pem: pem))
    }

    static func certificate(for key: SigningKey) throws -> Certificate {
        try Certificate.selfSigned(key: key, commonName: commonName, organization: "Storefront",
                                   notBefore: Date(timeIntervalSince1970: 946_684_800), validFor: 100 * 365 * 86_400)
    }
}

/// Where a store keeps its state: `--state DIR`, else one directory per catalog under
/// `$XDG_STATE_HOME/storefront/` (or `~/.local/state/storefront/`).
public enum StateDirectory {
    public static func defaultPath(forCatalogAt catalogPath: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let base = environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/state"
        let absolute = URL(fileURLWithPath: catalogPath).standardizedFileURL.path
        let name = URL(fileURLWithPath: absolute).deletingPathExtension().lastPathComponent
            .filter { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
        var hash: UInt64 = 14_695_981_039_346_656_037 // FNV-1a: stable across runs, unlike Hasher
        for byte in absolute.utf8 { hash = (hash ^ UInt64(byte)) &* 1_099_511_628_211 }
        return "\(base)/storefront/\(name)-\(String(hash, radix: 16).prefix(8))"
    }

    /// Creates the directory (and parents) with owner-only permissions.
    public static func create(_ path: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: path)
    }

    static func writePrivate(_ data: Data, to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw TestControlError("cannot write \(path)")
        }
    }
}
