import Foundation
import StoreCore
import StoreEngine

/// One line of the results table.
struct Result: Codable {
    /// Stable across runs and versions: "1a", "refresh-1m"; rows come in this order.
    var id: String
    var figure: String
    var measured: Double?
    var baseline: Double?
    var unit: String
    /// measured / baseline (or measured alone when there is no baseline).
    var ratio: Double?
    var target: String
    /// nil: not measured.
    var pass: Bool?
    var note: String = ""
    /// The widest spread (interquartile range over median) of the samples behind this row, and their rounds.
    var spread: Double? = nil
    var rounds: Int? = nil

    var status: String { pass.map { $0 ? "PASS" : "MISS" } ?? "n/a" }

    /// This row, saying how steady the samples behind it were.
    func from(_ samples: [Sample]) -> Result {
        var result = self
        result.spread = samples.map(\.spread).max()
        result.rounds = samples.map(\.rounds).max()
        return result
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}

/// Seconds `body` takes.
func elapsed(_ body: () throws -> Void) rethrows -> Double {
    let start = ContinuousClock.now
    try body()
    return (ContinuousClock.now - start).seconds
}

func elapsed(_ body: () async throws -> Void) async rethrows -> Double {
    let start = ContinuousClock.now
    try await body()
    return (ContinuousClock.now - start).seconds
}

/// CPU seconds this process (every thread of it) spends while `body` runs.
func cpuSeconds(_ body: () async throws -> Void) async rethrows -> Double {
    func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
    }
    let start = now()
    try await body()
    return now() - start
}

/// Repeated timings of one thing: its median, and how widely the runs spread around it.
struct Sample {
    var times: [Double]
    var median: Double { quantile(0.5) }
    /// The interquartile range over the median: 0.05 means the middle half of the runs lie within 5%.
    var spread: Double { median > 0 ? (quantile(0.75) - quantile(0.25)) / median : 0 }
    var rounds: Int { times.count }

    func quantile(_ q: Double) -> Double {
        let sorted = times.sorted()
        let position = q * Double(sorted.count - 1)
        let (low, high) = (Int(position.rounded(.down)), Int(position.rounded(.up)))
        return sorted[low] + (sorted[high] - sorted[low]) * (position - Double(low))
    }
}

/// How long a figure keeps repeating: at least `minimum` rounds, then until every side's spread is
/// within `tolerance` or `maximum` rounds have run (the spread is reported either way).
struct Steadiness {
    var minimum = 5, maximum = 40, tolerance = 0.05
    static let standard = Steadiness()
    /// For figures whose one round takes seconds.
    static let slow = Steadiness(minimum: 3, maximum: 9, tolerance: 0.08)
}

/// Times each of `sides` once per round, interleaved so drift on a shared machine hits all alike,
/// until the spreads are small. One sample per side, in order.
func repeatUntilSteady(all sides: [() async throws -> Void], _ steadiness: Steadiness = .standard) async throws -> [Sample] {
    var times = [[Double]](repeating: [], count: sides.count)
    for round in 1...steadiness.maximum {
        for (index, side) in sides.enumerated() { times[index].append(try await elapsed(side)) }
        let samples = times.map(Sample.init)
        if round >= steadiness.minimum, samples.allSatisfy({ $0.spread <= steadiness.tolerance }) { return samples }
    }
    return times.map(Sample.init)
}

func repeatUntilSteady(_ sides: (() async throws -> Void)..., steadiness: Steadiness = .standard) async throws -> [Sample] {
    try await repeatUntilSteady(all: sides, steadiness)
}

enum Repo {
    /// The repository root, from this file's path at build time.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    static func bundledCatalog() throws -> Catalog {
        var catalog = try CatalogLoader.load(path: root + "/catalog.json")
        catalog.settings.networkDelay = 0
        catalog.settings.gracePeriod = false
        return catalog
    }
}

enum Machine {
    static var cpuModel: String {
        let info = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let line = info.split(separator: "\n").first { $0.hasPrefix("model name") }
        return line.map { $0.split(separator: ":", maxSplits: 1).last!.trimmingCharacters(in: .whitespaces) } ?? "unknown"
    }
    static var cores: Int { ProcessInfo.processInfo.activeProcessorCount }

    /// Peak resident set size of this process, in bytes: VmHWM from /proc/self/status.
    /// Not getrusage's ru_maxrss: on Linux a child started by posix_spawn (vfork + exec) starts
    /// with its parent's peak there, so a fresh probe process would report the bench's own peak.
    static var peakRSS: Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
        let kib = line.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
        return kib * 1024
    }
}

func temporaryDirectory(_ name: String) -> String {
    let path = NSTemporaryDirectory() + "storefront-bench-\(name)-\(UUID().uuidString.prefix(8))"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// Generated catalogs in our format, for the size figures.
enum Generate {
    /// `oneTime` consumables, non-consumables and non-renewing subscriptions in turn, then `groups`
    /// subscription groups of `perGroup` subscriptions, priced in every storefront of the bundled catalog.
    static func catalog(oneTime: Int, groups: Int, perGroup: Int, period: Period = Period(1, .month)) throws -> Catalog {
        let base = try Repo.bundledCatalog()
        let types: [ProductType] = [.consumable, .nonConsumable, .nonRenewing]
        func prices(_ i: Int) -> [String: Decimal] {
            Dictionary(uniqueKeysWithValues: base.storefronts.map { ($0.code, Decimal(i % 50) + Decimal(string: "0.99")!) })
        }
        func text(_ name: String) -> [Localization] {
            [Localization(locale: "en_US", displayName: name, description: "A generated product for the benchmark: \(name)."),
             Localization(locale: "de_DE", displayName: name + " (DE)", description: "Ein erzeugtes Produkt: \(name).")]
        }
        var products = (0..<oneTime).map { i in
            let type = types[i % types.count]
            return CatalogProduct(id: "gen.item\(i)", type: type, referenceName: "Item \(i)", localizations: text("Item \(i)"),
                                  prices: prices(i), duration: type == .nonRenewing ? Period(1, .month) : nil)
        }
        var subscriptionGroups: [SubscriptionGroup] = []
        for g in 0..<groups {
            subscriptionGroups.append(SubscriptionGroup(id: "gen.group\(g)", referenceName: "Group \(g)", localizedNames: ["en_US": "Group \(g)"]))
            for s in 0..<perGroup {
                let terms = SubscriptionTerms(groupID: "gen.group\(g)", level: s + 1, period: period,
                                              introductoryOffer: s == 0 ? SubscriptionOffer(type: .introductory, paymentMode: .freeTrial, period: Period(1, .week)) : nil)
                products.append(CatalogProduct(id: "gen.group\(g).sub\(s)", type: .autoRenewable, referenceName: "Sub \(g).\(s)",
                                               localizations: text("Plan \(g).\(s)"), prices: prices(s), subscription: terms))
            }
        }
        var settings = base.settings
        settings.networkDelay = 0
        return Catalog(app: base.app, storefronts: base.storefronts, products: products, subscriptionGroups: subscriptionGroups, settings: settings)
    }

    static func catalogData(_ catalog: Catalog) -> Data {
        Data(CatalogFormat.encode(catalog).serialized().utf8)
    }
}
