import Foundation
import StoreCore

/// Where the repository's files and the binaries the tests drive are.
public enum Repo {
    /// Three levels up from Tests/Support/Repo.swift (CI clones the repository elsewhere, with shared/ beside it).
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// The fixtures beside the repository: <repo>/../shared/fixtures (Apple's tokens, .storekit files).
    public static let sharedFixtures = root.deletingLastPathComponent().appendingPathComponent("shared/fixtures")
    public static let catalogPath = root.appendingPathComponent("catalog.json").path
    public static let catalog = try! CatalogLoader.load(path: catalogPath)

    /// The bundled catalog without the simulated network delay, for tests that time or count work.
    public static var instantCatalog: Catalog {
        var catalog = catalog
        catalog.settings.networkDelay = 0
        return catalog
    }

    /// The bundled catalog as the store tests buy from it: no network delay, no billing grace period.
    public static var testCatalog: Catalog {
        var catalog = instantCatalog
        catalog.settings.gracePeriod = false
        return catalog
    }

    /// Where the running test bundle was built: the binaries beside it were built by the same
    /// command, in the same configuration and with the same sanitizer (not whatever `.build/debug` last held).
    public static let products = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
                                     ?? CommandLine.arguments[0]).deletingLastPathComponent().path
    public static let storefrontBinary = products + "/storefront"
    /// The crash tests' app (Tests/CrashWorker).
    public static let crashWorkerBinary = products + "/storefront-crash-worker"
}
