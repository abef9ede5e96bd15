import Foundation
import StoreSigning
import StorefrontTestSupport

enum Fixtures {
    static let directory = Repo.sharedFixtures.appendingPathComponent("jws")

    static func data(_ name: String) throws -> Data { try Data(contentsOf: directory.appendingPathComponent(name)) }
    static func text(_ name: String) throws -> String { String(decoding: try data(name), as: UTF8.self) }
    static func token(_ name: String) throws -> String { try text(name).trimmingCharacters(in: .whitespacesAndNewlines) }

    static func testCA() throws -> Certificate { try Certificate(der: data("testCA.der")) }
    static func appleRootG3() throws -> Certificate { try Certificate(pem: text("AppleRootCA-G3.pem")) }
    static func testLeafKey() throws -> SigningKey { try SigningKey(pem: text("testLeaf.key")) }
    static func testChain() throws -> [Certificate] {
        [try Certificate(pem: text("testLeaf.pem")), try Certificate(pem: text("testIntermediate.pem")), try testCA()]
    }
}

/// Pulls a token apart and puts it back together, to make broken copies.
struct TokenParts {
    var header: [String: Any]
    var payload: Data
    var signature: String

    init(_ token: String) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        header = try! JSONSerialization.jsonObject(with: Base64URL.decode(parts[0])!) as! [String: Any]
        payload = Base64URL.decode(parts[1])!
        signature = parts[2]
    }

    var token: String {
        let json = try! JSONSerialization.data(withJSONObject: header, options: [.withoutEscapingSlashes])
        return "\(Base64URL.encode(json)).\(Base64URL.encode(payload)).\(signature)"
    }

    var x5c: [String] { header["x5c"] as! [String] }
}

extension JWSVerification {
    var payloadObject: [String: Any]? {
        payload.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
    }
}
