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

    /// Ticks the store four times a second (renewals fall due on the store clock) and, about once a
    /// second, shows what changed: everything, when `IdleRefresh` says the store must be read again;
    /// else the clock alone. Sending notifications happens beside the UI, and screen 6 follows it here.
    private static func follow(store: LocalAppStore, manager: StoreManager, notifications: [StoreNotification],
                               sink: AsyncStream<Event>.Continuation) async {
        var refresh = IdleRefresh<LocalAppStore.ChangeVersion>()  // reads at the first look: the launch's version is not known
        var shownNotifications = notifications
        var n = 0
        while (try? await Task.sleep(for: .milliseconds(250))) != nil {
            await store.tick()
            n += 1
            sink.yield(.tick)
            guard n % 4 == 0 else { continue }
            let (version, now) = (await store.changeVersion(), await store.now())
            guard refresh.isDue(version, now: now) else {
                sink.yield(.clock(now))
                continue
            }
            await manager.refresh()
            let snapshot = await manager.snapshot
            refresh.read(at: version, giving: snapshot)
            sink.yield(.snapshot(snapshot))
            sink.yield(.qaData(await store.settings(), await store.ledgerEntries(limit: QAPanel.ledgerLimit)))
            let notifications = await store.recentNotifications(limit: NotificationsScreen.limit)
            if notifications != shownNotifications { shownNotifications = notifications; sink.yield(.notifications(notifications)) }
        }
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
        defer { recorder?.close() }
        /// What the terminal shows is what the recording gets.
        func show(_ canvas: Canvas) {
            terminal.draw(canvas)
            recorder?.record(canvas)
        }

        var state = await AppState.opening(context.catalog, manager: manager, controls: store, ledgerAfterFirstFrame: true)
        state.size = terminal.size
        state.walk = walk?.initialState
        defer { walk?.close(state) }

        let (events, sink) = AsyncStream<Event>.makeStream()
        let runner = EffectRunner(manager: manager, controls: store)
        var tasks: [Task<Void, Never>] = []
        // Input ends when the terminal hangs up (the window closed): end the loop, don't spin on.
        tasks.append(Task { for await _ in terminal.inputReady { sink.yield(.inputReady) }; sink.finish() })
        tasks.append(Task {
            for await event in await manager.events() {
                sink.yield(.appEvent(event))
                sink.yield(.snapshot(await manager.snapshot))
                sink.yield(.qaData(await store.settings(), await store.ledgerEntries(limit: QAPanel.ledgerLimit)))
            }
        })
        if let walk { tasks.append(walk.start(send: { sink.yield($0) })) }
        defer { tasks.forEach { $0.cancel() } }

        show(render(state, size: terminal.size))
        tasks.append(Task {
            // What the first frame did without: the history (verifying it was most of a launch), the
            // QA panel's ledger and the notifications (the newest 300 of each, decoded).
            await manager.loadHistory()
            sink.yield(.snapshot(await manager.snapshot))
            let notifications = await store.recentNotifications(limit: NotificationsScreen.limit)
            sink.yield(.notifications(notifications))
            sink.yield(.qaData(await store.settings(), await store.ledgerEntries(limit: QAPanel.ledgerLimit)))
            await follow(store: store, manager: manager, notifications: notifications, sink: sink)
        })
        for await event in events {
            var batch = [event]
            if case .inputReady = event {  // ncurses is read on the main actor only
                if let signal = terminal.terminationSignal { return 128 + signal }
                batch = terminal.readKeys().map { $0 == .resize ? Event.resize(terminal.size) : Event.key($0) }
            }
            for e in batch {
                for effect in reduce(&state, e) {
                    if effect == .quit { return 0 }
                    if case .walk(let w) = effect { walk?.run(w, state); continue }
                    Task {
                        let outcome = await runner.run(effect)
                        await walk?.record(outcome)
                        sink.yield(.finished(outcome))
                        sink.yield(.snapshot(await manager.snapshot))
                        sink.yield(.qaData(await store.settings(), await store.ledgerEntries(limit: QAPanel.ledgerLimit)))
                    }
                }
                walk?.observe(e, state)
                if state.shouldQuit { return 0 }
            }
            // A tick turns the spinner only: with none on the screen, drawing again would draw the same.
            if state.inFlight > 0 || batch.contains(where: { if case .tick = $0 { false } else { true } }) {
                show(render(state, size: terminal.size))
            }
        }
        return terminal.terminationSignal.map { 128 + $0 } ?? 0  // input closed: a hang-up, say
    }
}
