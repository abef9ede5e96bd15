import Foundation
import Testing
import StoreCore
import StorefrontTestSupport

/// Seeded mutations of real catalogs: the bundled catalog.json and the `.storekit` fixtures.
struct CatalogMutator {
    var random: SeededRandom

    static let sources: [(name: String, data: Data)] = {
        let fixtures = Repo.sharedFixtures.appendingPathComponent("storekit")
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: fixtures.path)) ?? []).filter { $0.hasSuffix(".storekit") }.sorted()
        return [("catalog.json", FileManager.default.contents(atPath: Repo.catalogPath)!)]
            + files.map { ($0, FileManager.default.contents(atPath: fixtures.appendingPathComponent($0).path)!) }
    }()

    static let kinds = ["byte flip", "truncation", "wrong type", "huge number", "deep nesting", "invalid UTF-8", "removed field",
                        "hostile string", "hostile price"]

    /// Strings a careless reader of numbers, dates, periods or names mishandles; prices are strings too.
    static let hostileStrings = [
        "99999999999999999999", "123456789012345678901.99", "18446744073709551616", "9223372036854775807", "-9223372036854775808",
        "1234567890123", "0.1234567", "999999999999.999999", "0000000000000000000000001", String(repeating: "9", count: 400),
        "1e999", "-1", "+1", ".5", "5.", "1.2.3", "0x10", "NaN", "", " ", "\u{0}", "\u{1B}[2J", "P9999999999999999999Y", "P0D",
        "99999-12-31", "2027-02-30", String(repeating: "é", count: 5000), "٣٫٩٩", "４.９９",
    ]

    mutating func mutate(_ data: Data, kind: String) -> Data {
        var bytes = [UInt8](data)
        switch kind {
        case "byte flip":
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                bytes[Int.random(in: 0..<bytes.count, using: &random)] ^= UInt8.random(in: 1...255, using: &random)
            }
        case "truncation":
            bytes.removeLast(Int.random(in: 1...bytes.count, using: &random))
        case "wrong type", "huge number", "removed field":
            guard let json = try? JSONParser.parse(data) else { return data }
            let replacement: JSONValue? = switch kind {
            case "wrong type": [.string("x"), .number("42"), .bool(true), .null, .array([]), .object([]), .number("-1.5")].randomElement(using: &random)!
            case "huge number": [.number("1e999999"), .number("-" + String(repeating: "9", count: 400)), .number("18446744073709551616"),
                                 .number("0.000000000000000000000000000000000000000001"), .number("1E+308")].randomElement(using: &random)!
            default: nil
            }
            bytes = Array(replaceRandomNode(json, with: replacement).serialized().utf8)
        case "hostile string", "hostile price":
            guard let json = try? JSONParser.parse(data) else { return data }
            // A price field half the time when one is asked for: they are a small share of a catalog's strings.
            let all = Self.stringPaths(in: json)
            let prices = all.filter { $0.contains { if case .key(let key) = $0 { key.lowercased().contains("price") } else { false } } }
            guard let path = (kind == "hostile price" && !prices.isEmpty ? prices : all).randomElement(using: &random) else { return data }
            let text = Self.hostileStrings.randomElement(using: &random)!
            bytes = Array(Self.replacing(json, at: path[...], with: .string(text)).serialized().utf8)
        case "deep nesting":
            let depth = [50, 127, 128, 129, 1000, 100_000].randomElement(using: &random)!
            let open = Array(repeating: UInt8(ascii: Bool.random(using: &random) ? "[" : "{"), count: depth)
            let at = Int.random(in: 0...bytes.count, using: &random)
            bytes.insert(contentsOf: open[0] == UInt8(ascii: "[") ? open : Array(String(repeating: "{\"a\":", count: depth).utf8), at: at)
        default:  // invalid UTF-8, preferably inside a string
            let invalid: [[UInt8]] = [[0xFF], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xE2, 0x82], [0xF4, 0x90, 0x80, 0x80], [0x80]]
            let quotes = bytes.indices.filter { bytes[$0] == UInt8(ascii: "\"") }
            let at = quotes.isEmpty ? 0 : quotes.randomElement(using: &random)! + 1
            bytes.insert(contentsOf: invalid.randomElement(using: &random)!, at: min(at, bytes.count))
        }
        return Data(bytes)
    }

    enum Step { case key(String), index(Int) }

    /// The path of every string in the document.
    static func stringPaths(in value: JSONValue, under path: [Step] = []) -> [[Step]] {
        switch value {
        case .string: [path]
        case .object(let members): members.flatMap { stringPaths(in: $0.value, under: path + [.key($0.key)]) }
        case .array(let elements): elements.enumerated().flatMap { stringPaths(in: $1, under: path + [.index($0)]) }
        default: []
        }
    }

    static func replacing(_ value: JSONValue, at path: ArraySlice<Step>, with replacement: JSONValue) -> JSONValue {
        guard let step = path.first else { return replacement }
        switch (value, step) {
        case (.object(var members), .key(let key)):
            if let i = members.firstIndex(where: { $0.key == key }) { members[i].value = replacing(members[i].value, at: path.dropFirst(), with: replacement) }
            return .object(members)
        case (.array(var elements), .index(let i)):
            elements[i] = replacing(elements[i], at: path.dropFirst(), with: replacement)
            return .array(elements)
        default:
            return value
        }
    }

    /// Replaces (or, for nil, removes) one node chosen at random, walking down from the root.
    mutating func replaceRandomNode(_ value: JSONValue, with replacement: JSONValue?) -> JSONValue {
        switch value {
        case .object(var members) where !members.isEmpty && Int.random(in: 0..<4, using: &random) > 0:
            let i = Int.random(in: 0..<members.count, using: &random)
            if replacement == nil, Int.random(in: 0..<3, using: &random) == 0 { members.remove(at: i); return .object(members) }
            members[i].value = replaceRandomNode(members[i].value, with: replacement)
            return .object(members)
        case .array(var elements) where !elements.isEmpty && Int.random(in: 0..<4, using: &random) > 0:
            let i = Int.random(in: 0..<elements.count, using: &random)
            if replacement == nil, Int.random(in: 0..<3, using: &random) == 0 { elements.remove(at: i); return .array(elements) }
            elements[i] = replaceRandomNode(elements[i], with: replacement)
            return .array(elements)
        default:
            return replacement ?? value
        }
    }
}

@Suite("Bad catalogs", .tags(.slow), .notInFastLoop)
struct BadCatalogTests {
    /// Each mutation is written to a file and loaded from it, as `--catalog FILE` does: through the file reader.
    @Test("Mutated catalog files never crash or hang; every error is a CatalogError that says where")
    func fuzz() throws {
        let directory = temporaryDirectory("catalogs")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let seed = testSeed("bad catalogs")
        var mutator = CatalogMutator(random: SeededRandom(seed: seed))
        let sources = CatalogMutator.sources
        #expect(sources.count >= 5, "the .storekit fixtures are missing")
        let count = longTests ? 30_000 : 10_000
        var (accepted, slowest, slowestCase) = (0, 0.0, "")
        var perKind: [String: Int] = [:]
        let start = ContinuousClock.now
        for i in 0..<count {
            let source = sources[i % sources.count]
            let kind = CatalogMutator.kinds.randomElement(using: &mutator.random)!
            let data = mutator.mutate(source.data, kind: kind)
            let caseName = "case \(i) (\(kind) of \(source.name))"
            // One folder per case and removed after it: rewriting one file in place makes ext4 flush it every time.
            let file = directory + "/\(i)/" + source.name
            try FileManager.default.createDirectory(atPath: directory + "/\(i)", withIntermediateDirectories: false)
            try data.write(to: URL(fileURLWithPath: file))
            defer { try? FileManager.default.removeItem(atPath: directory + "/\(i)") }
            let began = ContinuousClock.now
            do {
                _ = try CatalogLoader.load(path: file)
                accepted += 1
            } catch let error as CatalogError {
                perKind[kind, default: 0] += 1
                #expect(error.description.hasPrefix(source.name + ":") && !error.message.isEmpty, "\(caseName): \(error)")
                switch error.location {
                case .position(let line, let column):
                    let lines = data.reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
                    #expect((1...lines).contains(line) && column >= 1, "\(caseName): position \(line):\(column) outside a \(lines)-line document")
                case .field(let path):
                    #expect(!path.isEmpty, "\(caseName): empty field path: \(error)")
                case .file:
                    break
                }
            } catch {
                Issue.record("\(caseName): \(type(of: error)) is not a CatalogError: \(error)")
            }
            let took = (ContinuousClock.now - began) / .seconds(1)
            if took > slowest { (slowest, slowestCase) = (took, caseName) }
        }
        print("[bad catalogs] \(count) mutations in \(ContinuousClock.now - start), \(accepted) still valid, rejected by kind \(perKind.sorted { $0.key < $1.key }), slowest \(String(format: "%.3f", slowest)) s (\(slowestCase))")
        #expect(slowest < 10, "a mutated catalog took \(slowest) s to load: \(slowestCase)")
    }
}
