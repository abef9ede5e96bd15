import Foundation
import StoreClient
import StoreCore
import StoreEngine
import StoreSigning
import StoreVerification

/// `storefront verify` and `storefront cert`: signed data for a developer's backend.
enum SigningCommands {
    /// Decodes a JWS, prints its header and payload, and whether it verified (exit 0) or not (exit 1).
    static func verify(_ options: CommandLineOptions) throws -> Int32 {
        let source = options.files[0]
        let data = try read(source)
        let token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let root = try options.rootCertificate.map { try certificate(at: $0) } ?? localCertificate(options)
        // As strict as Apple's verifier, whatever the root: three certificates, X509_STRICT, the App Store's markers.
        let verifier = SignedDataVerifier(trustedRoots: [root])
        let time: VerificationTime = options.atSignedDate ? .signedDate : .now
        let result = verifier.json(token, at: time)
        if let payload = result.payload { print(payload.serialized()) }
        switch result {
        case .verified:
            print("verified: signature and certificate chain are valid (root: \(root.subjectCommonName ?? "?"))")
            return 0
        case .unverified(_, let error):
            print("unverified: \(error.rawValue): \(verifier.failureReason(token, at: time) ?? "the payload lacks required fields")")
            return 1
        }
    }

    static func cert(_ options: CommandLineOptions) throws -> Int32 {
        print(try identity(options).certificate.pemRepresentation, terminator: "")
        return 0
    }

    static func identity(_ options: CommandLineOptions) throws -> StoreIdentity {
        if let ledger = try StoreContext.ledger(options) { return try StoreIdentity.shared(ledger: ledger) }
        return try StoreIdentity.load(directory: try stateDirectory(options))
    }

    static func stateDirectory(_ options: CommandLineOptions) throws -> String {
        if let path = options.statePath { try StateDirectory.create(path); return path }
        if options.ephemeral { throw UsageError(description: "--ephemeral has no saved certificate: use --state DIR or the default state") }
        let path = StateDirectory.defaultPath(forCatalogAt: options.catalogPath ?? "catalog.json")
        try StateDirectory.create(path)
        return path
    }

    static func localCertificate(_ options: CommandLineOptions) throws -> Certificate {
        try identity(options).certificate
    }

    /// A PEM or DER certificate file.
    static func certificate(at path: String) throws -> Certificate {
        let data = try read(path)
        do {
            if let text = String(data: data, encoding: .utf8), text.contains("-----BEGIN") { return try Certificate(pem: text) }
            return try Certificate(der: data)
        } catch {
            throw UsageError(description: "\(path): not a PEM or DER certificate")
        }
    }

    /// A file, or standard input for `-`.
    static func read(_ path: String) throws -> Data {
        do { return try path == "-" ? FileContents.readStandardInput() : FileContents.read(path) }
        catch { throw UsageError(description: path == "-" ? "\(error)" : "\(path): \(error)") }
    }
}
