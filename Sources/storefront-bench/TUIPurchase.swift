import Foundation
import StoreClient
import StoreCore
import StoreEngine

/// The storefront's own purchase, as the person at the terminal sees it: Confirm on the payment
/// sheet until the frame that says "Purchased", the release binary on a pseudo-terminal, against
/// `StoreManager.purchase` end to end in this process on the same catalog (what the storefront's
/// Confirm runs, plus its one refresh, reduce and render).
enum TUIPurchaseFigures {
    static let id = "tui-purchase"

    static func run(_ sizes: Sizes) async throws -> Result {
        guard FileManager.default.isExecutableFile(atPath: TerminalFigures.binary) else {
            return Result(id: id, figure: id, unit: "", target: "", note: "not measured: no \(TerminalFigures.binary) (swift build -c release)")
        }
        let work = temporaryDirectory("tui-purchase")
        defer { try? FileManager.default.removeItem(atPath: work) }
        let catalog = try Generate.catalog(oneTime: 90, groups: 2, perGroup: 5)
        let catalogPath = work + "/catalog.json"
        try Generate.catalogData(catalog).write(to: URL(fileURLWithPath: catalogPath))
        let (store, manager) = try await RefreshFigures.launchedApp(directory: work + "/floor", catalog: catalog)
        let storefront = try LaunchedStorefront(catalog: catalogPath, state: work + "/storefront")
        defer { storefront.stop() }
        guard storefront.waitForFirstFrame() != nil else { throw BenchError("storefront never drew its store screen: \(storefront.failure)") }

        let perRound = sizes.largeLedger < 100_000 ? 5 : 20
        var times: [[Double]] = [[], []]
        var keys: [Double] = []  // the key that only changes the status line, Confirm's floor on this pty
        let steadiness = Steadiness.standard
        for round in 1...steadiness.maximum {
            times[0].append(try await elapsed {
                for _ in 0..<perRound {
                    guard case .success(.verified) = await manager.purchase(PurchaseFigures.consumable) else { throw BenchError("a purchase failed") }
                }
            } / Double(perRound))
            var keyToFrame = 0.0
            for _ in 0..<perRound {
                let (purchase, statusLine) = try confirmToPurchased(storefront.pty)
                keyToFrame += purchase
                keys.append(statusLine)
            }
            times[1].append(keyToFrame / Double(perRound))
            if round >= steadiness.minimum, times.allSatisfy({ Sample(times: $0).spread <= steadiness.tolerance }) { break }
        }
        await manager.stop()
        await store.shutdown()
        let samples = times.map(Sample.init)
        let (floor, measured) = (samples[0].median * 1e3, samples[1].median * 1e3)
        return Result(id: id, figure: "Confirm to the \"Purchased\" frame, on a pty", measured: measured, baseline: floor, unit: "ms",
                      ratio: measured / floor, target: "≤ 1.5×", pass: measured <= 1.5 * floor,
                      note: "the release storefront on a 120×40 pty, a consumable bought \(perRound) times a round: Enter on the payment "
                          + "sheet until \"Purchased\" arrives on the terminal; baseline: StoreManager.purchase of the same consumable "
                          + "in this process, on a ledger of its own; a key that changes only the status line (`-`) takes "
                          + String(format: "%.2f ms", Sample(times: keys).median * 1e3) + " to its frame").from(samples)
    }

    /// One purchase of the selected product (the store screen's first row, a consumable): Enter opens
    /// the payment sheet, `-` (at quantity 1) puts "At least 1 in a purchase" on the status line, so the
    /// "Purchased" that replaces it is written whole; then the seconds from Enter on Confirm until it arrives,
    /// and from `-` until its status line did (the terminal's round trip, with the least drawing).
    static func confirmToPurchased(_ pty: PseudoTerminal) throws -> (purchase: Double, statusLine: Double) {
        func step(_ keys: String, until marker: String) throws -> ContinuousClock.Instant {
            let offset = pty.bytes
            pty.type(keys)
            guard let seen = pty.waitFor(marker, after: offset) else { throw BenchError("\"\(marker)\" never reached the terminal after \(keys.debugDescription)") }
            return seen
        }
        _ = try step("\r", until: "Confirm")
        let minus = ContinuousClock.now
        let statusLine = (try step("-", until: "At least") - minus).seconds
        let confirmed = ContinuousClock.now
        return ((try step("\r", until: "Purchased") - confirmed).seconds, statusLine)
    }
}
