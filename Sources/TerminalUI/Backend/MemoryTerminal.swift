/// A terminal in memory: what the loop drew last is `screen`, and a test types keys, clicks and
/// resizes it as a person would a real one. Input arrives as ncurses hands it over: one wake-up per
/// burst, read with `readKeys()`.
@MainActor
public final class MemoryTerminal: TerminalBackend {
    /// What a person did at the terminal, waiting to be read.
    private enum Input {
        case key(Key)
        /// A mouse button going up: ncurses reads it and reports nothing (a click is its press).
        case release(x: Int, y: Int)
        case resize(Size)
    }

    public private(set) var size: Size
    public nonisolated let inputReady: AsyncStream<Void>
    public var terminationSignal: Int32?
    /// The last canvas drawn; blank before the first frame.
    public private(set) var screen: Canvas
    /// How many frames were drawn.
    public private(set) var frames = 0
    public private(set) var isStopped = false
    private let wake: AsyncStream<Void>.Continuation
    private var waiting: [Input] = []

    public init(size: Size) {
        self.size = size
        screen = Canvas(width: size.width, height: size.height)
        (inputReady, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// The screen as lines of text.
    public var text: String { screen.text }

    public func type(_ keys: Key...) { send(keys.map(Input.key)) }

    public func type(_ text: String) { send(text.map { Input.key(.character($0)) }) }

    /// Button 1 pressed and released at a cell (0-based), as two bursts of input.
    public func click(x: Int, y: Int) {
        send([.key(.mouse(Mouse(.click, x: x, y: y)))])
        send([.release(x: x, y: y)])
    }

    public func resize(to size: Size) { send([.resize(size)]) }

    /// The window closed: input ends.
    public func hangUp() { wake.finish() }

    private func send(_ input: [Input]) {
        waiting += input
        wake.yield()
    }

    public func draw(_ canvas: Canvas) {
        guard !isStopped else { return }
        screen = canvas
        frames += 1
    }

    public func readKeys() -> [Key] {
        defer { waiting.removeAll() }
        return waiting.compactMap { input in
            switch input {
            case .key(let key): return key
            case .release: return nil
            case .resize(let new): size = new; return .resize
            }
        }
    }

    public func stop() {
        isStopped = true
        wake.finish()
    }
}
