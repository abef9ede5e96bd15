/// What rides along the run loop (the walk and the demo, see `WalkSession`): it starts beside the
/// loop, performs the effects that are its own, hears each effect's answer before the reducer does,
/// sees every event after it is reduced, and closes with the loop. The loop knows no more of it.
@MainActor
protocol LoopCompanion: AnyObject {
    /// Starts its own work; `send` feeds events into the loop. The task is the loop's to cancel.
    func start(send: @escaping @Sendable (Event) -> Void) -> Task<Void, Never>
    /// Whether `effect` is its own, performed now (the loop then runs nothing for it).
    func perform(_ effect: Effect, _ state: AppState) -> Bool
    /// An effect's answer, before the reducer sees it.
    func heard(_ outcome: CommandOutcome) async
    /// Called after every event is reduced.
    func observe(_ event: Event, _ state: AppState)
    func close(_ state: AppState)
}
