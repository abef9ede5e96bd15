/// Why a catalog could not be loaded: names the file, then the line and column (syntax) or the
/// path of the offending field (`subscriptionGroups[0].subscriptions[2].period`), then what is wrong.
public struct CatalogError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Location: Equatable, Sendable {
        case file
        case position(line: Int, column: Int)
        case field(String)
    }

    public var file: String
    public var location: Location
    public var message: String

    public init(file: String, location: Location, message: String) {
        self.file = file
        self.location = location
        self.message = message
    }

    public var description: String {
        switch location {
        case .file: "\(file): \(message)"
        case .position(let line, let column): "\(file):\(line):\(column): \(message)"
        case .field(let path): "\(file): \(path): \(message)"
        }
    }
}
