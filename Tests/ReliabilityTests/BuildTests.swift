import Foundation
import Testing
import StorefrontTestSupport

@Suite("The binaries the tests drive")
struct BuildTests {
    /// Thread Sanitizer's runtime is linked into every instrumented executable.
    static func isThreadSanitized(_ binary: String) throws -> Bool {
        try Data(contentsOf: URL(fileURLWithPath: binary), options: .alwaysMapped).range(of: Data("__tsan_init".utf8)) != nil
    }

    /// Under `swift test --sanitize=thread` the crash, exit and hostile-input tests must drive
    /// instrumented binaries, or the sanitizer never sees the code they exercise.
    @Test("The binaries the tests run are built like the tests: same build, same sanitizer")
    func binariesMatchTheTests() throws {
        let testsAreSanitized = dlsym(nil, "__tsan_init") != nil
        for binary in [Repo.storefrontBinary, Repo.crashWorkerBinary] {
            #expect(FileManager.default.isExecutableFile(atPath: binary), "\(binary) is missing: build before testing")
            guard FileManager.default.isExecutableFile(atPath: binary) else { continue }
            #expect(try Self.isThreadSanitized(binary) == testsAreSanitized,
                    "\(binary) is \(testsAreSanitized ? "not " : "")built with Thread Sanitizer, the tests are\(testsAreSanitized ? "" : " not"): rebuild with `swift build --build-tests\(testsAreSanitized ? " --sanitize=thread" : "")`")
        }
    }
}
