import Foundation
import StoreEngine
import StoreSigning
import Testing
@testable import StoreServer
import StorefrontTestSupport

/// Apple's App Store Server Library (Python) as the API client: the venv `.ci/run` creates
/// (`.venv-apple`, or `APPLE_LIBRARY_PYTHON`). Skipped without it, unless `CI=true`.
enum AppleAPIClient {
    static let script = Repo.root.appendingPathComponent("Tests/AppleLibrary/api_client.py").path
    static let python = AppleLibraryPython.path
    static let enabled = AppleLibraryPython.enabled

    /// Runs the helper in `mode` ("token" or "call") with `key`; returns its JSON answer.
    static func run(_ mode: String, key: APIKey, bundleID: String, baseURL: String = "") async throws -> [String: Any] {
        let python = try #require(python, "CI=true but Apple's library is missing: .ci/run creates .venv-apple (python3 -m venv .venv-apple && .venv-apple/bin/pip install app-store-server-library==3.1.2)")
        let keyPath = try #require(key.privateKeyPath)
        let input = try JSONSerialization.data(withJSONObject: ["keyPath": keyPath, "keyId": key.keyID, "issuerId": key.issuerID,
                                                               "bundleId": bundleID, "baseUrl": baseURL])
        let output = try await runPython(python, [script, mode], input: input)
        return try #require(try JSONSerialization.jsonObject(with: output) as? [String: Any], "the Python helper printed \(String(decoding: output, as: UTF8.self))")
    }
}

/// Runs a Python script with `input` on its standard input; its standard output. Off the cooperative
/// pool: the server under test needs it while Python waits for an answer.
func runPython(_ python: String, _ arguments: [String], input: Data) async throws -> Data {
    try await offPool { () throws -> Data in
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = arguments
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        stdin.fileHandleForWriting.write(input)
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return output
    }
}

@Suite(.tags(.appleLibrary), .notInFastLoop, .enabled(if: AppleAPIClient.enabled, "Apple's library is not installed (.venv-apple)"))
struct APIClientTests {
    static let bundle = "com.lumenquest.app"

    @Test func theAuthenticatorAcceptsTheTokenOfApplesClientMadeWithTheStoredKey() async throws {
        let directory = try APIKeyTests.freshDirectory()
        let key = try APIKey.load(stateDirectory: directory)
        let answer = try await AppleAPIClient.run("token", key: key, bundleID: Self.bundle)
        let token = try #require(answer["token"] as? String)
        let authenticator = APIAuthenticator(key: key, bundleID: Self.bundle)
        #expect(authenticator.check(token: token) == nil)
        #expect(APIAuthenticator(key: key, bundleID: "com.other.app").check(token: token)?.reason == .wrongBundle)
    }

    @Test func applesClientGetsThroughTheServerWithTheKeyAndGets401WithAnother() async throws {
        let key = try APIKey.load(stateDirectory: try APIKeyTests.freshDirectory())
        let authenticator = APIAuthenticator(key: key, bundleID: Self.bundle)
        let server = try HTTPServer.start(port: 0) { request in
            if let failure = authenticator.check(request) { return failure.response }
            guard request.method == "GET", request.path == "/inApps/v1/transactions/1" else { return .json(404, #"{"errorCode":4040010,"errorMessage":"Transaction id not found."}"#) }
            return .json(200, #"{"signedTransactionInfo":"signed-1"}"#)
        }
        let baseURL = "http://127.0.0.1:\(server.port)"
        let accepted = try await AppleAPIClient.run("call", key: key, bundleID: Self.bundle, baseURL: baseURL)
        #expect(accepted["status"] as? Int == 200)
        #expect(accepted["signedTransactionInfo"] as? String == "signed-1")

        let stranger = try APIKey.load(stateDirectory: try APIKeyTests.freshDirectory())
        let refused = try await AppleAPIClient.run("call", key: stranger, bundleID: Self.bundle, baseURL: baseURL)
        #expect(refused["status"] as? Int == 401)
        let wrongBundle = try await AppleAPIClient.run("call", key: key, bundleID: "com.other.app", baseURL: baseURL)
        #expect(wrongBundle["status"] as? Int == 401)
        await server.stop()
    }
}
