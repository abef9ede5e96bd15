/// Frames of a one-cell activity spinner, advanced by a tick count from the app's clock.
public enum Spinner {
    public static let braille: [String] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
    /// For terminals without Unicode fonts.
    public static let ascii: [String] = ["|", "/", "-", "\\"]

    public static func frame(_ tick: Int, frames: [String] = braille) -> String {
        frames[((tick % frames.count) + frames.count) % frames.count]
    }
}
