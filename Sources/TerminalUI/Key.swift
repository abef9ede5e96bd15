import CNcursesW

/// A key press, independent of ncurses.
public enum Key: Hashable, Sendable {
    case character(Character)
    case up, down, left, right
    case enter, escape, tab, backTab, backspace, delete
    case home, end, pageUp, pageDown
    case function(Int)
    /// Ctrl plus a letter or symbol, lowercased: Ctrl-C is `.control("c")`.
    case control(Character)
    /// The terminal changed size; the backend has already updated its `size`.
    case resize
    /// A click or a wheel turn at a cell (0-based), when the mouse is on.
    case mouse(Mouse)

    /// A short name for key hints and help text: "↑", "Enter", "Ctrl-C", "F1", "q".
    public var name: String {
        switch self {
        case .character(" "): "Space"
        case .character(let c): String(c)
        case .up: "↑"
        case .down: "↓"
        case .left: "←"
        case .right: "→"
        case .enter: "Enter"
        case .escape: "Esc"
        case .tab: "Tab"
        case .backTab: "Shift-Tab"
        case .backspace: "Backspace"
        case .delete: "Del"
        case .home: "Home"
        case .end: "End"
        case .pageUp: "PgUp"
        case .pageDown: "PgDn"
        case .function(let n): "F\(n)"
        case .control(let c): "Ctrl-\(c.uppercased())"
        case .resize: "Resize"
        case .mouse(let m): m.kind == .click ? "Click" : "Wheel"
        }
    }
}

/// A mouse event: where, and what the button or wheel did.
public struct Mouse: Hashable, Sendable {
    public enum Kind: Hashable, Sendable { case click, wheelUp, wheelDown }
    public var kind: Kind
    public var x: Int
    public var y: Int

    public init(_ kind: Kind, x: Int, y: Int) {
        self.kind = kind
        self.x = x
        self.y = y
    }
}

/// Turns `get_wch` results into keys. Pure, so the table is tested without a terminal.
public enum KeyDecoder {
    /// - Parameters:
    ///   - status: what `get_wch` returned: `OK` for a character, `KEY_CODE_YES` for a key code.
    ///   - value: the wide character or key code it stored.
    /// - Returns: the key, or nil for `ERR`, mouse events and codes this toolkit ignores.
    public static func decode(status: Int32, value: UInt32) -> Key? {
        switch status {
        case KEY_CODE_YES: return decodeKeyCode(Int32(bitPattern: value))
        case OK: return decodeCharacter(value)
        default: return nil
        }
    }

    /// One `get_wch` result: its status and the value it stored.
    public struct Raw: Equatable, Sendable {
        public var status: Int32
        public var value: UInt32
        /// The report `getmouse` read for a `KEY_MOUSE`.
        public var mouse: Mouse?
        public init(status: Int32, value: UInt32, mouse: Mouse? = nil) {
            self.status = status
            self.value = value
            self.mouse = mouse
        }
        public static func character(_ c: Unicode.Scalar) -> Raw { Raw(status: OK, value: c.value) }
        public static func code(_ code: Int32) -> Raw { Raw(status: KEY_CODE_YES, value: UInt32(bitPattern: code)) }
        public static func mouse(_ mouse: Mouse) -> Raw { Raw(status: KEY_CODE_YES, value: UInt32(bitPattern: KEY_MOUSE), mouse: mouse) }
    }

    /// Decodes a batch of `get_wch` results. An escape sequence ncurses did not recognise
    /// (a key the terminal description lacks) arrives as Esc, `[`, `4`, `~`: it is swallowed
    /// whole rather than replayed as keys, so an unknown key never closes a sheet or jumps screens.
    public static func decode(_ batch: [Raw]) -> [Key] {
        var keys: [Key] = []
        var i = 0
        while i < batch.count {
            if let length = unknownSequenceLength(batch[i...]) { i += length; continue }
            if let mouse = batch[i].mouse { keys.append(.mouse(mouse)) }
            else if let key = decode(status: batch[i].status, value: batch[i].value) { keys.append(key) }
            i += 1
        }
        return keys
    }

    /// The length of a CSI (`Esc [ params final`) or SS3 (`Esc O x`) sequence starting here, if one does.
    static func unknownSequenceLength(_ raw: ArraySlice<Raw>) -> Int? {
        func character(_ i: Int) -> UInt32? {
            let index = raw.startIndex + i
            return index < raw.endIndex && raw[index].status == OK ? raw[index].value : nil
        }
        guard character(0) == 27, let introducer = character(1) else { return nil }
        switch introducer {
        case 0x4F:  // O: one final character
            return character(2) == nil ? 2 : 3
        case 0x5B:  // [: parameter and intermediate bytes (0x20–0x3F), then a final byte (0x40–0x7E)
            var n = 2
            while let c = character(n), (0x20...0x3F).contains(c) { n += 1 }
            if let c = character(n), (0x40...0x7E).contains(c) { n += 1 }
            return n
        default:
            return nil
        }
    }

    /// A mouse report from `getmouse`: button 1 pressed is a click, buttons 4 and 5 the wheel.
    public static func mouse(buttons: mmask_t, x: Int32, y: Int32) -> Mouse? {
        let kind: Mouse.Kind
        if buttons & shim_BUTTON1_PRESSED() != 0 { kind = .click }
        else if buttons & shim_BUTTON4_PRESSED() != 0 { kind = .wheelUp }
        else if buttons & shim_BUTTON5_PRESSED() != 0 { kind = .wheelDown }
        else { return nil }
        return Mouse(kind, x: Int(x), y: Int(y))
    }

    static func decodeCharacter(_ value: UInt32) -> Key? {
        switch value {
        case 10, 13: return .enter
        case 27: return .escape
        case 9: return .tab
        case 8, 127: return .backspace
        case 0: return .control(" ")  // Ctrl-Space / Ctrl-@
        case 1...26: return .control(Character(Unicode.Scalar(UInt8(96 + value))))
        case 28...31: return .control(Character(Unicode.Scalar(UInt8(64 + value))))  // Ctrl-\ ] ^ _
        default:
            guard let scalar = Unicode.Scalar(value) else { return nil }
            return .character(Character(scalar))
        }
    }

    static func decodeKeyCode(_ code: Int32) -> Key? {
        switch code {
        case KEY_UP: return .up
        case KEY_DOWN: return .down
        case KEY_LEFT: return .left
        case KEY_RIGHT: return .right
        case KEY_ENTER: return .enter
        case KEY_BACKSPACE: return .backspace
        case KEY_DC: return .delete
        case KEY_HOME: return .home
        case KEY_END: return .end
        case KEY_PPAGE: return .pageUp
        case KEY_NPAGE: return .pageDown
        case KEY_BTAB: return .backTab
        case KEY_RESIZE: return .resize
        case shim_KEY_F(1)...shim_KEY_F(63): return .function(Int(code - shim_KEY_F(0)))
        default: return nil  // KEY_MOUSE and the rest are ignored
        }
    }
}
