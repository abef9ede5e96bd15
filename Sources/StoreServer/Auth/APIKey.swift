import Foundation
import StoreEngine
import StoreSigning

/// An App Store Server API key as App Store Connect issues one: an ES256 (P-256) private key in
/// PKCS#8 PEM (Apple's `.p8`), a key ID (10 uppercase letters and digits) and an issuer ID (a UUID).
/// A backend signs its bearer tokens with it; `APIAuthenticator` checks them.
public struct APIKey: Sendable {
    public let keyID: String
    public let issuerID: String
    public let privateKey: SigningKey
    /// The `.p8` file, for a key kept in a state directory.
    public let privateKeyPath: String?

    public static let keyFileName = "api-key.p8"
    public static let infoFileName = "api-key.json"

    /// A key with the IDs given, or those derived from the key (as a saved key gets them).
    public init(privateKey: SigningKey, keyID: String? = nil, issuerID: String? = nil, privateKeyPath: String? = nil) {
        let derived = Self.derivedIDs(of: privateKey.publicKey)
        self.privateKey = privateKey
        self.keyID = keyID ?? derived.keyID
        self.issuerID = issuerID ?? derived.issuerID
        self.privateKeyPath = privateKeyPath
    }

    /// A fresh key kept only in memory.
    public static func generate() throws -> APIKey { APIKey(privateKey: try SigningKey.generate()) }

    /// The key ID and issuer ID follow from the public key, so `api-key.p8` alone is the key: a
    /// missing `api-key.json` is rewritten with the same IDs, and two files can never disagree about
    /// which key an ID names (unless someone edits the IDs, which is allowed: a backend's config may
    /// already hold others).
    static func derivedIDs(of key: PublicKey) -> (keyID: String, issuerID: String) {
        let digest = key.fingerprint
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        let keyID = String(digest.prefix(10).map { alphabet[Int($0) % alphabet.count] })
        var bytes = Array(digest[10..<26])
        bytes[6] = bytes[6] & 0x0F | 0x40  // version 4
        bytes[8] = bytes[8] & 0x3F | 0x80  // RFC 4122 variant
        let uuid = UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                               bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
        return (keyID, uuid.uuidString.lowercased())
    }

    static func isKeyID(_ text: String) -> Bool {
        text.utf8.count == 10 && text.utf8.allSatisfy { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    static func isIssuerID(_ text: String) -> Bool { text.utf8.count == 36 && UUID(uuidString: text) != nil }

    // MARK: - Tokens

    /// A bearer token like those of Apple's App Store Server Library (`kid`, `typ` JWT; `iss`, `aud`,
    /// `bid`, `exp`), plus the `iat` Apple's documentation asks for: for tests and tools that call the server.
    public func token(bundleID: String, issuedAt: Date = Date(), lifetime: TimeInterval = 300) throws -> String {
        let header: [String: Any] = ["alg": "ES256", "kid": keyID, "typ": "JWT"]
        let claims: [String: Any] = ["iss": issuerID, "aud": APIAuthenticator.audience, "bid": bundleID,
                                     "iat": Int(issuedAt.timeIntervalSince1970), "exp": Int(issuedAt.timeIntervalSince1970 + lifetime)]
        return try Self.sign(header: header, claims: claims, with: privateKey)
    }

    /// `base64url(header).base64url(claims).base64url(ES256 r‖s)`.
    static func sign(header: [String: Any], claims: [String: Any], with key: SigningKey) throws -> String {
        func part(_ object: [String: Any]) throws -> String {
            Base64URL.encode(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
        }
        let signingInput = try part(header) + "." + part(claims)
        return signingInput + "." + Base64URL.encode(try key.sign(Data(signingInput.utf8)))
    }

    // MARK: - The state directory

    /// The key of a state directory: `api-key.p8` (mode 0600) and `api-key.json` (`keyId`, `issuerId`),
    /// created on first use and reused afterwards. A damaged file is an error naming it, never replaced.
    public static func load(stateDirectory directory: String) throws -> APIKey {
        let keyPath = directory + "/" + keyFileName, infoPath = directory + "/" + infoFileName
        let pem = try PrivateFile.read(keyPath, holding: "the App Store Server API private key")
            ?? PrivateFile.create(keyPath, contents: Data(try SigningKey.generate().pemRepresentation.utf8))
        let key: SigningKey
        do { key = try SigningKey(pem: pem) } catch {
            throw StateError("\(keyPath) is not an ES256 (P-256) private key in PEM (\(error)): put the original file back, or delete \(keyFileName) and \(infoFileName) to make a new API key (then give your backend the new key, key ID and issuer ID)")
        }
        let info = try readInfo(infoPath) ?? {
            let derived = derivedIDs(of: key.publicKey)
            let json = try JSONSerialization.data(withJSONObject: ["keyId": derived.keyID, "issuerId": derived.issuerID],
                                                  options: [.sortedKeys, .prettyPrinted])
            _ = try PrivateFile.create(infoPath, contents: json + Data("\n".utf8))
            return derived
        }()
        return APIKey(privateKey: key, keyID: info.keyID, issuerID: info.issuerID, privateKeyPath: keyPath)
    }

    private static func readInfo(_ path: String) throws -> (keyID: String, issuerID: String)? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let remedy = "fix it, or delete \(path) to get the IDs that follow from \(keyFileName)"
        guard let data = FileManager.default.contents(atPath: path),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw StateError("\(path) is not a JSON object with keyId and issuerId: \(remedy)")
        }
        guard let keyID = object["keyId"] as? String, isKeyID(keyID) else {
            throw StateError("\(path): keyId must be 10 uppercase letters or digits, as App Store Connect issues them, got \(object["keyId"].map { "\($0)" } ?? "nothing"): \(remedy)")
        }
        guard let issuerID = object["issuerId"] as? String, isIssuerID(issuerID) else {
            throw StateError("\(path): issuerId must be a UUID such as 57246542-96fe-1a63-e053-0824d011072a, got \(object["issuerId"].map { "\($0)" } ?? "nothing"): \(remedy)")
        }
        return (keyID, issuerID)
    }
}

/// Owner-only files that are created once and never replaced.
enum PrivateFile {
    /// The file's text, nil when it does not exist. Refused when others may read or write it.
    static func read(_ path: String, holding what: String) throws -> String? {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            guard errno == ENOENT else { throw StateError("\(path): cannot read (\(String(cString: strerror(errno))))") }
            return nil
        }
        guard info.st_mode & S_IFMT == S_IFREG else { throw StateError("\(path) is not a regular file: move it aside") }
        guard info.st_uid == geteuid() else {
            throw StateError("\(path) belongs to another user (uid \(info.st_uid)): use a state directory of your own with --state")
        }
        if info.st_mode & 0o077 != 0 {
            throw StateError("\(path) holds \(what) but other users may read or write it (mode 0\(String(info.st_mode & 0o777, radix: 8))): if only you had access, chmod 600 \(path); otherwise delete it to make a new one")
        }
        guard let data = FileManager.default.contents(atPath: path) else { throw StateError("\(path): cannot read") }
        return String(decoding: data, as: UTF8.self)
    }

    /// Writes `contents` to `path` (mode 0600) unless the file exists, atomically: a private temporary
    /// file is hard-linked into place, which fails rather than replaces. Returns what `path` then holds,
    /// so of two processes creating it at once, both use the winner's.
    static func create(_ path: String, contents: Data) throws -> String {
        let temporary = path + ".\(UUID().uuidString)"
        try writeNew(temporary, contents)
        defer { unlink(temporary) }
        guard link(temporary, path) == 0 else {
            let code = errno
            guard code == EEXIST, let existing = FileManager.default.contents(atPath: path) else {
                throw StateError("\(path): cannot write (\(String(cString: strerror(code))))")
            }
            return String(decoding: existing, as: UTF8.self)
        }
        return String(decoding: contents, as: UTF8.self)
    }

    /// A new file, owner-only from its first byte, on disk before it is linked anywhere.
    private static func writeNew(_ path: String, _ contents: Data) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StateError("\(path): cannot write (\(String(cString: strerror(errno)))): is the state directory writable?") }
        defer { close(fd) }
        let written = contents.withUnsafeBytes { bytes -> Bool in
            var offset = 0
            while offset < bytes.count {
                let count = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return false }
                offset += count
            }
            return true
        }
        guard written, fsync(fd) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(path)
            throw StateError("\(path): cannot write (\(reason))")
        }
    }
}
