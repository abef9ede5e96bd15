import TerminalUI

/// What a status means, told by colour as well as by its words: colour only underlines, since
/// `NO_COLOR`, `--no-color` and monochrome terminals drop it and the words must still say it all.
enum Meaning: Sendable {
    /// Owned, subscribed, active; an offer the customer can take.
    case good
    /// Waiting on someone: approval, an interrupted purchase, billing retry, a refund request.
    case waiting
    /// Taken back or refused: revoked, declined, unverified, failed.
    case bad

    var style: Style {
        switch self {
        case .good: Style(foreground: .green)
        case .waiting: Style(foreground: .yellow)
        case .bad: Style(foreground: .red, bold: true)
        }
    }

    /// The meaning of a transaction status as the History screen and the QA panel word it.
    static func of(status: String) -> Meaning? {
        if ["revoked", "declined", "unverified", "refund declined"].contains(where: status.hasPrefix) { return .bad }
        if ["pending approval", "interrupted", "refund requested"].contains(where: status.hasPrefix) { return .waiting }
        return nil
    }
}
