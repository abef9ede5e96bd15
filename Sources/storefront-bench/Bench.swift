import Foundation
import StoreCore

enum Bench {
    /// Runs the figures (`only`: those whose number or id is listed); true when none missed.
    static func run(sizes: Sizes, json: String?, markdown: String? = nil, only: Set<String>? = nil) async throws -> Bool {
        print("storefront-bench: \(Machine.cores) cores (nproc), \(Machine.cpuModel)\(sizes.largeLedger < 100_000 ? ", --quick sizes" : "")")
        var results: [Result] = []
        func step<T>(_ name: String, _ body: () async throws -> T) async rethrows -> T {
            FileHandle.standardError.write(Data("… \(name)\n".utf8))
            return try await body()
        }
        func wanted(_ figure: String) -> Bool { only?.contains(figure) ?? true }
        if wanted("1") { results += try await step("JWS signing") { try await Figures.signing(sizes) } }
        if wanted("2") { results.append(try await step("committed purchases") { try await Figures.purchases(sizes) }) }

        let needsCatalog = wanted("3") || wanted("4") || wanted("5") || wanted("8")
        let catalog = needsCatalog ? try Generate.catalog(oneTime: sizes.catalogProducts * 9 / 10, groups: sizes.catalogProducts / 50, perGroup: 5) : nil
        let data = catalog.map(Generate.catalogData) ?? Data()
        if wanted("4") { results.append(try await step("catalog load") { try await Figures.catalogLoad(sizes, data: data) }) }

        let work = temporaryDirectory("ledgers")
        defer { try? FileManager.default.removeItem(atPath: work) }
        let (small, large, catalogPath) = (work + "/small", work + "/large", work + "/catalog.json")
        if let catalog, wanted("3") || wanted("8") {
            try data.write(to: URL(fileURLWithPath: catalogPath))
            try await step("building ledgers") {
                try await Figures.buildLedger(directory: small, catalog: catalog, total: sizes.smallLedger)
                try await Figures.buildLedger(directory: large, catalog: catalog, total: sizes.largeLedger)
            }
            if wanted("3") {
                results.append(try await step("entitlements") { try await Figures.entitlements(sizes, catalog: catalog, small: small, large: large) })
            }
        }

        if wanted("5") {
            if let catalog { results.append(try await step("render") { try await Figures.render(catalog) }) }
            results.append(try await step("terminal backend") { try await TerminalFigures.backendBytes() })
        }
        if wanted("first-frame-10k") { results.append(try await step("first frame, large catalog") { try CatalogFigures.firstFrame(sizes) }) }
        if wanted("catalog-100k") { results.append(try await step("huge catalog") { try CatalogFigures.huge(sizes) }) }
        if wanted("6") { results.append(try await step("start-up") { try TerminalFigures.startup(rounds: sizes.rounds) }) }
        if wanted("7") { results.append(try await step("a simulated year") { try await YearFigures.renewals(sizes) }) }
        if wanted("8") { results += try await step("peak RSS") { try Figures.memory(sizes, catalogPath: catalogPath, ledger: large) } }
        if wanted("refresh-subs") { results.append(try await step("refresh with many subscriptions") { try await RefreshFigures.subscriptions(sizes) }) }
        if PostgresFigures.ids.contains(where: wanted) {
            results += try await step("PostgreSQL ledger") { try await PostgresFigures.run(sizes, wanted: wanted) }
        }
        if LatencyFigures.ids.contains(where: wanted) {
            results += try await step("latency to the backend and another process") { try await LatencyFigures.run(sizes, wanted: wanted) }
        }
        if wanted("serve-throughput") { results.append(try await step("the Server API under load") { try await ServeFigures.run(sizes) }) }
        if wanted("redelivery") { results.append(try await step("redelivery at launch") { try await RedeliveryFigures.run(sizes) }) }
        if wanted("scenarios") { results.append(try await step("scenario library") { try await ScenarioFigures.library() }) }
        if wanted("purchase-e2e") || wanted("purchase-e2e-1k") || wanted("purchase-e2e-1m") {
            results += try await step("purchases end to end") { try await PurchaseFigures.endToEnd(sizes) }
        }
        if wanted(TUIPurchaseFigures.id) { results.append(try await step("the storefront's own purchase") { try await TUIPurchaseFigures.run(sizes) }) }
        if wanted("purchase-api") { results.append(try await step("a purchase through Apple's API") { try await PurchaseAPIFigures.run(sizes) }) }
        if LaunchFigures.ids.contains(where: wanted) {
            results += try await step("launch and idle on a huge ledger") { try await LaunchFigures.run(sizes, wanted: wanted) }
        }
        if wanted("refresh-1m") { results.append(try await step("refresh with a huge ledger") { try await RefreshFigures.ledgerSize(sizes) }) }

        results.sort { $0.id.compare($1.id, options: .numeric) == .orderedAscending }
        print(table(results))
        if let markdown { try Self.markdown(results).write(toFile: markdown, atomically: true, encoding: .utf8) }
        if let json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            struct Report: Encodable { var cores: Int; var cpu: String; var quick: Bool; var results: [Result] }
            try encoder.encode(Report(cores: Machine.cores, cpu: Machine.cpuModel, quick: sizes.largeLedger < 100_000, results: results))
                .write(to: URL(fileURLWithPath: json))
        }
        return !results.contains { $0.pass == false }
    }

    static func format(_ value: Double?, _ unit: String) -> String {
        guard let value else { return "—" }
        let number = value >= 100 ? String(Int(value.rounded())) : String(format: value >= 10 ? "%.1f" : "%.3g", value)
        return unit == "/s" ? number + "/s" : number + " " + unit
    }

    /// "±3% (7)": the widest interquartile range over median behind the row, and its rounds.
    static func spread(_ result: Result) -> String {
        guard let spread = result.spread, let rounds = result.rounds else { return "—" }
        return String(format: "±%.0f%% (%d)", spread * 50, rounds)
    }

    static let header = ["id", "figure", "measured", "baseline", "ratio", "target", "status", "spread", "note"]

    static func cells(_ result: Result) -> [String] {
        [result.id, result.figure, format(result.measured, result.unit), format(result.baseline, result.unit),
         result.ratio.map { ratio($0, target: result.target) } ?? "—", result.target, result.status, spread(result), result.note]
    }

    /// Two decimals, or three where two would print the target itself: a miss at 0.796 against
    /// "≥ 0.80×" reads "0.796×", not "0.80×".
    static func ratio(_ ratio: Double, target: String) -> String {
        let text = String(format: "%.2f×", ratio)
        return target.hasSuffix(" " + text) ? String(format: "%.3f×", ratio) : text
    }

    /// The same table in Markdown, as docs/performance.md shows it.
    static func markdown(_ results: [Result]) -> String {
        ([header, header.map { _ in "---" }] + results.map(cells)).map { row in
            "| " + row.map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ") + " |"
        }.joined(separator: "\n") + "\n"
    }

    static func table(_ results: [Result]) -> String {
        let rows = [header] + results.map(cells)
        let widths = (0..<header.count - 1).map { column in rows.map { $0[column].count }.max()! }
        return rows.map { row in
            row.enumerated().map { $0.offset < widths.count ? $0.element.padding(toLength: widths[$0.offset], withPad: " ", startingAt: 0) : $0.element }
                .joined(separator: " | ")
        }.joined(separator: "\n")
    }
}
