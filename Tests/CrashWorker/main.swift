import Foundation
import StoreEngine

// storefront-crash-worker --state DIR --seed N [--count N] [--non-consumables N] [--ledger URL]
// The app Tests/ReliabilityTests/CrashSafetyTests.swift starts and SIGKILLs; only the tests use it.
// storefront-crash-worker --exit-while-signing: exits while two threads sign and verify (ProcessExitTests).
// storefront-crash-worker --storekit PRODUCT: buys it through StoreKit with no session (ProcessExitTests).

let arguments = Array(CommandLine.arguments.dropFirst())
func option(_ name: String) -> String? {
    arguments.firstIndex(of: name).flatMap { arguments.index(after: $0) < arguments.endIndex ? arguments[$0 + 1] : nil }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("storefront-crash-worker: \(message)\n".utf8))
    exit(1)
}

// Ends with the test process that started it: one left buying after its test process crashed took a
// core (and 800 MB) for minutes, and the suites after it failed their timings.
let parent = getppid()
Thread.detachNewThread {
    while getppid() == parent { sleep(1) }
    exit(0)
}

if arguments.first == "--exit-while-signing" { ExitWhileSigning.run() }
if arguments.first == "--storekit", let productID = arguments.dropFirst().first { await StoreKitEnvironment.run(productID: productID) }

guard let state = option("--state"), let seed = option("--seed").flatMap(UInt64.init) else {
    fail("usage: storefront-crash-worker --state DIR --seed N [--count N] [--non-consumables N] [--ledger URL]")
}
do {
    try await Worker.run(state: state, ledger: option("--ledger").flatMap { LedgerLocation(url: $0) }, seed: seed,
                         count: option("--count").flatMap(Int.init) ?? Int.max,
                         nonConsumables: option("--non-consumables").flatMap(Int.init).map { min(max($0, 1), Worker.nonConsumables) } ?? Worker.nonConsumables)
} catch {
    fail("\(error)")
}
