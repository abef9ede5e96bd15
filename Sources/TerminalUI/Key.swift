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
        }
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
