// Replaced by TerminalUI.DisplayWidth once merged.
enum TextWidth { static func of(_ s: String) -> Int { s.count } }
