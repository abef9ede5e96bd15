import Foundation
import StoreCore
import StoreEngine
import TerminalUI

/// The program: parses the command line and runs a command. Returns the exit status.
public enum StorefrontProgram {
    public static func main(_ arguments: [String]) async -> Int32 {
        let options: CommandLineOptions
        do {
            switch try CommandLineParser.parse(arguments) {
            case .help(let command): print(CommandLineParser.helpText(for: command)); return 0
            case .version: print("storefront \(CommandLineParser.version)"); return 0
            case .run(let parsed): options = parsed
            }
        } catch {
            Console.error("storefront: \(error.description)\nRun 'storefront --help' for usage.")
            return 2
        }
        do {
            switch options.command {
            case .catalog: return try CatalogCommand.run(options)
            case .verify: return try SigningCommands.verify(options)
            case .cert: return try SigningCommands.cert(options)
            case .apiKey: return try APIKeyCommand.run(options)
            case .iapKey: return try await InAppPurchaseKeyCommand.run(options)
            case .serve: return try await ServeCommand.run(options)
            case .export: return try await ExportCommand.run(options)
            case .notifications: return try await NotificationsCommand.run(options)
            case .run: return try await RunCommand.run(options)
            case .store: return try await StorefrontTUI.run(options: options)
            case .walk, .demo: return try await WalkCommand.run(options)
            }
        } catch let error as CatalogError {
            Console.error("storefront: \(error)")
            return 2
        } catch let error as UsageError {
            Console.error("storefront: \(error.description)")
            return 2
        } catch let error as LedgerError {
            Console.error("storefront: \(error.description)")
            return 2
        } catch let error as StateError {
            Console.error("storefront: \(error.description)")
            return 2
        } catch let error as AsciicastRecorder.OpenError {
            Console.error("storefront: \(error.description)")
            return 2
        } catch let error as Terminal.StartError {
            Console.error("storefront: \(error.description)")
            return 2
        } catch {
            Console.error("storefront: \(error)")
            return 1
        }
    }
}

enum Console {
    static func error(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}

/// Where the catalog, storefront and locale come from: options first, then the catalog's settings.
struct StoreContext {
    var catalog: Catalog
    var storefront: Storefront
    var locale: String

    static func resolve(_ options: CommandLineOptions, catalogPath: String? = nil) throws -> StoreContext {
        let remembered = options.statePath.flatMap(StateDirectory.rememberedCatalog)
        let path = catalogPath ?? options.catalogPath ?? remembered ?? "catalog.json"
        if let state = options.statePath, path == "catalog.json", !FileManager.default.fileExists(atPath: path) {
            throw UsageError(description: "\(state) does not say which catalog made it, and there is no catalog.json here: "
                + "pass the one it was made with, --catalog FILE (a storefront opened on it remembers it)")
        }
        let catalog = try CatalogLoader.load(path: path)
        // What loading worked around is said once, whatever the command.
        for warning in catalog.warnings { Console.error("storefront: warning: \(warning)") }
        guard let (storefront, locale) = catalog.place(storefront: options.storefront, locale: options.locale, settings: catalog.settings) else {
            let code = options.storefront ?? catalog.settings.storefront ?? "?"
            throw UsageError(description: "unknown storefront '\(code)' (this catalog sells in \(catalog.storefronts.map(\.code).joined(separator: ", ")))")
        }
        guard Validation.isLocale(locale) else {
            throw UsageError(description: "unknown locale '\(locale)' (use an identifier like en_US, ja_JP or zh_Hans)")
        }
        return StoreContext(catalog: catalog, storefront: storefront, locale: locale)
    }

    /// The store saved in the state directory (`--state`, else the catalog's default), opened beside any
    /// storefront on it, for the commands that read or serve it (export, notifications, serve), with the
    /// options that change its settings applied.
    static func openSaved(_ options: CommandLineOptions) async throws -> (context: StoreContext, store: LocalAppStore, directory: String) {
        let context = try resolve(options)
        let ledger = try ledger(options)
        let store = try LocalAppStore(catalog: context.catalog, stateDirectory: ledger == nil ? try SigningCommands.stateDirectory(options) : nil,
                                      ledger: ledger, storefront: context.storefront.code, locale: context.locale)
        // After the store: a database that cannot be used leaves no state directory behind.
        let directory: String
        do { directory = try SigningCommands.stateDirectory(options) } catch { await store.shutdown(); throw error }
        do { try await applyOverrides(options, to: store) } catch { await store.shutdown(); throw error }
        if ledger == nil, let catalog = options.catalogPath { StateDirectory.remember(catalog: catalog, in: directory) }
        return (context, store, directory)
    }

    /// The PostgreSQL ledger: `--ledger`, else `STOREFRONT_LEDGER` for the commands on the saved store
    /// (scenarios and walks take a shared ledger only when asked by name); nil: SQLite in the state directory.
    static func ledger(_ options: CommandLineOptions, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> LedgerLocation? {
        if options.ephemeral { return nil }
        let onSavedStore: Set<Command> = [.store, .verify, .cert, .export, .notifications, .serve]
        guard let url = options.ledgerURL ?? (onSavedStore.contains(options.command) ? environment["STOREFRONT_LEDGER"] : nil),
              !url.isEmpty else { return nil }
        guard let location = LedgerLocation(url: url) else {
            throw UsageError(description: "STOREFRONT_LEDGER needs a PostgreSQL URL (postgresql://user:password@host:port/database), got '\(url)'")
        }
        return location
    }

    /// Options that change a running store's settings: they win over the catalog's and the saved ones.
    static func applyOverrides(_ options: CommandLineOptions, to store: LocalAppStore) async throws {
        if let name = options.timeRate {
            guard let rate = TimeRate(name: name) else { throw UsageError(description: "unknown time rate '\(name)'") }
            await store.setTimeRate(rate)
        }
        if let environment = options.environment {
            if environment == .production, await store.catalog.app.appAppleID == nil {
                throw UsageError(description: "--environment Production needs the app's Apple ID: add app.appAppleId to the catalog (Apple's verifier requires it in Production)")
            }
            await store.update { $0.environment = environment }
        }
        if let url = options.notifyURL { await store.update { $0.notificationURL = url } }
    }
}
