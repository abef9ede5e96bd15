import Foundation
import StoreCore

// storefront-bench [--json FILE] [--quick] [--only 1,2,…]
//   Speed and memory figures, each against a baseline measured in the same run.
// storefront-bench worker --state DIR --seed N [--count N] [--non-consumables N]   (hidden: the crash-test worker)
// storefront-bench rss-probe --catalog FILE --state DIR        (hidden: figure 8's fresh process)

let arguments = Array(CommandLine.arguments.dropFirst())
func option(_ name: String) -> String? {
    arguments.firstIndex(of: name).flatMap { arguments.index(after: $0) < arguments.endIndex ? arguments[$0 + 1] : nil }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("storefront-bench: \(message)\n".utf8))
    exit(1)
}

do {
    switch arguments.first {
    case "worker":
        guard let state = option("--state"), let seed = option("--seed").flatMap(UInt64.init) else {
            fail("usage: worker --state DIR --seed N [--count N] [--non-consumables N]")
        }
        try await Worker.run(state: state, seed: seed, count: option("--count").flatMap(Int.init) ?? Int.max,
                             nonConsumables: option("--non-consumables").flatMap(Int.init).map { min(max($0, 1), Worker.nonConsumables) } ?? Worker.nonConsumables)
    case "rss-probe":
        guard let catalog = option("--catalog"), let state = option("--state") else { fail("usage: rss-probe --catalog FILE --state DIR") }
        try await Figures.rssProbe(catalogPath: catalog, state: state)
    default:
        let quick = arguments.contains("--quick")
        try await Bench.run(sizes: quick ? .quick : Sizes(), json: option("--json"),
                            only: option("--only").map { Set($0.split(separator: ",").map(String.init)) })
    }
} catch {
    fail("\(error)")
}
