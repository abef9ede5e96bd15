import CNcursesW
import Foundation

/// What a cooked terminal does for a program, done by hand because raw mode turns it off:
/// Ctrl-Z suspends (the shell's `fg` resumes), and a stray SIGQUIT (`kill -QUIT`) cannot
/// end the program with the terminal left raw.
enum JobControl {
    /// The SIGQUIT action before `ignoreQuit`; touched on the main actor only.
    nonisolated(unsafe) private static var previousQuit = sigaction()

    @MainActor
    static func ignoreQuit() {
        var ignore = sigaction()
        ignore.__sigaction_handler.sa_handler = SIG_IGN
        sigaction(SIGQUIT, &ignore, &previousQuit)
    }

    @MainActor
    static func restoreQuit() {
        sigaction(SIGQUIT, &previousQuit, nil)
    }

    /// Gives the terminal back and stops, as Ctrl-Z does in a shell; returns when continued
    /// (`fg`), with curses owning the terminal again from the next refresh.
    @MainActor
    static func suspend() {
        restoreTerminal()
        // SIGSTOP, not SIGTSTP: this thread may block SIGTSTP (Dispatch's threads block most
        // signals), and ncurses' own SIGTSTP handler would run on another thread. SIGSTOP stops
        // the whole process; the shell reports the job stopped and `fg` continues it.
        // raise, not kill(getpid()): a signal sent to the process may be taken by another,
        // sleeping thread, and this one would go on and repaint before the stop (seen in tmux).
        // Sent to this thread, the stop happens before raise returns.
        raise(SIGSTOP)
        cursesActive.store(true, ordering: .sequentiallyConsistent)
    }
}

extension Terminal {
    /// Whether terminals of type `term` can move the cursor (terminfo `cup`), which drawing a
    /// screen needs: `TERM=dumb` cannot, and curses would leave it blank. An unknown type counts
    /// as able: `start` reports that one.
    public nonisolated static func canAddressCursor(term: String) -> Bool {
        shim_can_address_cursor(term) != 0
    }
}
