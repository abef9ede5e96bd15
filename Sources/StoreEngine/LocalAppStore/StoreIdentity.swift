import Foundation
import StoreSigning

/// The local store's signing identity, shaped like the App Store's: a root CA (the trust anchor a
/// backend configures, what `storefront cert` prints) → an intermediate CA → a P-256 leaf that signs,
/// with Apple's marker OIDs, so Apple's own `SignedDataVerifier` accepts the tokens in `Sandbox` and
/// `Production`. Every certificate is valid from 1970 to the end of 9999, the last instant X.509 can
/// state, so no store time the store can reach ever finds it expired. Only the leaf's key is kept: the
/// root and intermediate keys are discarded once they have signed.
public struct StoreIdentity: Sendable {
    /// The leaf's key, which signs every token.
    public let key: SigningKey
    /// Leaf, intermediate, root: the token header's `x5c`.
    public let chain: [Certificate]
    public let signer: JWSSigner

    /// The root: the one certificate a backend trusts.
    public var certificate: Certificate { chain[2] }

    public static let commonName = "Storefront Local Testing"
    public static let organization = "Storefront"
    public static let keyID = "Storefront_Local_Key"
    /// 1970-01-01 to 9999-12-31 23:59:59 UTC.
    public static let validity = Date(timeIntervalSince1970: 0)...Date(timeIntervalSince1970: 253_402_300_799)

    public init(key: SigningKey, chain: [Certificate]) throws {
        guard chain.count == 3 else { throw StateError("a store identity is a leaf, an intermediate and a root, not \(chain.count) certificates") }
        self.key = key
        self.chain = chain
        signer = try JWSSigner(key: key, chain: chain, keyID: Self.keyID)
    }

    /// A fresh identity kept only in memory.
    public static func ephemeral() throws -> StoreIdentity {
        let rootKey = try SigningKey.generate()
        let root = try Certificate.issue(subject: .init(commonName: commonName, organization: organization), key: rootKey.publicKey,
                                         role: .root, issuer: nil, signedBy: rootKey,
                                         notBefore: validity.lowerBound, notAfter: validity.upperBound)
        return try issue(under: root, rootKey: rootKey)
    }

    /// A new intermediate and leaf under `root`.
    static func issue(under root: Certificate, rootKey: SigningKey) throws -> StoreIdentity {
        let markers = CertificateMarkers.appleAppStore
        let intermediateKey = try SigningKey.generate(), leafKey = try SigningKey.generate()
        let intermediate = try Certificate.issue(
            subject: .init(commonName: commonName + " Intermediate CA", organization: organization), key: intermediateKey.publicKey,
            role: .intermediate(marker: markers.intermediateOID), issuer: root, signedBy: rootKey,
            notBefore: validity.lowerBound, notAfter: validity.upperBound)
        let leaf = try Certificate.issue(
            subject: .init(commonName: commonName + " Signing", organization: organization), key: leafKey.publicKey,
            role: .leaf(marker: markers.leafOID), issuer: intermediate, signedBy: intermediateKey,
            notBefore: validity.lowerBound, notAfter: validity.upperBound)
        return try StoreIdentity(key: leafKey, chain: [leaf, intermediate, root])
    }

    /// An identity from before the App Store chain (one self-signed certificate, valid to 2099) becomes the
    /// root of a new chain: re-issued with the same name and key and a validity to 9999, so a backend that
    /// trusts the old certificate still verifies the new tokens, as does one that trusts the new root.
    static func migrating(key: SigningKey, certificate old: Certificate) throws -> StoreIdentity {
        let root = try Certificate.issue(subject: .init(commonName: old.subjectCommonName ?? commonName, organization: organization),
                                         key: key.publicKey, role: .root, issuer: nil, signedBy: key,
                                         notBefore: validity.lowerBound, notAfter: validity.upperBound)
        return try issue(under: root, rootKey: key)
    }

    /// The `signing.pem` text: the leaf's private key, then leaf, intermediate and root.
    var pemRepresentation: String { key.pemRepresentation + chain.map(\.pemRepresentation).joined() }

    /// Reads an identity: the current form, or the old one-certificate form (migrated, not yet saved).
    static func parse(_ pem: String, path: String) throws -> (identity: StoreIdentity, migrated: Bool) {
        do {
            let key = try SigningKey(pem: pem)
            let certificates = try Certificate.all(pem: pem)
            if certificates.count == 1, certificates[0].isSelfSigned,
               certificates[0].publicKey?.derRepresentation == key.publicKey.derRepresentation {
                return (try migrating(key: key, certificate: certificates[0]), true)
            }
            return (try StoreIdentity(key: key, chain: certificates), false)
        } catch {
            throw StateError("\(path) is not a Storefront signing identity (\(error)): put the original file back, or move the state directory aside to start a new store")
        }
    }

    /// Loads `signing.pem` from `directory`, creating it on first use. It is never silently replaced:
    /// a directory whose ledger exists without it is an error, and so is a key file others can read.
    /// An old one-certificate identity is migrated in place. A lock on the directory makes concurrent
    /// first launches (or migrations) agree on one identity.
    public static func load(directory: String) throws -> StoreIdentity {
        let path = directory + "/signing.pem"
        return try StateDirectory.withLock(directory) {
            // The ledger is created after the identity, so a ledger seen first proves the identity existed.
            let ledgerExists = StateDirectory.nonEmptyFile(directory + "/ledger.sqlite")
            if let pem = try StateDirectory.readPrivate(path) {
                let (identity, migrated) = try parse(pem, path: path)
                if migrated { try StateDirectory.replacePrivate(Data(identity.pemRepresentation.utf8), at: path) }
                return identity
            }
            if ledgerExists {
                throw StateError("\(path) is missing, but \(directory)/ledger.sqlite holds transactions signed with it: restore signing.pem from a backup to keep them verifiable, or move the state directory aside to start a new store")
            }
            let fresh = try ephemeral()
            try StateDirectory.replacePrivate(Data(fresh.pemRepresentation.utf8), at: path)
            return fresh
        }
    }
}

/// A state directory that cannot be used as it is; says what to do.
public struct StateError: Error, Equatable, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
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

    /// The catalog a state directory was made with, kept in it, so the commands on the saved store
    /// (`notifications`, `export`, `serve`) need no `--catalog`. Best effort: without it they ask for one.
    public static func remember(catalog catalogPath: String, in directory: String) {
        let absolute = URL(fileURLWithPath: catalogPath).standardizedFileURL.path
        guard rememberedCatalog(in: directory) != absolute else { return }
        try? Data((absolute + "\n").utf8).write(to: URL(fileURLWithPath: directory + "/catalog-path"), options: .atomic)
    }

    public static func rememberedCatalog(in directory: String) -> String? {
        guard let text = try? String(contentsOfFile: directory + "/catalog-path", encoding: .utf8) else { return nil }
        let path = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return path.isEmpty ? nil : path
    }

    /// Creates a missing directory (and parents) owner-only. An existing one is used as it is, never
    /// chmodded (a shared `/tmp` must stay shared), and refused when others could write to it or it
    /// belongs to another user: they could replace the key or the ledger.
    public static func create(_ path: String) throws {
        guard !path.isEmpty else { throw StateError("the state directory path is empty: give --state a directory") }
        var info = stat()
        if stat(path, &info) != 0 {
            guard errno == ENOENT else { throw StateError("\(path): cannot use it as the state directory (\(String(cString: strerror(errno))))") }
            do {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw StateError("\(path): cannot create the state directory (\(reason(error))): choose a directory you may write to with --state")
            }
            guard stat(path, &info) == 0 else { throw StateError("\(path): cannot create the state directory") }
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw StateError("\(path) is a file, not a directory: give --state a directory (it is created when missing)")
        }
        try checkOwner(info, path, what: "state directory")
        if info.st_mode & 0o022 != 0 {
            throw StateError("\(path) is writable by other users (mode \(mode(info))), so they could replace the store's key or ledger: use a private directory (mkdir -m 700 DIR) with --state, or chmod go-w \(path)")
        }
        guard access(path, R_OK | W_OK | X_OK) == 0 else {
            if errno == EROFS {
                throw StateError("\(path): the state directory is on a read-only file system: remount it read-write, or choose another with --state")
            }
            throw StateError("\(path): the state directory is not writable by you (mode \(mode(info))): choose another with --state")
        }
    }

    static func checkOwner(_ info: stat, _ path: String, what: String) throws {
        guard info.st_uid == geteuid() else {
            throw StateError("\(path): the \(what) belongs to another user (uid \(info.st_uid)): use a state directory of your own with --state")
        }
    }

    static func mode(_ info: stat) -> String { "0" + String(info.st_mode & 0o7777, radix: 8) }

    private static func reason(_ error: Error) -> String {
        if let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return (error as NSError).localizedDescription
    }

    /// Runs `body` holding an exclusive lock on the directory (flock), across processes.
    static func withLock<T>(_ directory: String, _ body: () throws -> T) throws -> T {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw StateError("\(directory): cannot open the state directory (\(String(cString: strerror(errno))))") }
        defer { close(fd) }  // closing releases the lock
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else { throw StateError("\(directory): cannot lock the state directory (\(String(cString: strerror(errno))))") }
        }
        return try body()
    }

    static func nonEmptyFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_size > 0
    }

    /// The text of a private file, nil when it does not exist. Refused when others may read or write it.
    static func readPrivate(_ path: String) throws -> String? {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            guard errno == ENOENT else { throw StateError("\(path): cannot read (\(String(cString: strerror(errno))))") }
            return nil
        }
        guard info.st_mode & S_IFMT == S_IFREG else { throw StateError("\(path) is not a regular file: move it aside") }
        try checkOwner(info, path, what: "key file")
        if info.st_mode & 0o077 != 0 {
            throw StateError("\(path) holds the store's private key but other users may read or write it (mode \(mode(info))): if only you had access, chmod 600 \(path); otherwise the key may be known, so move the state directory aside to start a new store")
        }
        guard let data = FileManager.default.contents(atPath: path) else { throw StateError("\(path): cannot read") }
        return String(decoding: data, as: UTF8.self)
    }

    /// Writes an owner-only file atomically: a private temporary file renamed over `path`.
    static func replacePrivate(_ data: Data, at path: String) throws {
        let temporary = path + ".\(UUID().uuidString)"
        try writePrivate(data, to: temporary)
        guard rename(temporary, path) == 0 else {
            unlink(temporary)
            throw StateError("\(path): cannot write (\(String(cString: strerror(errno))))")
        }
    }

    static func writePrivate(_ data: Data, to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw StateError("\(path): cannot write")
        }
    }

    /// Makes the store's existing database files owner-only (SQLite creates them with the umask's mode).
    static func restrictFiles(in directory: String, names: [String]) {
        for name in names { chmod(directory + "/" + name, 0o600) }
    }
}
