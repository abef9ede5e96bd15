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

    @Test("a device that is not a regular file still reads")
    func devices() throws {
        #expect(try FileContents.read("/dev/null").isEmpty)
    }
}
