import Foundation
import StoreClient
import StoreCore
import StoreEngine

/// Runs effects and answers each with its own event and what it changed (bubbletea's `Cmd → Msg`,
/// gitui's `NeedsUpdate`). Store commands go to the one `CommandPerformer`, which reaches the app side
/// through `StoreManager` and the store's side through `StoreTestControls`.
struct EffectRunner: Sendable {
    let performer: CommandPerformer
    /// Keeps the session as a scenario, when the storefront records one.
    let recorder: SessionRecorder?

    init(manager: StoreManager, controls: any StoreTestControls, recorder: SessionRecorder? = nil) {
        performer = CommandPerformer(manager: manager, controls: controls)
        self.recorder = recorder
    }

    func run(_ effect: Effect) async -> Reply {
        switch effect {
        case .command(let command):
            do {
                let performer = performer
                let outcome = if let recorder { try await recorder.record(command) { try await performer.perform(command) } }
                    else { try await performer.perform(command) }
                return Reply(.finished(outcome), changed: .all)
            } catch let error as StoreFailure {
                return Reply(.failed(error.message), changed: .all)
            } catch {
                return Reply(.failed("\(error)"), changed: .all)
            }
        case .writeFile(let path, let contents):
            do {
                try Data(contents.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
                return Reply(.finished(.done("Wrote \(path)")))
            } catch {
                return Reply(.failed("Cannot write \(path): \((error as NSError).localizedDescription)"))
            }
        case .saveScenario:
            guard let recorder else { return Reply(.failed("Start the storefront with --record-scenario FILE to keep the session as a scenario")) }
            do {
                let count = try await recorder.save()
                return Reply(.finished(.done("Saved \(count) steps to \(recorder.path); storefront run replays it")))
            } catch {
                return Reply(.failed("Cannot write \(recorder.path): \((error as NSError).localizedDescription)"))
            }
        case .quit:
            return Reply(.finished(.done("Bye")))
        }
    }
}
