import Foundation
import StoreCore
import Testing
import TerminalUI
@testable import StorefrontApp
import StorefrontTestSupport


let stormSeed = ProcessInfo.processInfo.environment["STOREFRONT_SEED"].flatMap(UInt64.init) ?? 20_261_129

/// Random keys and resizes through the reducer and the renderer, with invariants after each.
@Suite(.tags(.slow), .notInFastLoop) struct KeyStormTests {
    static let keys: [Key] = [.up, .down, .left, .right, .enter, .escape, .tab, .backTab, .backspace, .delete, .home, .end,
                              .pageUp, .pageDown, .resize, .function(1)]
        + "1234qjkhlgGiorcfm/?+-=anpswyé商 ".map { Key.character($0) } + [.control("a"), .control("u")]

    @Test("100,000 random keys and resizes never crash, and the screen always fills the terminal")
    func storm() async throws {
        var random = SeededRandom(seed: stormSeed)
        var state = try await fixtureState()
        var quits = 0
        for step in 0..<100_000 {
            if random.next() % 50 == 0 {
                let size = [Size(width: 1, height: 1), Size(width: 300, height: 100), Size(width: 59, height: 17), Size(width: 80, height: 24),
                            Size(width: Int(random.next() % 300) + 1, height: Int(random.next() % 100) + 1)][Int(random.next() % 5)]
                _ = reduce(&state, .resize(size))
            } else {
                var key = Self.keys[Int(random.next() % UInt64(Self.keys.count))]
                if key == .character("q") || key == .control("c") { key = .escape }  // quitting would end the storm
                _ = reduce(&state, .key(key))
            }
            if state.shouldQuit { quits += 1; state.shouldQuit = false }
            // Invariants: selections inside their lists, a bounded sheet stack, a full-size screen.
            for screen in Screen.allCases {
                let count = itemCount(screen, state)
                #expect(state.selected(screen) >= 0 && (count == 0 || state.selected(screen) < count), "seed \(stormSeed) step \(step)")
            }
            #expect(state.sheets.count < 8, "seed \(stormSeed) step \(step): sheets pile up")
            if step % 25 == 0 {
                let canvas = render(state, size: state.size)
                #expect(canvas.width == state.size.width && canvas.height == state.size.height)
            }
            if state.sheets.count >= 8 { break }
        }
        #expect(quits == 0)
    }
}

/// Mutated scenario files: an error naming the file and line, never a crash.
@Suite struct BadScenarioTests {
    @Test("10,000 mutated scenario files parse or fail with file:line, never crash")
    func mutations() throws {
        let folder = Repo.root.appendingPathComponent("Tests/Scenarios")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".scenario") }.sorted()
        let texts = try files.map { try Data(contentsOf: folder.appendingPathComponent($0)) }
        var random = SeededRandom(seed: stormSeed)
        let junk = Array("expect buy not entitled \"#\n 0 -1 999999999999999999999 P0M ∞ 商\u{0}".utf8)
        for i in 0..<10_000 {
            var bytes = Array(texts[i % texts.count])
            switch random.next() % 4 {
            case 0: if !bytes.isEmpty { bytes[Int(random.next() % UInt64(bytes.count))] ^= UInt8(truncatingIfNeeded: random.next()) }
            case 1: bytes = Array(bytes.prefix(Int(random.next() % UInt64(bytes.count + 1))))
            case 2: bytes.insert(contentsOf: junk.shuffled(using: &random).prefix(8), at: Int(random.next() % UInt64(bytes.count + 1)))
            default: bytes += [0xFF, 0xFE, 0x0A] + junk
            }
            let text = String(decoding: bytes, as: UTF8.self)
            do {
                _ = try ScenarioParser.parse(text, path: "mutant-\(i).scenario")
            } catch {
                #expect(error.file == "mutant-\(i).scenario" && error.line > 0, "seed \(stormSeed) #\(i): \(error)")
                #expect(!error.message.isEmpty)
            }
        }
    }
}
