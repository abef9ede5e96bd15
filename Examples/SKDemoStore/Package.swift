// swift-tools-version:6.0
import PackageDescription

// An app's store class and its tests, as a team writes them for iOS, built and tested on Linux against
// Storefront's `StoreKit` and `StoreKitTest` (see docs/storekit.md).
let package = Package(
    name: "SKDemoStore",
    platforms: [.macOS(.v14)],
    dependencies: [.package(name: "Storefront", path: "../..")],
    targets: [
        .target(name: "SKDemoStore", dependencies: [.product(name: "StoreKit", package: "Storefront")]),
        .testTarget(name: "SKDemoStoreTests",
                    dependencies: ["SKDemoStore", .product(name: "StoreKit", package: "Storefront"),
                                   .product(name: "StoreKitTest", package: "Storefront")],
                    resources: [.copy("Products.storekit")]),
    ],
    swiftLanguageModes: [.v6]
)
