import Foundation
import Testing
@testable import StorefrontApp

@Suite("storefront api-key")
struct APIKeyCommandTests {
    func state() -> String { NSTemporaryDirectory() + "storefront-api-key-cli-" + UUID().uuidString }

    /// Runs the built binary; its status, standard output and standard error.
    func storefront(_ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TmuxSession.binary)
        process.arguments = arguments
        let output = Pipe(), error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile(), err = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }

    @Test("--json prints keyId, issuerId and privateKeyPath, the same on every run")
    func json() throws {
        let directory = state()
        let first = try storefront(["api-key", "--state", directory, "--json"])
        #expect(first.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(first.output.utf8)) as? [String: String])
        #expect(object["privateKeyPath"] == directory + "/api-key.p8")
        let saved = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory + "/api-key.json"))) as? [String: String]
        #expect(saved == object.filter { $0.key != "privateKeyPath" })
        #expect(try storefront(["api-key", "--state", directory, "--json"]).output == first.output)
        let text = try storefront(["api-key", "--state", directory]).output
        #expect(text.contains("Key ID:      \(object["keyId"]!)") && text.contains("Issuer ID:   \(object["issuerId"]!)")
                && text.contains("Private key: \(directory)/api-key.p8"))
    }

    @Test("a damaged key file exits 2 naming it, and stays as it was")
    func damaged() throws {
        let directory = state()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        _ = FileManager.default.createFile(atPath: directory + "/api-key.p8", contents: Data("oops".utf8), attributes: [.posixPermissions: 0o600])
        let result = try storefront(["api-key", "--state", directory])
        #expect(result.status == 2)
        #expect(result.error.contains(directory + "/api-key.p8"))
        #expect(FileManager.default.contents(atPath: directory + "/api-key.p8") == Data("oops".utf8))
    }

    @Test("api-key takes no file and no --ephemeral")
    func usage() {
        #expect(throws: UsageError(description: "unexpected argument 'x'")) { try CommandLineParser.parse(["api-key", "x"]) }
        #expect(throws: UsageError.self) { try CommandLineParser.parse(["api-key", "--ephemeral"]) }
    }
}
