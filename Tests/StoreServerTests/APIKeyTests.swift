import Foundation
import StoreEngine
import StoreSigning
import Testing
@testable import StoreServer

@Suite struct APIKeyTests {
    static func freshDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "storefront-api-key-" + UUID().uuidString
        try StateDirectory.create(path)
        return path
    }

    static func mode(_ path: String) -> mode_t {
        var info = stat()
        stat(path, &info)
        return info.st_mode & 0o777
    }

    @Test func aKeyIsCreatedOncePerStateDirectoryAndReused() throws {
        let directory = try Self.freshDirectory()
        let first = try APIKey.load(stateDirectory: directory)
        let second = try APIKey.load(stateDirectory: directory)
        #expect(first.keyID == second.keyID && first.issuerID == second.issuerID)
        #expect(first.privateKey.publicKey.derRepresentation == second.privateKey.publicKey.derRepresentation)
        #expect(first.privateKeyPath == directory + "/api-key.p8")
        #expect(Self.mode(directory + "/api-key.p8") == 0o600)
        let pem = try String(contentsOfFile: directory + "/api-key.p8", encoding: .utf8)
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))  // PKCS#8, like Apple's .p8
        let info = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory + "/api-key.json"))) as? [String: String]
        #expect(info == ["keyId": first.keyID, "issuerId": first.issuerID])
        #expect(try APIKey.load(stateDirectory: try Self.freshDirectory()).keyID != first.keyID)
    }

    @Test func idsHaveAppStoreConnectsShapes() throws {
        let key = try APIKey.generate()
        #expect(key.keyID.count == 10 && key.keyID.allSatisfy { $0.isUppercase || $0.isNumber } && key.keyID.allSatisfy(\.isASCII))
        #expect(UUID(uuidString: key.issuerID) != nil && key.issuerID == key.issuerID.lowercased())
    }

    @Test func aMissingInfoFileIsRewrittenWithTheSameIDs() throws {
        let directory = try Self.freshDirectory()
        let first = try APIKey.load(stateDirectory: directory)
        try FileManager.default.removeItem(atPath: directory + "/api-key.json")
        let again = try APIKey.load(stateDirectory: directory)
        #expect(again.keyID == first.keyID && again.issuerID == first.issuerID)
    }

    @Test func editedIDsAreKeptWhenWellFormed() throws {
        let directory = try Self.freshDirectory()
        _ = try APIKey.load(stateDirectory: directory)
        try Data(#"{"keyId": "2X9R4HXF34", "issuerId": "57246542-96fe-1a63-e053-0824d011072a"}"#.utf8).write(to: URL(fileURLWithPath: directory + "/api-key.json"))
        let key = try APIKey.load(stateDirectory: directory)
        #expect(key.keyID == "2X9R4HXF34" && key.issuerID == "57246542-96fe-1a63-e053-0824d011072a")
    }

    @Test(arguments: [
        (#"{"keyId": "abc", "issuerId": "57246542-96fe-1a63-e053-0824d011072a"}"#, "keyId must be 10 uppercase letters or digits"),
        (#"{"keyId": "2X9R4HXF34", "issuerId": "nope"}"#, "issuerId must be a UUID"),
        ("{not json", "is not a JSON object with keyId and issuerId"),
    ])
    func aDamagedInfoFileIsAnErrorNamingItAndTheField(json: String, message: String) throws {
        let directory = try Self.freshDirectory()
        _ = try APIKey.load(stateDirectory: directory)
        let path = directory + "/api-key.json"
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        #expect { try APIKey.load(stateDirectory: directory) } throws: { error in
            "\(error)".contains(path) && "\(error)".contains(message)
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == json)  // never overwritten
    }

    @Test(arguments: ["", "garbage", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"])
    func aDamagedKeyFileIsAnErrorNamingItAndIsNeverOverwritten(contents: String) throws {
        let directory = try Self.freshDirectory()
        let path = directory + "/api-key.p8"
        _ = FileManager.default.createFile(atPath: path, contents: Data(contents.utf8), attributes: [.posixPermissions: 0o600])
        #expect { try APIKey.load(stateDirectory: directory) } throws: { error in
            "\(error)".contains(path) && "\(error)".contains("not an ES256 (P-256) private key") && "\(error)".contains("put the original file back")
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == contents)
    }

    @Test func aKeyOfAnotherCurveIsRefused() throws {
        let directory = try Self.freshDirectory()
        let path = directory + "/api-key.p8"
        // A P-384 key in PKCS#8 (ES384's curve, not the ES256 App Store Connect issues).
        let p384 = """
        -----BEGIN PRIVATE KEY-----
        MIG2AgEAMBAGByqGSM49AgEGBSuBBAAiBIGeMIGbAgEBBDBCpm2fk7QJvkC1XBsb
        eb7+ocr1K0PDs0siC0oUhVeKzsEr/jXgBmgCnSaQUI4kVkGhZANiAAQDhUxZlP/5
        gHbaWSlPyFxFNuwwWbub9AuN+yUBoAUP8Dqzc1dYk9yMOboDaZGx+tNcoFXhne/h
        6W/6h/SKVghPhRrRu33pM/rBOAbV+rJVucN8W/jC7NeMGJ5zHx2ywpA=
        -----END PRIVATE KEY-----

        """
        _ = FileManager.default.createFile(atPath: path, contents: Data(p384.utf8), attributes: [.posixPermissions: 0o600])
        #expect { try APIKey.load(stateDirectory: directory) } throws: { error in
            "\(error)".contains(path) && "\(error)".contains("not a P-256")
        }
    }

    @Test func aKeyFileOthersMayReadIsRefused() throws {
        let directory = try Self.freshDirectory()
        _ = try APIKey.load(stateDirectory: directory)
        let path = directory + "/api-key.p8"
        chmod(path, 0o644)
        #expect { try APIKey.load(stateDirectory: directory) } throws: { error in
            "\(error)".contains(path) && "\(error)".contains("chmod 600")
        }
    }

    @Test func concurrentFirstUsesAgreeOnOneKey() async throws {
        let directory = try Self.freshDirectory()
        let ids = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<8 { group.addTask { try APIKey.load(stateDirectory: directory).keyID } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(ids.count == 1)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix("api-key") }
        #expect(Set(leftovers) == ["api-key.p8", "api-key.json"])
    }
}
