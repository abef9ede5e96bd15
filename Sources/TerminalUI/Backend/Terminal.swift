import CNcursesW
import Foundation

/// The ncurses backend: owns the terminal from `start` to `stop`, draws canvases by writing
/// only the cells that changed, and reads keys. ncurses is not thread-safe, so everything
/// here runs on the main actor; only `inputReady` comes from another thread.
///
/// A run loop (render and reduce are the app's pure functions):
///
///     let terminal = try Terminal.start(colorMode: .detect(
///         environment: ProcessInfo.processInfo.environment, arguments: CommandLine.arguments))
///     defer { terminal.stop() }
///     terminal.draw(render(state, terminal.size))
///     for await _ in terminal.inputReady {          // or merged with the app's own events
///         for key in terminal.readKeys() {
///             if key == .control("c") { return }     // raw mode: Ctrl-C is a key
///             reduce(&state, .key(key))               // .resize: re-render at terminal.size
///         }
///         terminal.draw(render(state, terminal.size))
///     }
///
/// To wait for keys and other events together, forward `inputReady` into the app's own
/// event stream from a task and call `readKeys()` on the main actor when it arrives.
/// Esc followed quickly by a key (Alt-key) arrives as `.escape` then the key.
/// As in a cooked terminal, Ctrl-Z suspends (`readKeys` returns `.resize` after `fg`, to repaint).
@MainActor
public final class Terminal {
    public enum StartError: Error, Equatable, CustomStringConvertible {
        /// `newterm` failed, e.g. unknown `TERM`.
        case cannotOpenTerminal(term: String)
        case alreadyActive
        /// Standard input or output is a file, a pipe or /dev/null: curses would spin on it.
        case notATerminal(stream: String)
        case noTerminalType

        public var description: String {
            switch self {
            case .cannotOpenTerminal(let term):
                "unknown terminal type '\(term)' (TERM has no terminfo entry here): try TERM=xterm-256color"
            case .alreadyActive: "the terminal is already in use by this program"
            case .notATerminal(let stream):
                "the storefront needs a terminal, and \(stream) is not one (to run scenarios without a terminal: storefront run FILE)"
            case .noTerminalType: "TERM is not set: set it to your terminal's type, e.g. TERM=xterm-256color"
            }
        }
    }

    /// Why the terminal cannot be taken over, checked before anything else starts: standard input
    /// and output must be a terminal, and TERM must name one.
    public nonisolated static func checkCanStart(environment: [String: String] = ProcessInfo.processInfo.environment) throws(StartError) {
        if (environment["TERM"] ?? "").isEmpty { throw .noTerminalType }
        if isatty(0) == 0 { throw .notATerminal(stream: "standard input") }
        if isatty(1) == 0 { throw .notATerminal(stream: "standard output") }
    }

    /// The terminal's size in cells, updated when `readKeys` sees a resize.
    public private(set) var size: Size
    /// The mode in effect: the requested one, downgraded when the terminal has no colours.
    public let colorMode: ColorMode
    /// Yields when keys may be waiting (or the window changed size); then call `readKeys()`.
    /// Finishes when input is closed.
    public nonisolated let inputReady: AsyncStream<Void>

    private let screen: OpaquePointer
    private let window: UnsafeMutablePointer<WINDOW>
    private let watcher: InputWatcher
    private let usesDefaultColors: Bool
    /// The environment's locale is not UTF-8 (`LANG=C`): draw ASCII look-alikes.
    private let asciiOnly: Bool
    private var colorPairs: [ColorPairKey: Int16] = [:]
    private var previous: Canvas?
    /// The last style's attributes and pair: runs of one style follow each other.
    private var lastAttributes: (style: Style, attributes: attr_t, pair: Int16)?
    private var stopped = false

    private struct ColorPairKey: Hashable {
        var foreground: Color?
        var background: Color?
    }

    /// Takes over the terminal.
    /// - Parameters:
    ///   - colorMode: usually `ColorMode.detect(environment:arguments:)`.
    ///   - mouse: report clicks and the wheel as `.mouse` keys.
    ///   - input, output: the terminal's streams; default stdin/stdout. A benchmark can pass
    ///     a pseudo-terminal's streams to count the bytes drawing writes.
    public static func start(colorMode: ColorMode, mouse: Bool = false, input: UnsafeMutablePointer<FILE>? = nil,
                             output: UnsafeMutablePointer<FILE>? = nil) throws -> Terminal {
        guard !cursesActive.load(ordering: .sequentiallyConsistent) else { throw StartError.alreadyActive }
        let asciiOnly = !setUTF8Locale()
        if input == nil && output == nil { try checkCanStart() }
        let input = input ?? shim_stdin()!
        let output = output ?? shim_stdout()!
        // newterm rather than initscr: same set-up, but reports failure instead of exiting.
        guard let screen = newterm(nil, output, input) else {
            throw StartError.cannotOpenTerminal(term: ProcessInfo.processInfo.environment["TERM"] ?? "")
        }
        set_term(screen)
        // A frame in one write: until its screen has once been left and entered again, ncurses 6.4
        // flushes after every cursor movement (strace: a frame after a purchase went out in 80
        // writes, 5 ms under strace; after this, in one). Done before anything is drawn or set.
        endwin()
        doupdate()
        cursesActive.store(true, ordering: .sequentiallyConsistent)
        TerminalRestore.install()
        return Terminal(screen: screen, colorMode: colorMode, mouse: mouse, asciiOnly: asciiOnly,
                        inputFD: fileno(input), outputFD: fileno(output))
    }

    private init(screen: OpaquePointer, colorMode: ColorMode, mouse: Bool, asciiOnly: Bool, inputFD: Int32, outputFD: Int32) {
        self.screen = screen
        self.asciiOnly = asciiOnly
        window = shim_stdscr()
        raw()  // Ctrl-C arrives as a key (the app decides to quit); readKeys suspends on Ctrl-Z
        noecho()
        nonl()
        keypad(window, true)
        KeySequences.defineCommon()
        if mouse {
            mouseinterval(0)  // a press is a click at once, not after waiting for a double click
            // Every button event, though only presses are used: ncurses, handed an event the mask
            // leaves out (a click's release), drops it and goes back to a blocking read inside
            // `wget_wch`, nodelay or not, and the loop stalls until the next key.
            mousemask(shim_ALL_MOUSE_EVENTS(), nil)
        }
        JobControl.ignoreQuit()
        nodelay(window, true)
        // No typeahead check (a poll of the input every five lines of an update, which abandons the
        // update when a key waits): the loop reads keys itself and draws the whole frame after them.
        typeahead(-1)
        set_escdelay(25)  // the default 1 s makes Esc feel broken
        curs_set(0)
        if colorMode == .color && has_colors() {
            start_color()
            usesDefaultColors = use_default_colors() == OK
            self.colorMode = .color
        } else {
            usesDefaultColors = false
            self.colorMode = .monochrome
        }
        size = Size(width: Int(getmaxx(window)), height: Int(getmaxy(window)))
        watcher = InputWatcher(inputFD: inputFD, outputFD: outputFD, wakeFD: TerminalRestore.wakeDescriptors.read)
        inputReady = watcher.stream
        watcher.saw(size)
        watcher.start()
    }

    /// `setlocale` must run before curses starts or UTF-8 prints as garbage; a non-UTF-8
    /// environment locale (LANG unset, LANG=C) falls back to C.UTF-8. Returns whether the
    /// environment's locale was UTF-8.
    private static func setUTF8Locale() -> Bool {
        let name = setlocale(LC_ALL, "").map { String(cString: $0) } ?? ""
        let lower = name.lowercased()
        let isUTF8 = lower.contains("utf-8") || lower.contains("utf8")
        if !isUTF8 { setlocale(LC_ALL, "C.UTF-8") }
        return isUTF8
    }

    /// Draws `canvas`, writing only the cells that differ from the last drawn one (everything
    /// after a resize or `invalidate()`). Cells beyond the terminal's size are clipped.
    public func draw(_ canvas: Canvas) {
        guard !stopped else { return }
        if previous == nil { werase(window) }
        let spans = canvas.changedSpans(from: previous)
        var ascii: [CChar] = []
        ascii.reserveCapacity(canvas.width)
        canvas.cells.withUnsafeBufferPointer { cells in
            for span in spans where span.y < size.height {
                let row = span.y * canvas.width
                let end = row + min(span.x + span.count, size.width)
                var i = row + span.x
                while i < end {
                    // Printable ASCII of one style goes out as one string: a cell at a time, a full-screen
                    // change (the payment sheet closing) took a millisecond to write.
                    if let byte = Self.printableASCII(cells[i]) {
                        let style = cells[i].style
                        ascii.removeAll(keepingCapacity: true)
                        ascii.append(CChar(byte))
                        var next = i + 1
                        while next < end, cells[next].style == style, let byte = Self.printableASCII(cells[next]) {
                            ascii.append(CChar(byte))
                            next += 1
                        }
                        let (attributes, pair) = attributes(style)
                        wattr_set(window, attributes, pair, nil)
                        // Errors only at the bottom-right corner, where the cursor cannot advance: harmless.
                        mvwaddnstr(window, Int32(span.y), Int32(i - row), ascii, Int32(ascii.count))
                        // Back to none: ncurses adds the window's attributes to every cell written after, wide ones too.
                        wattr_set(window, attr_t(A_NORMAL), 0, nil)
                        i = next
                    } else {
                        if !cells[i].isContinuation { write(cells[i], x: i - row, y: span.y) }
                        i += 1
                    }
                }
            }
        }
        wnoutrefresh(window)
        doupdate()
        previous = canvas
    }

    /// Forgets what is on screen: the next `draw` clears and repaints everything
    /// (use after something else wrote to the terminal).
    public func invalidate() {
        previous = nil
        clearok(window, true)
    }

    /// The signal (SIGINT, SIGTERM, SIGHUP) that asked the program to end, if one did: the run loop
    /// should return, letting `stop()` give the terminal back, and exit with 128 + the signal.
    /// `inputReady` yields when one arrives.
    public var terminationSignal: Int32? {
        let signal = TerminalRestore.pendingTermination.load(ordering: .sequentiallyConsistent)
        return signal == 0 ? nil : signal
    }

    /// Every key waiting, without blocking. A resize appears as `.resize` after `size` was updated.
    public func readKeys() -> [Key] {
        guard !stopped else { return [] }
        var batch: [KeyDecoder.Raw] = []
        var value: wint_t = 0
        while true {
            let status = wget_wch(window, &value)
            if status == ERR { break }
            if status == KEY_CODE_YES && Int32(value) == KEY_MOUSE {
                var event = MEVENT()
                if getmouse(&event) == OK, let mouse = KeyDecoder.mouse(buttons: event.bstate, x: event.x, y: event.y) {
                    batch.append(.mouse(mouse))
                }
                continue
            }
            batch.append(KeyDecoder.Raw(status: status, value: UInt32(value)))
        }
        watcher.drained()
        var keys: [Key] = []
        for key in KeyDecoder.decode(batch) {
            switch key {
            case .control("z"):
                JobControl.suspend()
                invalidate()
                fallthrough  // the window may have changed while stopped: repaint at its size
            case .resize:
                size = Size(width: Int(getmaxx(window)), height: Int(getmaxy(window)))
                watcher.saw(size)
                previous = nil
                keys.append(.resize)
            default: keys.append(key)
            }
        }
        return keys
    }

    /// Gives the terminal back (endwin). Safe to call more than once.
    public func stop() {
        guard !stopped else { return }
        stopped = true
        watcher.stop()
        JobControl.restoreQuit()
        restoreTerminal()
        TerminalRestore.uninstall()
        delscreen(screen)
    }

    // MARK: Writing cells

    private func write(_ cell: Cell, x: Int, y: Int) {
        let (attributes, pair) = attributes(cell.style)
        let text = asciiOnly ? ASCIIFallback.text(cell.text) : cell.text
        // A cchar_t holds a base character and a few combining ones; longer clusters are cut.
        var characters = text.unicodeScalars.prefix(Int(CCHARW_MAX)).map { wchar_t(bitPattern: $0.value) }
        characters.append(0)
        var cc = cchar_t()
        setcchar(&cc, characters, attributes, pair, nil)
        // Errors only at the bottom-right corner, where the cursor cannot advance: harmless.
        mvwadd_wch(window, Int32(y), Int32(x), &cc)
    }

    /// A cell's one printable ASCII character (which needs no fallback), if that is what it holds.
    private static func printableASCII(_ cell: borrowing Cell) -> UInt8? {
        guard !cell.isContinuation, cell.text.utf8.count == 1, let byte = cell.text.utf8.first, (0x20..<0x7F).contains(byte) else { return nil }
        return byte
    }

    /// The ncurses attributes and colour pair that draw `style`.
    private func attributes(_ style: Style) -> (attr_t, Int16) {
        if let last = lastAttributes, last.style == style { return (last.attributes, last.pair) }
        let (attributes, pair) = resolvedAttributes(style)
        lastAttributes = (style, attributes, pair)
        return (attributes, pair)
    }

    private func resolvedAttributes(_ style: Style) -> (attr_t, Int16) {
        let style = style.resolved(for: colorMode)
        var attributes = attr_t(A_NORMAL)
        if style.bold { attributes |= shim_A_BOLD() }
        if style.dim { attributes |= shim_A_DIM() }
        if style.reverse { attributes |= shim_A_REVERSE() }
        if style.underline { attributes |= shim_A_UNDERLINE() }
        return (attributes, colorPair(style))
    }

    /// A colour pair for the style's colours, allocated on first use; pair 0 (the terminal's
    /// colours) when colours are off, not wanted, or all pairs are taken.
    private func colorPair(_ style: Style) -> Int16 {
        guard colorMode == .color, style.foreground != nil || style.background != nil else { return 0 }
        let key = ColorPairKey(foreground: style.foreground, background: style.background)
        if let pair = colorPairs[key] { return pair }
        let pair = Int16(colorPairs.count + 1)
        guard Int32(pair) < shim_COLOR_PAIRS() else { return 0 }
        let defaultForeground: Int16 = usesDefaultColors ? -1 : Color.white.rawValue
        let defaultBackground: Int16 = usesDefaultColors ? -1 : Color.black.rawValue
        init_pair(pair, style.foreground?.rawValue ?? defaultForeground, style.background?.rawValue ?? defaultBackground)
        colorPairs[key] = pair
        return pair
    }
}
