import Testing

/// Suites that take the process's signal handlers (`TerminalRestore`), one at a time: a terminal's
/// `stop()` uninstalling them while another test waits for its own SIGTERM would let the default
/// action end the whole test process (seen: the run ended mid-line).
@Suite(.serialized) enum SignalHandlerSuites {}
