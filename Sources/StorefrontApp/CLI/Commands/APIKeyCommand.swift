import Foundation
import StoreCore
import StoreServer

/// `storefront api-key`: the App Store Server API key of the state directory (created on first use),
/// which a backend configures to call `storefront serve` with Apple's own client.
enum APIKeyCommand {
    static func run(_ options: CommandLineOptions) throws -> Int32 {
        let key = try APIKey.load(stateDirectory: try SigningCommands.stateDirectory(options))
        let path = key.privateKeyPath ?? ""
        if options.json {
            let object = JSONValue.object([("keyId", .string(key.keyID)), ("issuerId", .string(key.issuerID)), ("privateKeyPath", .string(path))])
            print(object.serialized())
        } else {
            print("Key ID:      \(key.keyID)\nIssuer ID:   \(key.issuerID)\nPrivate key: \(path)")
        }
        return 0
    }
}
