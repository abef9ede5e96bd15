import Foundation

/// Reads a file a person named, and says plainly what is wrong when it can't.
public enum FileContents {
    public struct Problem: Error, Equatable, CustomStringConvertible {
        public var description: String
    }

    public static func read(_ path: String) throws(Problem) -> Data {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { throw Problem(description: "no such file") }
        guard !isDirectory.boolValue else { throw Problem(description: "is a directory, not a file") }
        // A FileHandle also reads what `contents(atPath:)` refuses, such as /dev/stdin or a pipe.
        guard let handle = FileHandle(forReadingAtPath: path), let data = try? handle.readToEnd() ?? Data() else {
            throw Problem(description: "cannot read the file (check its permissions)")
        }
        return data
    }

    /// The file as UTF-8 text.
    public static func text(_ path: String) throws(Problem) -> String {
        guard let text = String(data: try read(path), encoding: .utf8) else { throw Problem(description: "not UTF-8 text") }
        return text
    }
}
