import Foundation
import StoreClient
import StoreCore
import StoreEngine

/// Keeps a session in the storefront as a scenario (`storefront --record-scenario FILE`, and `W` for
/// the session so far): every customer action and tester control as its step, in `CommandTable`'s
/// words (the one vocabulary), the store time that passed at a fast time rate as `advance DURATION`
/// (store time, not wall time: the replay does not wait), and at the end the checks that describe
/// the state reached, so `storefront run FILE` replays the session and tells when it ends elsewhere.
actor SessionRecorder {
    let path: String
    let catalog: Catalog
    let catalogPath: String
    let store: LocalAppStore
    let manager: StoreManager
    /// What the session opened with beyond the catalog (`--storefront`, `--time-rate`), as steps.
    private let opening: [String]
    /// One entry per command, in the order they started; a command still running has none yet.
    private var steps: [Int: [String]] = [:]
    private var next = 0
    /// The store time the steps so far account for.
    private var accounted: Date?

    init(path: String, catalogPath: String, catalog: Catalog, store: LocalAppStore, manager: StoreManager, opening: [StoreCommand]) async {
        self.path = path
        self.catalogPath = catalogPath
        self.catalog = catalog
        self.store = store
        self.manager = manager
        var notes = opening.compactMap(CommandTable.line)
        let held = await store.ledgerEntries(limit: 1).count
        if held > 0 { notes.insert("# The session began on a store that already held transactions: the replay starts without them.", at: 0) }
        self.opening = notes
        accounted = await store.now()
    }

    /// Performs a command and keeps it as its step (or, when it failed, as a comment saying why).
    func record(_ command: StoreCommand, _ perform: @Sendable () async throws -> CommandOutcome) async throws -> CommandOutcome {
        let slot = next
        next += 1
        let passed = await timePassed()
        let resolved = await resolve(command)
        do {
            let outcome = try await perform()
            steps[slot] = passed + [await line(await settled(resolved))].compactMap { $0 }
            if command.movesClock { accounted = await store.now() }
            return outcome
        } catch {
            steps[slot] = passed + (CommandTable.line(resolved).map { ["# \($0)  (refused here: \(error))"] } ?? [])
            throw error
        }
    }

    /// Writes the scenario: the steps so far, then the checks of the state now. Returns how many steps.
    func save() async throws -> Int {
        let passed = await timePassed()
        steps[next] = passed
        next += 1
        let body = (0..<next).flatMap { steps[$0] ?? [] }
        // What the last step set off has reached the app (a loaded machine may take seconds): the checks describe where it ends.
        await store.tick()
        await ScenarioRunner.waitForTheApp(store, manager)
        await manager.refresh()
        let text = header() + opening + body + [""] + (await checks())
        try Data((text.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        return body.filter { !$0.hasPrefix("#") }.count
    }

    private func header() -> [String] {
        let date = Date().formatted(.iso8601.year().month().day().time(includingFractionalSeconds: false))
        return ["# Session recorded in the storefront, \(date)",
                "# Replay: storefront run \(URL(fileURLWithPath: path).lastPathComponent)",
                "catalog " + Self.relative(catalogPath, from: URL(fileURLWithPath: path).deletingLastPathComponent().path), ""]
    }

    /// The checks that describe the state: entitlements, balances, subscription statuses, unfinished transactions.
    private func checks() async -> [String] {
        let s = await manager.snapshot
        var lines = ["# The state at the end of the session"]
        for product in catalog.products {
            if product.type == .consumable {
                lines.append("expect balance \(product.id) \(s.balances[product.id] ?? 0)")
            } else {
                lines.append("expect \(s.entitlements.contains(product.id) ? "" : "not ")entitled \(product.id)")
            }
        }
        for group in catalog.subscriptionGroups {
            lines.append("expect status \(group.id) \(s.effectiveStatus(group: group.id)?.state.rawValue ?? "none")")
        }
        lines.append("expect unfinished \(await store.unfinishedTransactions().count)")
        return lines
    }

    /// The store time that passed since the last step at a fast time rate, as a step; none at real time,
    /// where a session's minutes change nothing a replay could tell.
    private func timePassed() async -> [String] {
        let now = await store.now()
        defer { accounted = now }
        guard let accounted, await store.settings().timeRate != .realTime else { return [] }
        let ms = Int64((now.timeIntervalSince(accounted) * 1000).rounded())
        guard ms > 0 else { return [] }
        return [CommandTable.line(.elapse(.milliseconds(ms)))].compactMap { $0 }
    }

    /// The command as a scenario names it: a transaction by its product, a signature the store makes.
    private func resolve(_ command: StoreCommand) async -> StoreCommand {
        func product(_ id: Int64) async -> String? { await store.ledgerEntries().first { $0.id == id }?.payload.productID }
        switch command {
        case .control(let control, .id(let id)):
            guard let product = await product(id) else { return command }
            return .control(control, .newest(productID: product))
        case .requestRefund(.id(let id), let reason):
            guard let product = await product(id) else { return command }
            return .requestRefund(.newest(productID: product), reason: reason)
        case .buy(let id, let quantity, let offer, .given, let askToBuy, let plan, let token, let eligibility, let answer):
            return .buy(id, quantity: quantity, offer: offer, signature: .valid, askToBuy: askToBuy, plan: plan, appAccountToken: token,
                        introEligibility: eligibility, answer: answer)
        default: return command
        }
    }

    /// What a relative command came to, once done: a switch flipped to on or off, a version picked.
    private func settled(_ command: StoreCommand) async -> StoreCommand {
        switch command {
        case .toggle(let setting): return .set(setting, await store.settings()[keyPath: setting.keyPath])
        case .originalApp(nil, let platform, let date):
            let version = await manager.snapshot.appTransaction?.payload?.originalAppVersion
            return .originalApp(version: version, platform: platform, date: date)
        default: return command
        }
    }

    /// Its step; a question to the store (what to offer before a cancel) is none, and what has no step says so.
    private func line(_ command: StoreCommand) -> String? {
        if case .retentionOffer = command { return nil }
        return CommandTable.line(command) ?? "# not a scenario step: \(command)"
    }

    /// `path` relative to `directory`, as a scenario's `catalog` line is read.
    static func relative(_ path: String, from directory: String) -> String {
        let target = URL(fileURLWithPath: path).standardizedFileURL.pathComponents
        let base = URL(fileURLWithPath: directory).standardizedFileURL.pathComponents
        let shared = zip(target, base).prefix { $0 == $1 }.count
        guard shared > 1 else { return URL(fileURLWithPath: path).standardizedFileURL.path }
        return (Array(repeating: "..", count: base.count - shared) + target[shared...]).joined(separator: "/")
    }
}

extension StoreCommand {
    /// Commands after which the store clock stands somewhere else than time alone would have taken it.
    var movesClock: Bool {
        switch self {
        case .advance, .elapse, .reset: true
        default: false
        }
    }
}
