import Foundation
import StoreClient
import StoreCore
import StorefrontApp
import TerminalUI

/// Large catalogs: the first frame the real binary draws with one, and a huge one's load time and memory.
enum CatalogFigures {
    /// A generated catalog of `products` products (nine in ten one-time, the rest in groups of five
    /// subscriptions), as figure 4 uses.
    static func catalog(products: Int) throws -> Catalog {
        try Generate.catalog(oneTime: products * 9 / 10, groups: products / 50, perGroup: 5)
    }

    /// Writes a generated catalog of `products` products to a new file in `directory`; its path.
    /// Compact JSON keeps 100,000 products (50 MB) under the 64 MB Storefront reads; pretty, 79 MB.
    static func writeCatalog(products: Int, in directory: String, compact: Bool = false) throws -> String {
        let path = directory + "/catalog-\(products).json"
        let json = CatalogFormat.encode(try catalog(products: products))
        try Data((compact ? json.compact : json.serialized()).utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    // MARK: first-frame-10k

    /// The release `storefront` launched on a pseudo-terminal with a generated catalog, until the
    /// store screen's summary ("10000 products · USA prices in USD") appears; the target is absolute.
    static func firstFrame(_ sizes: Sizes) throws -> Result {
        let n = sizes.catalogProducts
        let id = "first-frame-10k", figure = "first-frame-10k first frame, \(n / 1000)k-product catalog"
        let directory = temporaryDirectory("first-frame")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = try writeCatalog(products: n, in: directory)
        var (version, frame) = (Sample(times: []), Sample(times: []))
        for round in 1...Steadiness.standard.maximum {
            let versionLaunch = try TerminalFigures.launch(["--version"], until: "storefront ")
            let frameLaunch = try TerminalFigures.launch(["--catalog", path, "--ephemeral"], until: "products")
            guard case .shown(let v) = versionLaunch, case .shown(let f) = frameLaunch else {
                return Result(id: id, figure: figure, measured: nil, baseline: nil, unit: "ms", ratio: nil, target: "≤ 300 ms", pass: nil,
                              note: "not measured: \(versionLaunch.whyNot ?? frameLaunch.whyNot ?? "")")
            }
            version.times.append(v)
            frame.times.append(f)
            if round >= Steadiness.standard.minimum, max(version.spread, frame.spread) <= Steadiness.standard.tolerance { break }
        }
        let (a, b) = (frame.median, version.median)
        return Result(id: id, figure: figure, measured: a * 1000, baseline: b * 1000, unit: "ms", ratio: a / b, target: "≤ 300 ms",
                      pass: a <= 0.3, note: "storefront --catalog FILE --ephemeral on a 120×40 pty; baseline: storefront --version").from([frame, version])
    }

    // MARK: catalog-100k

    /// A fresh process loads a huge catalog and does what the app needs for its first frame
    /// (`catalog-probe`); its time and peak RSS.
    static func huge(_ sizes: Sizes) throws -> Result {
        let n = sizes.hugeCatalogProducts
        let directory = temporaryDirectory("huge-catalog")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = try writeCatalog(products: n, in: directory, compact: true)
        var (time, rss) = (Sample(times: []), Sample(times: []))
        for round in 1...Steadiness.slow.maximum {
            let output = try Figures.runSelf(["catalog-probe", "--catalog", path])
            let fields = output.split(separator: " ").compactMap { Double($0) }
            guard fields.count == 2 else { throw BenchError("catalog-probe said: \(output)") }
            time.times.append(fields[0])
            rss.times.append(fields[1] / 1_000_000)
            if round >= Steadiness.slow.minimum, time.spread <= Steadiness.slow.tolerance { break }
        }
        let (seconds, megabytes) = (time.median, rss.median)
        let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        return Result(id: "catalog-100k", figure: "catalog-100k load \(n / 1000)k products, first frame", measured: seconds, baseline: nil, unit: "s",
                      ratio: nil, target: "≤ 1.5 s, ≤ 200 MB", pass: seconds <= 1.5 && megabytes <= 200,
                      note: String(format: "peak RSS %.0f MB; %d MB compact file; a fresh process: load, open the store and the app, render", megabytes, bytes / 1_000_000))
            .from([time, rss])
    }

    /// The `catalog-probe` mode: load the catalog, open an in-memory store and the app on it, render
    /// the first frame; prints the seconds that took and the peak RSS.
    static func probe(catalogPath: String) async throws {
        let start = ContinuousClock.now
        let catalog = try CatalogLoader.load(path: catalogPath)
        let stack = try await StoreStack.open(catalog: catalog, stateDirectory: nil)
        let preview = await ScreenPreview.opening(catalog, manager: stack.manager, controls: stack.store)
        _ = preview.render(size: Size(width: 120, height: 40))
        let seconds = (ContinuousClock.now - start).seconds
        print("\(seconds) \(Machine.peakRSS)")
        await stack.close()
    }
}
