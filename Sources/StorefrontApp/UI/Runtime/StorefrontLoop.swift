import Foundation
import StoreClient
import StoreCore
import StoreEngine
import TerminalUI

/// The storefront's run loop, over any terminal backend: keys, ticks, store events and the effects'
/// replies in, one frame out per batch. It counts the effects in flight itself and reads the store
/// only for what an effect or a store event says changed, once (see `StoreReader`). The ncurses
/// `Terminal` in the program; a `MemoryTerminal` runs this same loop in tests.
@MainActor
final class StorefrontLoop<Model: LoopModel> {
    /// What the loop waits on.
    private enum Input: Sendable {
        case event(Event)
        /// What one read of the store found: one frame for all of it.
        case read([Event])
        /// The layer's own, from its companion.
        case message(Model.Message)
        /// An effect's own event: one fewer in flight.
        case reply(Event)
        /// The frame held back for an effect's reply is due (see `holdFrame`).
        case frameDue
    }

    let backend: any TerminalBackend
    let reader: StoreReader
    let runner: EffectRunner
    /// Rides along beside a layer.
    let companion: (any LoopCompanion<Model>)?
    /// Each frame, as drawn (a recording takes them).
    var onFrame: (Canvas) -> Void = { _ in }
    /// How long the frame after starting an effect waits for its reply: a quick answer (most are)
    /// draws once, the outcome, not a spinner frame and then the outcome (twice the drawing on the
    /// way to it); a slow one shows its spinner before anyone could notice a pause.
    var effectFrameDelay: Duration = .milliseconds(40)
    private(set) var state: Model
    private let sink: AsyncStream<Input>.Continuation
    private let inputs: AsyncStream<Input>
    private var tasks: [Task<Void, Never>] = []
    /// Says when the frame held for an effect's reply is due; none while no frame is held.
    private var heldFrame: Task<Void, Never>?

    init(backend: any TerminalBackend, store: LocalAppStore, manager: StoreManager, state: Model, companion: (any LoopCompanion<Model>)? = nil,
         recorder: SessionRecorder? = nil) {
        self.backend = backend
        reader = StoreReader(store: store, manager: manager)
        runner = EffectRunner(manager: manager, controls: store, recorder: recorder)
        self.companion = companion
        self.state = state
        self.state.app.size = backend.size
        (inputs, sink) = AsyncStream<Input>.makeStream()
    }

    /// Runs until quit or until input closes; the exit status (128 + a terminating signal).
    /// - Parameter ticks: a quarter second each in the program (the store's clock and the spinner).
    func run(ticks: AsyncStream<Void>) async -> Int32 {
        defer { (tasks + [heldFrame].compactMap { $0 }).forEach { $0.cancel() }; companion?.close(state) }
        let (backend, reader, sink) = (backend, reader, sink)
        // Input ends when the terminal hangs up (the window closed): end the loop, don't spin on.
        // Forwarded off the main actor: one hop to the loop, not two.
        let inputReady = backend.inputReady
        tasks.append(Task.detached { for await _ in inputReady { sink.yield(.event(.inputReady)) }; sink.finish() })
        tasks.append(Task {
            for await event in await reader.manager.events() where !event.answersACall {
                if !event.toldByTheStore { sink.yield(.event(.appEvent(event))) }
                sink.yield(.read(await reader.read(.all)))
            }
        })
        if let companion { tasks.append(companion.start(send: { sink.yield(.message($0)) })) }
        show()
        tasks.append(Task {
            // What the first frame did without: the history (verifying it was most of a launch), the
            // QA panel's ledger and the notifications (the newest 300 of each, decoded).
            await reader.manager.loadHistory()
            sink.yield(.read(await reader.read(.all)))
            await Self.follow(ticks, reader: reader, sink: sink)
        })
        for await input in inputs {
            let batch: [LoopInput<Model.Message>]
            let started = state.app.inFlight
            switch input {
            case .reply(let event):
                if case .finished(let outcome) = event { await companion?.heard(outcome) }
                state.app.inFlight -= 1
                batch = [.event(event)]
            case .frameDue:
                if heldFrame != nil { show() }
                continue
            case .event(.inputReady):  // ncurses is read on the main actor only
                if let signal = backend.terminationSignal { return 128 + signal }
                batch = backend.readKeys().map { .event($0 == .resize ? Event.resize(backend.size) : Event.key($0)) }
            case .event(let event):
                batch = [.event(event)]
            case .read(let events):
                guard !events.isEmpty else { continue }
                batch = events.map { .event($0) }
            case .message(let message):
                batch = [.message(message)]
            }
            for input in batch {
                for effect in state.update(input) {
                    switch effect {
                    case .app(.quit): return 0
                    case .app(let effect): start(effect)
                    case .own(let work): companion?.perform(work, state)
                    }
                }
                companion?.observe(input, state)
                if state.app.shouldQuit { return 0 }
            }
            if state.app.inFlight > started {
                holdFrame()
            } else if state.app.inFlight > 0 || batch.contains(where: { if case .event(.tick) = $0 { false } else { true } }) {
                // A tick turns the spinner only: with none on the screen, drawing again would draw the same.
                show()
            }
        }
        return backend.terminationSignal.map { 128 + $0 } ?? 0  // input closed: a hang-up, say
    }

    private func show() {
        heldFrame?.cancel()
        heldFrame = nil
        let canvas = state.view(size: backend.size)
        backend.draw(canvas)
        onFrame(canvas)
    }

    /// Runs an effect beside the loop; its reply comes back as an input, then what it changed.
    private func start(_ effect: Effect) {
        state.app.inFlight += 1
        let (runner, reader, sink) = (runner, reader, sink)
        // Begun at once off the main actor: a task of its own would wait for the frame being drawn.
        Task.detached {
            let reply = await runner.run(effect)
            sink.yield(.reply(reply.event))  // straight to the loop: the companion hears it there
            sink.yield(.read(await reader.read(reply.changed) + [.storeSettled]))
        }
    }

    /// Draws the frame after an effect started only if its reply has not come within `effectFrameDelay`.
    private func holdFrame() {
        guard heldFrame == nil else { return }
        let (sink, delay) = (sink, effectFrameDelay)
        heldFrame = Task.detached {
            guard (try? await Task.sleep(for: delay)) != nil else { return }  // cancelled: the frame came first
            sink.yield(.frameDue)
        }
    }

    /// Ticks the store at each tick (renewals fall due on the store clock) and, every fourth, looks
    /// at what changed: everything, when the store must be read again; else the clock alone.
    /// Sending notifications happens beside the UI, and screen 6 follows it here.
    private static func follow(_ ticks: AsyncStream<Void>, reader: StoreReader, sink: AsyncStream<Input>.Continuation) async {
        var n = 0
        for await _ in ticks {
            await reader.store.tick()
            n += 1
            sink.yield(.event(.tick))
            guard n % 4 == 0 else { continue }
            sink.yield(.read(await reader.look()))
        }
    }

    /// A tick every quarter second, until cancelled.
    static func quarterSeconds() -> (AsyncStream<Void>, Task<Void, Never>) {
        let (ticks, tick) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let clock = Task {
            while (try? await Task.sleep(for: .milliseconds(250))) != nil { tick.yield() }
            tick.finish()
        }
        return (ticks, clock)
    }
}
