import TerminalUI

/// What a layer around the app (the walk and the demo, see `UI/Walkthrough`) adds to it, as plain
/// values the app reads without knowing the layer: the layer sets them, the app's key table, footer,
/// help, mouse hit-testing and render take them into account like their own.
struct Layering: Sendable {
    /// Keys between the screen's and the global ones, when no sheet or filter has the keys.
    var bindings: [Binding] = []
    /// The layer plays the app itself (a demo): its keys are the whole table, and nothing unasked
    /// (a StoreKit message) comes in its way.
    var drives = false
    /// The part of the content area left to the app, given whether a sheet is up; the rest is the layer's to draw on.
    var content: @Sendable (_ area: Rect, _ sheetShown: Bool) -> Rect = { area, _ in area }
}
