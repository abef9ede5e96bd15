import CNcursesW

/// Key sequences terminals send whatever `TERM` says. ncurses decodes only the ones in the
/// terminal description, but tmux and screen send `Esc [ 1 ~` / `Esc [ 4 ~` for Home/End even when
/// `TERM=xterm` (whose entry says `Esc O H` / `Esc O F`), the Linux console and rxvt have their
/// own, and xterm switches between `Esc [` and `Esc O` with its cursor-key mode. Teaching ncurses
/// all of them makes those keys work under any of these `TERM`s.
enum KeySequences {
    static let common: [(String, Int32)] = [
        ("\u{1B}[A", KEY_UP), ("\u{1B}[B", KEY_DOWN), ("\u{1B}[C", KEY_RIGHT), ("\u{1B}[D", KEY_LEFT),
        ("\u{1B}OA", KEY_UP), ("\u{1B}OB", KEY_DOWN), ("\u{1B}OC", KEY_RIGHT), ("\u{1B}OD", KEY_LEFT),
        ("\u{1B}[H", KEY_HOME), ("\u{1B}[F", KEY_END), ("\u{1B}OH", KEY_HOME), ("\u{1B}OF", KEY_END),
        ("\u{1B}[1~", KEY_HOME), ("\u{1B}[4~", KEY_END), ("\u{1B}[7~", KEY_HOME), ("\u{1B}[8~", KEY_END),
        ("\u{1B}[5~", KEY_PPAGE), ("\u{1B}[6~", KEY_NPAGE), ("\u{1B}[3~", KEY_DC), ("\u{1B}[Z", KEY_BTAB),
    ]

    /// Call after `keypad(window, true)`.
    static func defineCommon() {
        for (sequence, code) in common where key_defined(sequence) != code {
            define_key(sequence, code)
        }
    }
}
