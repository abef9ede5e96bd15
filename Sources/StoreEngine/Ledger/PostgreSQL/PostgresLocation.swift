import Foundation

/// A PostgreSQL ledger's address as given (`postgresql://user:password@host:port/db`, or any
/// libpq URL), and as messages name it: without the password.
public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    public let url: String

    /// nil when `text` is not a PostgreSQL URL.
    public init?(_ text: String) {
        guard text.hasPrefix("postgresql://") || text.hasPrefix("postgres://") else { return nil }
        url = text
    }

    /// The URL without its password (in the user part or a `password=` parameter).
    public var description: String {
        guard var parts = URLComponents(string: url) else { return url.prefix { $0 != "@" && $0 != "?" } + "…" }
        if parts.password != nil { parts.password = nil }
        parts.queryItems = parts.queryItems?.filter { $0.name != "password" }
        if parts.queryItems?.isEmpty == true { parts.queryItems = nil }
        return parts.string ?? url
    }
}
