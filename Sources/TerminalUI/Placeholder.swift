// TerminalUI
