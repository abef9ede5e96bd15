import Foundation
import StoreCore
import StoreEngine

/// `storefront export`: every transaction, the current renewal info and the AppTransaction as full JWS,
/// to feed a backend's own verifier (which trusts `storefront cert`).
enum ExportCommand {
    static func run(_ options: CommandLineOptions) async throws -> Int32 {
        let store = try await StoreContext.openSaved(options).store
        let export = try await store.exportSignedData()
        await store.shutdown()
        print(options.json ? export.json.serialized() : text(export))
        return 0
    }

    /// One token a line under `#` headings, so `grep -v '^#'` leaves only tokens.
    static func text(_ export: SignedDataExport) -> String {
        var lines = ["# transactions (\(export.transactions.count), oldest first)"] + export.transactions
        lines += ["# renewalInfo (\(export.renewalInfo.count))"] + export.renewalInfo
        lines += ["# appTransaction", export.appTransaction]
        return lines.joined(separator: "\n")
    }
}
