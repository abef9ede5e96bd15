import Foundation
import StoreClient
import StoreCore
import StoreEngine
import StoreServer
import TerminalUI

/// A layer around the storefront (the walk, see `WalkCommand`), opened once the store is up: how it
/// wraps the app's first state, and what rides along the loop with it.
typealias StorefrontLayer<Model: LoopModel> = @MainActor (_ context: StoreContext, _ catalogPath: String, LocalAppStore, StoreManager) async
    -> (wrap: (AppState) -> Model, companion: (any LoopCompanion<Model>)?)

/// The interactive storefront: wires the store, the terminal and the pure reduce/render loop.
@MainActor
enum StorefrontTUI {
    static func run(options: CommandLineOptions) async throws -> Int32 {
        if let path = options.scenarioPath { try OutputFile.check(path, option: "--record-scenario") }  // before anything opens: exit 2, nothing touched
        // A paywall that cannot open is said before the terminal is taken (the catalog's warnings come once, later).
        let paywall = try options.paywall.map { try paywallGroup(named: $0, in: CatalogLoader.load(path: options.catalogPath ?? "catalog.json")) }
        // A recorded session starts from the catalog, as its replay does.
        return try await run(options: options, layerCatalog: nil, fresh: options.scenarioPath != nil) { _, _, _, _ in
            ({ state in
                var state = state
                state.paywallStyle = options.paywallStyle ?? state.paywallStyle
                if let paywall { state.sheets.append(.paywall(PaywallSheet(groupID: paywall, style: state.paywallStyle))) }
                return state
            }, nil)
        }
    }

    /// `--paywall GROUP`: the group's ID, found by ID, reference name or localized name; else an error naming the groups there are.
    static func paywallGroup(named name: String, in catalog: Catalog) throws -> String {
        if let group = catalog.group(named: name) { return group.id }
        let known = catalog.subscriptionGroups.map { "\($0.id) (\($0.referenceName))" }
        throw UsageError(description: known.isEmpty ? "--paywall: this catalog has no subscription groups to sell"
                            : "--paywall: unknown subscription group '\(name)' (this catalog has: \(known.joined(separator: ", ")))")
    }

    /// With a layer: on its own catalog when it has one (a scenario's), and, when `fresh`, a new
    /// in-memory store unless --state.
    static func run<Model: LoopModel>(options: CommandLineOptions, layerCatalog: String?, fresh: Bool,
                                      layer: StorefrontLayer<Model>) async throws -> Int32 {
        try Terminal.checkCanStart()  // before the store opens: nothing is touched when the storefront cannot run
        let context = try StoreContext.resolve(options, catalogPath: layerCatalog)
        let catalogPath = layerCatalog ?? options.catalogPath ?? options.statePath.flatMap(StateDirectory.rememberedCatalog) ?? "catalog.json"
        let stateDir = options.statePath ?? (options.ephemeral || fresh ? nil : StateDirectory.defaultPath(forCatalogAt: catalogPath))
        let stack = try await StoreStack.open(catalog: context.catalog, stateDirectory: stateDir, ledger: try StoreContext.ledger(options),
                                              storefront: context.storefront.code, locale: context.locale, historyAfterFirstFrame: true)
        let (store, manager) = (stack.store, stack.manager)
        if let stateDir { StateDirectory.remember(catalog: catalogPath, in: stateDir) }
        do { try await StoreContext.applyOverrides(options, to: store) } catch { await stack.close(); throw error }
        // Notifications go to the backend beside the UI, never in its way.
        let notifier = NotificationDispatcher(store: store)
        await notifier.start()
        let opened = await layer(context, catalogPath, store, manager)
        let recorder = await recorder(options, context: context, catalogPath: catalogPath, store: store, manager: manager)
        let status: Int32
        do {
            status = try await runTerminal(context: context, store: store, manager: manager, options: options, layer: opened, recorder: recorder)
        } catch {
            await notifier.stop()
            await stack.close()
            throw error
        }
        if let recorder {
            do { Console.error("storefront: kept the session (\(try await recorder.save()) steps) in \(recorder.path); replay it with storefront run \(recorder.path)") }
            catch { Console.error("storefront: cannot write \(recorder.path): \((error as NSError).localizedDescription)") }
        }
        await notifier.stop()
        await stack.close()
        return status
    }

    /// The session recorder for `--record-scenario`, with what the command line set beyond the catalog as its first steps.
    private static func recorder(_ options: CommandLineOptions, context: StoreContext, catalogPath: String, store: LocalAppStore,
                                 manager: StoreManager) async -> SessionRecorder? {
        guard let path = options.scenarioPath else { return nil }
        var opening: [StoreCommand] = []
        if options.storefront != nil || options.locale != nil {
            opening.append(.storefront(context.storefront.code, locale: options.locale == nil ? nil : context.locale))
        }
        if let rate = options.timeRate.flatMap(TimeRate.init(name:)) { opening.append(.timeRate(rate)) }
        return await SessionRecorder(path: path, catalogPath: catalogPath, catalog: context.catalog, store: store, manager: manager, opening: opening)
    }

    private static func runTerminal<Model: LoopModel>(context: StoreContext, store: LocalAppStore, manager: StoreManager, options: CommandLineOptions,
                                                      layer: (wrap: (AppState) -> Model, companion: (any LoopCompanion<Model>)?),
                                                      recorder: SessionRecorder?) async throws -> Int32 {
        let colorMode = options.noColor ? ColorMode.monochrome
            : ColorMode.detect(environment: ProcessInfo.processInfo.environment, arguments: CommandLine.arguments)
        if let term = ProcessInfo.processInfo.environment["TERM"], !term.isEmpty, !Terminal.canAddressCursor(term: term) {
            throw UsageError(description: "TERM=\(term) cannot move the cursor, which the storefront's screens need: "
                + "run it in a full terminal (e.g. TERM=xterm-256color), or script it without one: storefront run FILE")
        }
        let terminal = try Terminal.start(colorMode: colorMode, mouse: !options.noMouse)
        defer { terminal.stop() }
        let cast = try options.recordPath.map {
            try AsciicastRecorder(path: $0, size: terminal.size, colorMode: colorMode, title: "Storefront: \(context.catalog.app.name)")
        }
        defer { cast?.close() }  // what the terminal shows is what the recording gets
        var state = await AppState.opening(context.catalog, manager: manager, controls: store, ledgerAfterFirstFrame: true)
        state.recordsScenario = recorder != nil
        let loop = StorefrontLoop(backend: terminal, store: store, manager: manager, state: layer.wrap(state), companion: layer.companion, recorder: recorder)
        loop.onFrame = { cast?.record($0) }
        let (ticks, clock) = StorefrontLoop<Model>.quarterSeconds()
        defer { clock.cancel() }
        return await loop.run(ticks: ticks)
    }
}
