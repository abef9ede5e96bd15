/// What rides along the run loop beside a layer (the walk and the demo, see `WalkSession`): it starts
/// beside the loop, performs the layer's own effects, hears each effect's answer before the reducer
/// does, sees every input after it is reduced, and closes with the loop. The loop knows no more of it.
@MainActor
protocol LoopCompanion<Model>: AnyObject {
    associatedtype Model: LoopModel
    /// Starts its own work; `send` feeds the layer's events into the loop. The task is the loop's to cancel.
    func start(send: @escaping @Sendable (Model.Message) -> Void) -> Task<Void, Never>
    /// Performs one of the layer's own effects.
    func perform(_ work: Model.Work, _ state: Model)
    /// An effect's answer, before the reducer sees it.
    func heard(_ outcome: CommandOutcome) async
    /// Called after every input is reduced.
    func observe(_ input: LoopInput<Model.Message>, _ state: Model)
    func close(_ state: Model)
}
