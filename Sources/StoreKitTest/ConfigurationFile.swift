import Foundation
import StoreKit

extension SKTestSession {
    /// Xcode's time rates: how fast subscriptions renew in the test environment.
    public enum TimeRate: Int, Sendable {
        case realTime = 0
        @available(*, deprecated) case oneHourIsOneDay = 1
        @available(*, deprecated) case thirtyMinutesIsOneDay = 2
        @available(*, deprecated) case fiveMinutesIsOneDay = 3
        @available(*, deprecated) case oneMinuteIsOneDay = 4
        @available(*, deprecated) case thirtySecondsIsOneDay = 5
        @available(*, deprecated) case oneSecondIsOneDay = 6
        case monthlyRenewalEveryHour = 10, monthlyRenewalEveryThirtyMinutes = 11
        case monthlyRenewalEveryFifteenMinutes = 12, monthlyRenewalEveryFiveMinutes = 13
        case monthlyRenewalEveryThirtySeconds = 15
        case oneRenewalEveryFifteenMinutes = 1000, oneRenewalEveryFiveMinutes = 1001, oneRenewalEveryMinute = 1002
        case oneRenewalEveryThirtySeconds = 1003, oneRenewalEveryTenSeconds = 1004, oneRenewalEveryTwoSeconds = 1005
    }
}

/// Where `SKTestSession(configurationFileNamed:)` looks for a file: Xcode looks in the app's bundle; here,
/// the resource bundles beside the running test binary, then the current directory and the folders under it.
enum ConfigurationFile {
    static func find(_ name: String) throws -> URL {
        let names = (name as NSString).pathExtension.isEmpty ? [name + ".storekit", name + ".json", name] : [name]
        let places = resourceDirectories() + [FileManager.default.currentDirectoryPath]
        for place in places {
            for candidate in names where FileManager.default.fileExists(atPath: place + "/" + candidate) {
                return URL(fileURLWithPath: place + "/" + candidate)
            }
        }
        if let found = search(under: FileManager.default.currentDirectoryPath, for: Set(names), depth: 4) { return URL(fileURLWithPath: found) }
        throw SKTestError(.fileNotFound, "no configuration file named \(names.joined(separator: " or ")) in \(places.joined(separator: ", ")) "
            + "or the folders under the current directory: add it to the test target's resources (.copy(\"\(names[0])\")) or use SKTestSession(contentsOf:)")
    }

    /// The `*.resources` bundles SwiftPM builds beside the test binary.
    private static func resourceDirectories() -> [String] {
        let binary = URL(fileURLWithPath: CommandLine.arguments.first ?? ".").deletingLastPathComponent()
        let directories = [Bundle.main.bundleURL, binary] + [Bundle.main.bundleURL, binary].map { $0.deletingLastPathComponent() }
        return Set(directories.map(\.path)).sorted().flatMap { directory in
            ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
                .filter { $0.hasSuffix(".resources") || $0.hasSuffix(".bundle") }.sorted().map { directory + "/" + $0 }
        }
    }

    /// A file with one of `names` under `directory`, leaving out hidden and build folders.
    private static func search(under directory: String, for names: Set<String>, depth: Int) -> String? {
        guard depth > 0, let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return nil }
        for entry in entries.sorted() where names.contains(entry) { return directory + "/" + entry }
        for entry in entries.sorted() where !entry.hasPrefix(".") && entry != "Build" {
            var isDirectory: ObjCBool = false
            let path = directory + "/" + entry
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue,
               let found = search(under: path, for: names, depth: depth - 1) { return found }
        }
        return nil
    }
}
