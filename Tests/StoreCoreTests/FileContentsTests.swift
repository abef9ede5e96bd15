import Foundation
import Testing
@testable import StoreCore

@Suite("Reading named files")
struct FileContentsTests {
    @Test("a missing file, a directory and text that isn't UTF-8 each get their own message")
    func problems() throws {
        let bad = NSTemporaryDirectory() + "latin1-\(UUID().uuidString).txt"
        try Data([0x63, 0x61, 0x66, 0xE9]).write(to: URL(fileURLWithPath: bad))  // "café" in Latin-1
        defer { try? FileManager.default.removeItem(atPath: bad) }
        #expect(throws: FileContents.Problem(description: "no such file")) { try FileContents.read("/nonexistent/file") }
        #expect(throws: FileContents.Problem(description: "is a directory, not a file")) { try FileContents.read(NSTemporaryDirectory()) }
        #expect(throws: FileContents.Problem(description: "not UTF-8 text")) { try FileContents.text(bad) }
        #expect(try FileContents.read(bad).count == 4)
    }

    @Test("Files a person names are read only if they are regular files: a device or a FIFO is refused, not read forever")
    func onlyRegularFiles() throws {
        #expect(throws: FileContents.Problem(description: "is a character device, not a regular file (name a file, or give it on standard input)")) {
            try FileContents.read("/dev/zero")
        }
        let fifo = NSTemporaryDirectory() + "fifo-\(UUID().uuidString)"
        #expect(mkfifo(fifo, 0o600) == 0)
        defer { try? FileManager.default.removeItem(atPath: fifo) }
        #expect(throws: FileContents.Problem(description: "is a FIFO (named pipe), not a regular file (name a file, or give it on standard input)")) {
            try FileContents.read(fifo)
        }
    }

    @Test("a regular file is read in one piece of its size, byte for byte, whatever its size", arguments: [0, 1, 65_535, 65_536, 65_537, 300_001])
    func wholeFiles(_ size: Int) throws {
        let path = NSTemporaryDirectory() + "whole-\(UUID().uuidString)"
        let bytes = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) })
        try bytes.write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try FileContents.read(path) == bytes)
    }

    @Test("Files a person names are read up to 64 MB, and the error says so")
    func sizeLimit() throws {
        let path = NSTemporaryDirectory() + "huge-\(UUID().uuidString).json"
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: UInt64(FileContents.sizeLimit) + 1)  // sparse: costs no disk
        try handle.close()
        #expect(throws: FileContents.Problem(description: "the file is larger than 64 MB, the most Storefront reads")) { try FileContents.read(path) }
        try FileHandle(forWritingAtPath: path)!.truncate(atOffset: UInt64(FileContents.sizeLimit))
        #expect(try FileContents.read(path).count == FileContents.sizeLimit)
    }
}
