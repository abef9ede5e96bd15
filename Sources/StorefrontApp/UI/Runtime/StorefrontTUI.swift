import Foundation
import StoreClient
import StoreCore
import StoreEngine
import StoreServer
import TerminalUI

/// The interactive storefront: wires the store, the terminal and the pure reduce/render loop.
@MainActor
enum StorefrontTUI {
    /// With a scenario: `walk` / `demo`, on the scenario's catalog and, unless --state, a fresh in-memory store.
    static func run(options: CommandLineOptions, scenario: Scenario? = nil) async throws -> Int32 {
        try Terminal.checkCanStart()  // before the store opens: nothing is touched when the storefront cannot run
        let context = try StoreContext.resolve(options, catalogPath: scenario?.catalogPath)
        let catalogPath = scenario?.catalogPath ?? options.catalogPath ?? "catalog.json"
        let stateDir = options.statePath ?? (options.ephemeral || scenario != nil ? nil : StateDirectory.defaultPath(forCatalogAt: catalogPath))
        let stack = try await StoreStack.open(catalog: context.catalog, stateDirectory: stateDir, ledger: try StoreContext.ledger(options),
                                              storefront: context.storefront.code, locale: context.locale, historyAfterFirstFrame: true)
        let (store, manager) = (stack.store, stack.manager)
        do { try await StoreContext.applyOverrides(options, to: store) } catch { await stack.close(); throw error }
        // Notifications go to the backend beside the UI, never in its way.
        let notifier = NotificationDispatcher(store: store)
        await notifier.start()
        var walk: WalkSession?
        if let scenario {
            walk = await WalkSession(scenario: scenario, catalog: context.catalog, catalogPath: catalogPath, store: store, manager: manager, options: options)
        }
        let status: Int32
        do { status = try await runTerminal(context: context, store: store, manager: manager, options: options, walk: walk) } catch {
            await notifier.stop()
            await stack.close()
            throw error
        }
        await notifier.stop()
        await stack.close()
        return status
    }

    private static func runTerminal(context: StoreContext, store: LocalAppStore, manager: StoreManager,
                                    options: CommandLineOptions, walk: WalkSession?) async throws -> Int32 {
        let colorMode = options.noColor ? ColorMode.monochrome
            : ColorMode.detect(environment: ProcessInfo.processInfo.environment, arguments: CommandLine.arguments)
        if let term = ProcessInfo.processInfo.environment["TERM"], !term.isEmpty, !Terminal.canAddressCursor(term: term) {
            throw UsageError(description: "TERM=\(term) cannot move the cursor, which the storefront's screens need: "
                + "run it in a full terminal (e.g. TERM=xterm-256color), or script it without one: storefront run FILE")
        }
        let terminal = try Terminal.start(colorMode: colorMode, mouse: !options.noMouse)
        defer { terminal.stop() }
        let recorder = try options.recordPath.map {
            try AsciicastRecorder(path: $0, size: terminal.size, colorMode: colorMode, title: "Storefront: \(context.catalog.app.name)")
        }
        defer { recorder?.close() }  // what the terminal shows is what the recording gets
        let state = await AppState.opening(context.catalog, manager: manager, controls: store, ledgerAfterFirstFrame: true)
        if let walk {
            let layered = WalkthroughState(app: state, walk: walk.initialState)
            return await play(StorefrontLoop(backend: terminal, store: store, manager: manager, state: layered, companion: walk), recorder)
        }
        return await play(StorefrontLoop(backend: terminal, store: store, manager: manager, state: state), recorder)
    }

    private static func play<Model: LoopModel>(_ loop: StorefrontLoop<Model>, _ recorder: AsciicastRecorder?) async -> Int32 {
        loop.onFrame = { recorder?.record($0) }
        let (ticks, clock) = StorefrontLoop<Model>.quarterSeconds()
        defer { clock.cancel() }
        return await loop.run(ticks: ticks)
    }
}
