/// Client-supplied text made safe for a log line: anyone who reaches the port chooses a request's
/// path and a token's claims, and must not move the cursor, recolour the terminal or start a line
/// of their own (a forged `GET … → 200`).
public enum LogText {
    /// Control and format characters (C0, C1 with ESC and CSI, bidirectional overrides, line
    /// separators) as `\u{…}`; text longer than `limit` characters is cut with `…`.
    public static func escaped(_ text: some StringProtocol, limit: Int = 300) -> String {
        var result = ""
        for (count, scalar) in text.unicodeScalars.enumerated() {
            if count == limit { result += "…"; break }
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned:
                result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default:
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
