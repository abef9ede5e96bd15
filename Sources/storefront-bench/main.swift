import Foundation
import StoreCore
import StoreEngine

let usage = """
    usage: storefront-bench [--json FILE] [--markdown FILE] [--quick] [--only ID,…]
      Speed and memory figures, each against a baseline measured in the same run (release build).
      --json FILE   also write the results as JSON: one row per figure with its id, figure, ratio and pass
      --markdown FILE  also write the table in Markdown (docs/performance.md's table is one)
      --quick       smaller sizes, for a smoke run in seconds
      --only IDS    only these figures: a number (1, 5, 8) or an id (refresh-subs, refresh-1m, purchase-e2e,
                    first-frame-10k, first-frame-1m, idle-cpu-1m, catalog-100k, scenarios, postgres-purchases,
                    postgres-delivery, postgres-year, notify-latency, device-latency,
                    redelivery, purchase-api, serve-throughput, tui-purchase)
      --help        this text
    Exit status: 0 when every figure measured meets its target, 1 when one misses or the run fails.
    """
// storefront-bench rss-probe --catalog FILE --state DIR        (hidden: figure 8's fresh process)
// storefront-bench catalog-probe --catalog FILE                 (hidden: catalog-100k's fresh process)
// storefront-bench redelivery-probe --catalog FILE --state DIR (hidden: redelivery's fresh process)
// storefront-bench write-catalog --products N --out FILE        (hidden: a generated catalog, for profiling)
// storefront-bench launch-ledgers --dir DIR [--quick]           (hidden: the launch figures' catalog and state directories, kept for profiling)

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
    case "rss-probe":
        guard let catalog = option("--catalog"), let state = option("--state") else { fail("usage: rss-probe --catalog FILE --state DIR") }
        try await Figures.rssProbe(catalogPath: catalog, state: state)
    case "redelivery-probe":
        guard let catalog = option("--catalog"), let state = option("--state") else { fail("usage: redelivery-probe --catalog FILE --state DIR") }
        try await RedeliveryFigures.probe(catalogPath: catalog, state: state)
    case "catalog-probe":
        guard let catalog = option("--catalog") else { fail("usage: catalog-probe --catalog FILE") }
        try await CatalogFigures.probe(catalogPath: catalog)
    case "write-catalog":
        guard let count = option("--products").flatMap(Int.init), let out = option("--out") else { fail("usage: write-catalog --products N --out FILE") }
        try Generate.catalogData(CatalogFigures.catalog(products: count)).write(to: URL(fileURLWithPath: out))
    case "launch-ledgers":
        guard let directory = option("--dir") else { fail("usage: launch-ledgers --dir DIR [--quick]") }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let ledgers = try await LaunchFigures.prepare(arguments.contains("--quick") ? .quick : Sizes(), in: directory)
        print("storefront --catalog \(ledgers.catalog) --state \(ledgers.huge)   (empty: --state \(ledgers.empty))")
    case _ where arguments.contains("--help") || arguments.contains("-h") || arguments.first == "help":
        print(usage)
    case let first? where !first.hasPrefix("--"):
        fail("unknown command \(first)\n\(usage)")
    default:
        let quick = arguments.contains("--quick")
        let passed = try await Bench.run(sizes: quick ? .quick : Sizes(), json: option("--json"), markdown: option("--markdown"),
                                         only: option("--only").map { Set($0.split(separator: ",").map(String.init)) })
        if !passed { exit(1) }
    }
} catch {
    fail("\(error)")
}
