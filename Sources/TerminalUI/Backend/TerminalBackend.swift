/// Where a run loop draws and reads keys: the ncurses `Terminal`, or a `MemoryTerminal` that runs
/// the same loop in-process in tests (ratatui's `TestBackend`).
@MainActor
public protocol TerminalBackend: AnyObject {
    /// The size in cells, updated when `readKeys` returns `.resize`.
    var size: Size { get }
    /// Yields when keys may be waiting; then call `readKeys()`. Finishes when input is closed.
    nonisolated var inputReady: AsyncStream<Void> { get }
    /// The signal (SIGINT, SIGTERM, SIGHUP) that asked the program to end, if one did.
    var terminationSignal: Int32? { get }
    /// Shows `canvas`.
    func draw(_ canvas: Canvas)
    /// Every key waiting, without blocking. A resize appears as `.resize` after `size` was updated.
    func readKeys() -> [Key]
    /// Gives the terminal back. Safe to call more than once.
    func stop()
}

extension Terminal: TerminalBackend {}
