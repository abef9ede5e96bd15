import Foundation
import Testing
import StoreCore
@testable import StoreEngine
import StoreClient
import StoreSigning
import StorefrontTestSupport
import StoreVerification

/// A fresh, private temporary state directory (created).
func stateDirectory() throws -> String {
    let path = temporaryDirectory()
    try StateDirectory.create(path)
    return path
}

func mode(_ path: String) -> Int {
    var info = stat()
    return stat(path, &info) == 0 ? Int(info.st_mode & 0o7777) : -1
}

/// On PostgreSQL the identity lives in the ledger (see `PostgresLedgerTests`), not in `signing.pem`.
@Suite("The store's signing identity", .disabled(if: PostgresTestServer.isDefaultEngine, "signing.pem belongs to a state directory's SQLite ledger"))
struct StoreIdentityTests {
    @Test("the chain is shaped like the App Store's: root CA → intermediate (path length 0) → leaf, with Apple's markers")
    func chainShape() throws {
        let identity = try StoreIdentity.ephemeral()
        let (leaf, intermediate, root) = (identity.chain[0], identity.chain[1], identity.chain[2])
        #expect(identity.certificate == root && root.isSelfSigned)
        #expect(try TokenHeader(identity.signer.sign(payload: Data("{}".utf8))).x5c == identity.chain.map { $0.der.base64EncodedString() })
        let text = { (c: Certificate) in try openSSLText(c) }
        #expect(try text(root).contains("CA:TRUE") && text(root).contains("Certificate Sign, CRL Sign") && text(root).contains("Subject Key Identifier"))
        #expect(try text(intermediate).contains("CA:TRUE, pathlen:0") && text(intermediate).contains("Certificate Sign, CRL Sign"))
        #expect(try text(intermediate).contains("Authority Key Identifier") && text(intermediate).contains("Subject Key Identifier"))
        #expect(intermediate.hasExtension(oid: CertificateMarkers.appleAppStore.intermediateOID))
        #expect(try text(leaf).contains("CA:FALSE") && text(leaf).contains("Digital Signature") && !text(leaf).contains("Certificate Sign"))
        #expect(try text(leaf).contains("Authority Key Identifier") && leaf.hasExtension(oid: CertificateMarkers.appleAppStore.leafOID))
        #expect(leaf.publicKey?.derRepresentation == identity.key.publicKey.derRepresentation)
    }

    @Test("the identity stays valid at any store time X.509 can state: from 1970 to the end of 9999")
    func validForAnyStoreTime() throws {
        let identity = try StoreIdentity.ephemeral()
        for certificate in identity.chain {
            #expect(certificate.notBefore == StoreIdentity.validity.lowerBound && certificate.notAfter == StoreIdentity.validity.upperBound)
        }
        let verifier = JWSVerifier.appStore(trustedRoots: [identity.certificate])
        let token = try identity.signer.sign(payload: Data("{}".utf8))
        for year in [1971.0, 2099.5, 2200, 9999.9] {
            let date = Date(timeIntervalSince1970: (year - 1970) * 365.2425 * 86_400)
            #expect(verifier.verify(token, at: .date(date)).isVerified, "at \(year)")
        }
    }

    @Test("a purchase two centuries of store time later still verifies (the old certificate expired in 2099)")
    func purchaseFarInTheFuture() async throws {
        let h = try await Harness.make()
        try await h.store.advanceTime(by: Period(200, .year))
        #expect(await h.manager.purchase(ID.pro).transaction != nil)
        await h.close()
    }

    @Test("signing.pem is created owner-only in a new owner-only state directory, with the ledger and wallet owner-only")
    func newStatePermissions() async throws {
        let directory = temporaryDirectory() + "/nested/state"
        let h = try await Harness.make(directory: directory)
        _ = await h.manager.purchase(ID.coins)
        #expect(mode(directory) == 0o700)
        for file in ["signing.pem", "ledger.sqlite", "wallet.sqlite"] {
            #expect(mode(directory + "/" + file) == 0o600, "\(file): \(String(mode(directory + "/" + file), radix: 8))")
        }
        for file in ["ledger.sqlite-wal", "ledger.sqlite-shm", "wallet.sqlite-wal", "wallet.sqlite-shm"] {
            #expect([0o600, -1].contains(mode(directory + "/" + file)), "\(file): \(String(mode(directory + "/" + file), radix: 8))")
        }
        await h.close()
    }

    @Test("a state directory others can write to is refused, not chmodded; a shared /tmp stays 1777")
    func sharedDirectoryRefused() throws {
        let directory = try createdTemporaryDirectory()
        chmod(directory, 0o1777)
        #expect(throws: StateError.self) { try StateDirectory.create(directory) }
        do { try StateDirectory.create(directory) } catch { #expect("\(error)".contains("writable by other users") && "\(error)".contains(directory)) }
        #expect(mode(directory) == 0o1777)
        chmod(directory, 0o755)
        try StateDirectory.create(directory)  // readable by others is fine: the files inside are owner-only
        #expect(mode(directory) == 0o755)
    }

    @Test("a state directory or key file owned by another user is refused", .enabled(if: geteuid() == 0, "needs root to chown"))
    func otherOwnerRefused() throws {
        let directory = try stateDirectory()
        chown(directory, 65534, 65534)
        #expect(throws: StateError.self) { try StateDirectory.create(directory) }
        chown(directory, 0, 0)
        _ = try StoreIdentity.load(directory: directory)
        chown(directory + "/signing.pem", 65534, 65534)
        do { _ = try StoreIdentity.load(directory: directory); Issue.record("loaded a key owned by another user") } catch {
            #expect("\(error)".contains("belongs to another user"))
        }
    }

    @Test("a key file others may read or write is refused with what to do, and kept as it is")
    func looseKeyRefused() throws {
        let directory = try stateDirectory()
        _ = try StoreIdentity.load(directory: directory)
        for loose in [0o644, 0o660, 0o604] as [mode_t] {
            chmod(directory + "/signing.pem", loose)
            do { _ = try StoreIdentity.load(directory: directory); Issue.record("loaded a key with mode \(loose)") } catch {
                #expect("\(error)".contains("chmod 600 \(directory)/signing.pem"))
            }
            #expect(mode(directory + "/signing.pem") == Int(loose))
        }
    }

    @Test("--state naming a file, an empty path, or a path under a file gets a clear error")
    func badStatePaths() throws {
        let file = temporaryDirectory()
        FileManager.default.createFile(atPath: file, contents: Data("x".utf8))
        for (path, words) in [(file, "is a file, not a directory"), ("", "path is empty"), (file + "/state", "cannot")] {
            do { try StateDirectory.create(path); Issue.record("accepted \(path)") } catch {
                #expect("\(error)".contains(words) && (path.isEmpty || "\(error)".contains(path)), "\(error)")
            }
        }
    }

    @Test("an existing ledger without its signing.pem is an error that says how to recover; nothing is regenerated")
    func missingIdentityRefused() async throws {
        let directory = temporaryDirectory()
        let h = try await Harness.make(directory: directory)
        _ = await h.manager.purchase(ID.pro)
        await h.close()
        try FileManager.default.removeItem(atPath: directory + "/signing.pem")
        do { _ = try await Harness.make(directory: directory); Issue.record("opened a ledger without its identity") } catch {
            #expect("\(error)".contains("signing.pem is missing") && "\(error)".contains("restore signing.pem"))
        }
        #expect(!FileManager.default.fileExists(atPath: directory + "/signing.pem"))
    }

    @Test("a replaced signing.pem is refused: the ledger remembers the root that signed its transactions")
    func replacedIdentityRefused() async throws {
        let directory = temporaryDirectory()
        let h = try await Harness.make(directory: directory)
        _ = await h.manager.purchase(ID.pro)
        await h.close()
        let original = try Data(contentsOf: URL(fileURLWithPath: directory + "/signing.pem"))
        try StateDirectory.replacePrivate(Data(try StoreIdentity.ephemeral().pemRepresentation.utf8), at: directory + "/signing.pem")
        do { _ = try await Harness.make(directory: directory); Issue.record("opened a ledger with another store's key") } catch {
            #expect("\(error)".contains("different signing identity") && "\(error)".contains("put the original signing.pem back"))
        }
        try StateDirectory.replacePrivate(original, at: directory + "/signing.pem")
        let reopened = try await Harness.make(directory: directory)
        #expect(await reopened.entitled(ID.pro))
        await reopened.close()
    }

    @Test("concurrent first launches agree on one identity", arguments: [false, true])
    func concurrentFirstLaunches(legacy: Bool) async throws {
        let directory = try stateDirectory()
        if legacy { try LegacyState.write(to: directory) }
        let roots = try await withThrowingTaskGroup(of: [Data].self) { group in
            for _ in 0..<8 { group.addTask { try StoreIdentity.load(directory: directory).chain.map(\.der) } }
            return try await group.reduce(into: Set<[Data]>()) { $0.insert($1) }
        }
        #expect(roots.count == 1)
    }

    @Test("an old one-certificate state directory keeps working: its transactions still verify, against the old certificate too")
    func legacyMigration() async throws {
        let directory = try stateDirectory()
        let legacy = try LegacyState.write(to: directory, transactions: 3)
        let h = try await Harness.make(directory: directory)
        #expect(h.store.identity.certificate.keyFingerprint == legacy.certificate.keyFingerprint)
        let tokens = await h.store.allTransactions()
        #expect(tokens.count == 3)
        for root in [h.store.certificate, legacy.certificate] {
            let verifier = SignedDataVerifier(trustedRoots: [root])
            #expect(tokens.allSatisfy { verifier.transaction($0).isVerified }, "against \(root == legacy.certificate ? "the old" : "the new") root")
        }
        #expect(await h.entitled(ID.pro))
        #expect(try String(contentsOfFile: directory + "/signing.pem", encoding: .utf8).components(separatedBy: "BEGIN CERTIFICATE").count == 4)
        await h.close()
    }
}

/// A state directory as Storefront left it before the App Store chain: one self-signed certificate
/// valid 2000–2099, and ledger rows signed with it.
enum LegacyState {
    @discardableResult
    static func write(to directory: String, transactions: Int = 0) throws -> (key: SigningKey, certificate: Certificate) {
        let key = try SigningKey.generate()
        let certificate = try Certificate.selfSigned(key: key, commonName: StoreIdentity.commonName, organization: "Storefront",
                                                     notBefore: Date(timeIntervalSince1970: 946_684_800), validFor: 100 * 365 * 86_400)
        try StateDirectory.writePrivate(Data((key.pemRepresentation + certificate.pemRepresentation).utf8), to: directory + "/signing.pem")
        let signer = try JWSSigner(key: key, chain: [certificate], keyID: StoreIdentity.keyID)
        let ledger = try Ledger(path: directory + "/ledger.sqlite", tokenPrefix: signer.tokenPrefix)
        let now = Date()
        for index in 0..<transactions {
            let id = 2_000_000_001 + Int64(index)
            let payload = TransactionPayload(transactionID: id, originalTransactionID: id, bundleID: Repo.catalog.app.bundleID,
                                             productID: ID.pro, productType: .nonConsumable, purchaseDate: now, originalPurchaseDate: now,
                                             quantity: 1, signedDate: now, storefront: "USA", storefrontID: "143441", currency: "USD",
                                             priceMilliunits: 9990, appTransactionID: "700000000000000001")
            let text = payload.json.compact
            try ledger.insert(.init(payload: payload, status: .completed, finished: true, jws: try signer.sign(payload: Data(text.utf8))), payloadJSON: text)
        }
        return (key, certificate)
    }
}

/// The `x5c` of a token's header.
struct TokenHeader {
    let x5c: [String]
    init(_ token: String) throws {
        let header = try JSONParser.parse(try #require(Base64URL.decode(String(token.split(separator: ".")[0]))))
        x5c = header["x5c"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }
}

/// `openssl x509 -text` of a certificate, to read its extensions as a person would.
func openSSLText(_ certificate: Certificate) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
    process.arguments = ["x509", "-inform", "DER", "-noout", "-text"]
    let input = Pipe(), output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    try process.run()
    input.fileHandleForWriting.write(certificate.der)
    try input.fileHandleForWriting.close()
    let text = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: text, as: UTF8.self)
}
