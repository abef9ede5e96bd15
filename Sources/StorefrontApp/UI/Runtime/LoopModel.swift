import TerminalUI

/// What the run loop drives: the app's own state, or a layer wrapping it that takes what is its own
/// and hands the rest to the app's `reduce` (bubbletea's model wrapping a model, TCA's composed reducers).
protocol LoopModel: Sendable {
    /// The layer's own events, sent by its `LoopCompanion`.
    associatedtype Message: Sendable
    /// The layer's own effects, performed by its `LoopCompanion`.
    associatedtype Work: Sendable & Equatable
    var app: AppState { get set }
    mutating func update(_ input: LoopInput<Message>) -> [LoopEffect<Work>]
    func view(size: Size) -> Canvas
}

enum LoopInput<Message: Sendable>: Sendable {
    case event(Event)
    case message(Message)
}

enum LoopEffect<Work: Sendable & Equatable>: Sendable, Equatable {
    case app(Effect)
    case own(Work)
}

/// The plain storefront: no layer.
extension AppState: LoopModel {
    var app: AppState {
        get { self }
        set { self = newValue }
    }

    mutating func update(_ input: LoopInput<Never>) -> [LoopEffect<Never>] {
        guard case .event(let event) = input else { return [] }
        return reduce(&self, event).map(LoopEffect.app)
    }

    func view(size: Size) -> Canvas { render(self, size: size) }
}
