import Foundation
import StoreClient
import StoreCore
import StoreEngine
import TerminalUI

/// Everything that can change the state: input, time, and what the store tells us.
enum Event: Sendable {
    /// Keys may be waiting: the loop reads them on the main actor and feeds `.key`s.
    case inputReady
    case key(Key)
    case resize(Size)
    case tick
    /// The store clock, about once a second, when nothing else changed (see `IdleRefresh`).
    case clock(Date)
    case snapshot(StoreSnapshot)
    case appEvent(AppEvent)
    case qaData(TestSettings, [LedgerEntry])
    case notifications([StoreNotification])
    case finished(EffectOutcome)
    case walk(WalkEvent)
}

/// How an effect ended, for the status line or a result sheet.
enum EffectOutcome: Sendable {
    case purchase(productID: String, PurchaseResult)
    case redeem(code: String, StoreFailure?)
    case done(String)
    case failed(String)
}

/// Work for the effect runner: the only way the reducer reaches the store.
enum Effect: Sendable, Equatable {
    /// What the customer or the tester does, carried out by the one `CommandPerformer`.
    case command(StoreCommand)
    case walk(WalkEffect)
    /// Saves text the person asked for (a transaction's signed token) in the current directory.
    case writeFile(path: String, contents: String)
    case quit
}
