import Foundation
import StoreClient
import StoreCore
import StoreEngine

/// Runs effects and answers each with its own event and what it changed (bubbletea's `Cmd → Msg`,
/// gitui's `NeedsUpdate`). Store commands go to the one `CommandPerformer`, which reaches the app side
/// through `StoreManager` and the store's side through `StoreTestControls`.
struct EffectRunner: Sendable {
    let performer: CommandPerformer

    init(manager: StoreManager, controls: any StoreTestControls) {
        performer = CommandPerformer(manager: manager, controls: controls)
    }

    func run(_ effect: Effect) async -> Reply {
        switch effect {
        case .command(let command):
            do {
                return Reply(.finished(try await performer.perform(command)), changed: .all)
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
        case .quit:
            return Reply(.finished(.done("Bye")))
        }
    }
}
