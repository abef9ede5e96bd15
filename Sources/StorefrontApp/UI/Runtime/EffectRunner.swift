import Foundation
import StoreClient
import StoreCore
import StoreEngine

/// Runs effects and reports back as events. Store commands go to the one `CommandPerformer`, which
/// reaches the app side through `StoreManager` and the store's side through `StoreTestControls`.
struct EffectRunner: Sendable {
    let performer: CommandPerformer

    init(manager: StoreManager, controls: any StoreTestControls) {
        performer = CommandPerformer(manager: manager, controls: controls)
    }

    func run(_ effect: Effect) async -> EffectOutcome {
        switch effect {
        case .command(let command):
            do {
                switch try await performer.perform(command) {
                case .purchase(let id, let result): return .purchase(productID: id, result)
                case .redeem(let code, let failure): return .redeem(code: code, failure)
                case .done(let message): return .done(message)
                case .refused(let message, _): return .failed(message)
                }
            } catch let error as StoreFailure {
                return .failed(error.message)
            } catch {
                return .failed("\(error)")
            }
        case .writeFile(let path, let contents):
            do {
                try Data(contents.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
                return .done("Wrote \(path)")
            } catch {
                return .failed("Cannot write \(path): \((error as NSError).localizedDescription)")
            }
        case .quit:
            return .done("Bye")
        case .walk:
            return .done("")  // the run loop hands these to the WalkSession
        }
    }
}
