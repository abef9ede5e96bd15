import Foundation
import StorefrontTestSupport
import Testing
@testable import StorefrontApp

/// Seen at the QA desk: `storefront notifications --state DIR` failed with `catalog.json: no such
/// file` unless given `--catalog`, which its usage did not mention.
@Suite struct SavedStoreCatalogTests {
    func storefront(_ arguments: [String], in folder: String) throws -> (status: Int32, errors: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Repo.storefrontBinary)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = Pipe()
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    @Test("notifications --state DIR reads the catalog the state directory was made with, or says to pass --catalog")
    func notificationsNeedsNoCatalogOnceTheStateKnowsIt() throws {
        let folder = NSTemporaryDirectory() + "saved-store-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let state = folder + "/state"
        let unknown = try storefront(["notifications", "--state", state], in: folder)
        #expect(unknown.status == 2 && unknown.errors.contains("--catalog FILE"), "\(unknown.errors)")
        #expect(try storefront(["export", "--state", state, "--catalog", Repo.catalogPath], in: folder).status == 0)
        let known = try storefront(["notifications", "--state", state], in: folder)
        #expect(known.status == 0, "\(known.errors)")
        #expect(CommandLineParser.helpText(for: .notifications).contains("--catalog FILE"))
    }
}
