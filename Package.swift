// swift-tools-version:6.0
import PackageDescription

// The domain (StoreCore, StoreSigning, StoreEngine, StoreClient) never imports the terminal;
// TerminalUI knows nothing of stores; StorefrontApp wires the two together.
let package = Package(
    name: "Storefront",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "storefront", targets: ["storefront"]),
        .executable(name: "storefront-bench", targets: ["storefront-bench"]),
        // Apple's StoreKit 2 API over Storefront's store, for a team's own purchase code and its tests.
        .library(name: "StoreKit", targets: ["StoreKit"]),
        .library(name: "StoreKitTest", targets: ["StoreKitTest"]),
    ],
    targets: [
        // C libraries, through system-library shims.
        .systemLibrary(name: "CNcursesW", path: "Sources/CNcursesW", pkgConfig: "ncursesw"),
        .systemLibrary(name: "CLibCrypto", path: "Sources/CLibCrypto", pkgConfig: "libcrypto"),
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3"),
        .systemLibrary(name: "CMicroHTTPD", path: "Sources/CMicroHTTPD", pkgConfig: "libmicrohttpd"),
        .systemLibrary(name: "CLibPQ", path: "Sources/CLibPQ", pkgConfig: "libpq"),
        // SQLite's unix VFS writing each commit's write-ahead-log frames in one write (see wal_batch.c).
        .target(name: "CWALBatch", dependencies: ["CSQLite"]),

        // The project's one lock: a pthread mutex, whose waiters sleep and which ThreadSanitizer sees.
        .target(name: "Locking"),

        // Domain: catalog, products, prices, transaction models, JSON.
        // Period names come from the toolchain's own ICU (`_FoundationICU`), the one Foundation formats with.
        .target(name: "StoreCore", dependencies: ["Locking"], resources: [.copy("Catalog/catalog.schema.json")],
                linkerSettings: [.linkedLibrary("_FoundationICU", .when(platforms: [.linux]))]),
        // OpenSSL without its exit-time cleanup, set before anything reaches libcrypto (see crypto_setup.c).
        .target(name: "CCryptoSetup", dependencies: ["CLibCrypto"]),
        // ES256 JWS and X.509, through libcrypto.
        .target(name: "StoreSigning", dependencies: ["CLibCrypto", "CCryptoSetup"]),
        // The store side: TransactionSource, LocalAppStore (ledger, clock, signer), ScriptedSource.
        // The ledger runs on SQLite (embedded, the default) or PostgreSQL (libpq), behind one interface.
        .target(name: "StoreEngine", dependencies: ["Locking", "StoreCore", "StoreSigning", "CSQLite", "CWALBatch", "CLibPQ", "CLibCrypto"]),
        // The app's check of signed data, as StoreKit's and Apple's server library's: SignedDataVerifier.
        .target(name: "StoreVerification", dependencies: ["StoreCore", "StoreSigning"]),
        // Apple's public StoreKit 2 names and shapes (`Product`, `Transaction`, `AppStore`…) over a
        // `TransactionSource`, verifying every JWS as StoreKit does; an app imports only this (and Foundation).
        .target(name: "StoreKit", dependencies: ["Locking", "StoreCore", "StoreSigning", "StoreEngine", "StoreVerification"]),
        // Apple's `SKTestSession` over `LocalAppStore` and its tester controls.
        .target(name: "StoreKitTest", dependencies: ["Locking", "StoreKit", "StoreCore", "StoreEngine", "StoreVerification"]),
        // The app side: StoreManager, an app written on the StoreKit API.
        .target(name: "StoreClient", dependencies: ["StoreCore", "StoreSigning", "StoreEngine", "StoreVerification", "StoreKit"]),
        // The App Store's server side, beside the app side: notifications V2 delivered from the ledger's
        // outbox (Foundation's URL loading) and the App Store Server API served over libmicrohttpd.
        .target(name: "StoreServer", dependencies: ["Locking", "StoreCore", "StoreSigning", "StoreEngine", "CMicroHTTPD", "CLibCrypto"]),
        // Cell grid, display width, widgets, ncurses backend.
        .target(name: "TerminalUI", dependencies: ["Locking", "CNcursesW"]),
        // Screens, state, reducer, render, key map, commands.
        .target(name: "StorefrontApp", dependencies: ["Locking", "StoreCore", "StoreSigning", "StoreEngine", "StoreClient", "StoreVerification", "StoreServer", "TerminalUI"]),
        .executableTarget(name: "storefront", dependencies: ["StorefrontApp"]),
        // Speed and memory targets, measured against baselines in the same run.
        .executableTarget(name: "storefront-bench", dependencies: ["Locking", "StorefrontApp", "StoreVerification", "StoreKit", "CLibCrypto", "CSQLite", "CLibPQ", "CMicroHTTPD"]),

        // Only the tests use these; no product ships them. The fixtures every test target shares
        // (repository paths, manual time, the PostgreSQL test server, the fast loop's tags), and the
        // app the crash tests SIGKILL (ReliabilityTests finds it beside the test bundle).
        .target(name: "StorefrontTestSupport", dependencies: ["Locking", "StoreCore", "StoreEngine", "TerminalUI", "CLibPQ", "TestScratch"], path: "Tests/Support"),
        // Each test process's own TMPDIR, removed when it exits (see scratch.c).
        .target(name: "TestScratch", path: "Tests/Scratch"),
        .executableTarget(name: "storefront-crash-worker", dependencies: ["Locking", "StoreClient", "StoreKit", "StorefrontTestSupport"], path: "Tests/CrashWorker"),

        .testTarget(name: "StoreCoreTests", dependencies: ["StoreCore", "StorefrontTestSupport"]),
        .testTarget(name: "StoreSigningTests", dependencies: ["StoreSigning", "StorefrontTestSupport"]),
        .testTarget(name: "StoreEngineTests", dependencies: ["Locking", "StoreEngine", "StoreClient", "StoreVerification", "StoreSigning", "StorefrontTestSupport"]),
        .testTarget(name: "StoreServerTests", dependencies: ["Locking", "StoreServer", "StoreEngine", "StoreClient", "StoreVerification", "StoreSigning", "StorefrontTestSupport"]),
        .testTarget(name: "ReliabilityTests", dependencies: ["StorefrontApp", "StoreVerification", "StorefrontTestSupport"]),
        .testTarget(name: "TerminalUITests", dependencies: ["Locking", "TerminalUI", "StorefrontTestSupport"]),
        .testTarget(name: "StorefrontAppTests", dependencies: ["Locking", "StorefrontApp", "StorefrontTestSupport"], exclude: ["Screens"]),
        .testTarget(name: "StoreKitTests", dependencies: ["Locking", "StoreKit", "StoreKitTest", "StoreCore", "StoreEngine", "StoreSigning", "StorefrontTestSupport"]),
        .testTarget(name: "BenchTests", dependencies: ["storefront-bench"]),
    ],
    swiftLanguageModes: [.v6]
)
