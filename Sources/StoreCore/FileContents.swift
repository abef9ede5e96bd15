import Foundation

/// Reads a file a person named, and says plainly what is wrong when it can't. Only regular files
/// and standard input are read, and at most `sizeLimit` bytes of them: `/dev/zero`, `/dev/urandom`
/// or a FIFO named by mistake would otherwise hang or eat all memory.
public enum FileContents {
    public struct Problem: Error, Equatable, CustomStringConvertible {
        public var description: String
    }

    public static let sizeLimit = 64 << 20
    /// The path that names standard input, and what messages call it.
    public static let standardInputPath = "-", standardInputName = "standard input"
    static let sizeLimitWords = "64 MB"

    /// `-` is standard input, as for every command-line tool.
    public static func read(_ path: String) throws(Problem) -> Data {
        if path == standardInputPath { return try readStandardInput() }
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw Problem(description: errno == ENOENT || errno == ENOTDIR ? "no such file" : "cannot read the file (\(String(cString: strerror(errno))))")
        }
        if kind(info) == "directory" { throw Problem(description: "is a directory, not a file") }
        // /dev/stdin (or /proc/self/fd/0) names standard input, whatever it is: `--catalog /dev/stdin < file`.
        if let kind = kind(info), !isStandardInput(info) {
            throw Problem(description: "is a \(kind), not a regular file (name a file, or give it on standard input)")
        }
        // O_NONBLOCK: opening a FIFO that replaced the file since `stat` must not wait for a writer.
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw Problem(description: "cannot read the file (check its permissions)") }
        defer { close(fd) }
        return try readAll(fd, what: "the file")
    }

    /// Standard input (`-`), with the same limit.
    public static func readStandardInput() throws(Problem) -> Data {
        var info = stat()
        guard fstat(0, &info) == 0 else { throw Problem(description: "standard input is closed") }
        // A file of no type is an anonymous inode (an eventfd, an epoll) the process opened itself after its
        // standard input was closed: libdispatch's eventfd never becomes readable, and waiting on it hung.
        guard info.st_mode & S_IFMT != 0 else { throw Problem(description: "cannot read standard input: is it closed?") }
        if kind(info) == "directory" { throw Problem(description: "standard input is a directory, not a file") }
        return try readAll(0, what: "standard input")
    }

    /// The file as UTF-8 text.
    public static func text(_ path: String) throws(Problem) -> String {
        guard let text = String(data: try read(path), encoding: .utf8) else { throw Problem(description: "not UTF-8 text") }
        return text
    }

    private static func readAll(_ fd: Int32, what: String) throws(Problem) -> Data {
        // A regular file is read straight into data of its size: appending 64 KB at a time copied a
        // large catalog over and over as the data grew. What it has beyond that size is appended.
        var info = stat()
        let size = fstat(fd, &info) == 0 && info.st_mode & S_IFMT == S_IFREG ? min(Int(info.st_size), sizeLimit + 1) : 0
        var data = Data(count: size), filled = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let inPlace = filled < data.count
            let count = inPlace
                ? data.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + filled, $0.count - filled) }
                : buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count == 0 {
                data.count = filled  // the file may have shrunk since
                return data
            }
            if count < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN { var poll = pollfd(fd: fd, events: Int16(POLLIN), revents: 0); _ = Glibc.poll(&poll, 1, -1); continue }
                let problem = switch errno {
                    case EISDIR: "\(what) is a directory, not a file"
                    // A closed standard input's descriptor may since have been taken by something unreadable.
                    case EBADF, EINVAL: "cannot read \(what): is it closed?"
                    default: "cannot read \(what) (\(String(cString: strerror(errno))))"
                }
                throw Problem(description: problem)
            }
            if !inPlace { buffer.withUnsafeBufferPointer { data.append($0.baseAddress!, count: count) } }
            filled += count
            if filled > sizeLimit { throw Problem(description: "\(what) is larger than \(sizeLimitWords), the most Storefront reads") }
        }
    }

    /// What a file is when it is neither a regular file nor a directory's absence: nil for a regular file.
    private static func kind(_ info: stat) -> String? {
        switch info.st_mode & S_IFMT {
        case S_IFREG: nil
        case S_IFDIR: "directory"
        case S_IFCHR: "character device"
        case S_IFBLK: "block device"
        case S_IFIFO: "FIFO (named pipe)"
        case S_IFSOCK: "socket"
        default: "special file"
        }
    }

    private static func isStandardInput(_ info: stat) -> Bool {
        var input = stat()
        return fstat(0, &input) == 0 && input.st_dev == info.st_dev && input.st_ino == info.st_ino
    }
}
