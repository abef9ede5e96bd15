import TerminalUI

/// The storefront with a scenario beside it (`storefront walk` and `demo`): the app's state wrapped
/// with the walk's. The walk takes its own keys and events and hands the rest to the app's `reduce`;
/// the app sees only the `Layering` the walk asks of it. Reads of the app's state pass through.
@dynamicMemberLookup
struct WalkthroughState: LoopModel {
    var app: AppState
    var walk: WalkState { didSet { app.layering = walk.layering } }

    init(app: AppState, walk: WalkState) {
        self.app = app
        self.walk = walk
        self.app.layering = walk.layering
    }

    subscript<T>(dynamicMember path: WritableKeyPath<AppState, T>) -> T {
        get { app[keyPath: path] }
        set { app[keyPath: path] = newValue }
    }

    subscript<T>(dynamicMember path: KeyPath<AppState, T>) -> T { app[keyPath: path] }

    mutating func update(_ input: LoopInput<WalkEvent>) -> [WalkthroughEffect] { reduce(&self, input) }

    func view(size: Size) -> Canvas { render(self, size: size) }
}

typealias WalkthroughEffect = LoopEffect<WalkEffect>
typealias WalkthroughInput = LoopInput<WalkEvent>

extension LoopInput where Message == WalkEvent {
    static func walk(_ event: WalkEvent) -> Self { .message(event) }
}

extension LoopEffect where Work == WalkEffect {
    static func walk(_ work: WalkEffect) -> Self { .own(work) }
}

extension Action {
    static func walk(_ action: WalkAction) -> Action { .layer(action.rawValue) }
}

extension WalkState {
    /// What the walk asks of the app: its keys and the room for the checklist and caption.
    var layering: Layering {
        // A demo handed over keeps only the checklist's toggle: its steps are played.
        let keys = isDemo ? KeyMap.demo : wasDemo ? KeyMap.walk.filter { $0.action == .walk(.togglePanel) } : KeyMap.walk
        return Layering(bindings: keys, drives: isDemo, content: { [self] in WalkPanel.layout($0, self, sheetShown: $1).content })
    }
}

/// The screen with the checklist (and a demo's caption) in the room the walk took, under the sheets.
func render(_ state: WalkthroughState, size: Size) -> Canvas {
    render(state.app, size: size) { area, canvas in
        let layout = WalkPanel.layout(area, state.walk, sheetShown: state.app.top != nil)
        if let panel = layout.panel { WalkPanel.draw(state.walk, in: panel, on: &canvas) }
        if let caption = layout.caption { WalkPanel.drawCaption(state.walk, in: caption, on: &canvas) }
    }
}
