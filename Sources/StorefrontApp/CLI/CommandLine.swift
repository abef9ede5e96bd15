import StoreCore
import StoreEngine

/// The command line: one table of commands and options drives parsing and `--help`.
public struct CommandLineOptions: Sendable, Equatable {
    public var command: Command = .store
    public var files: [String] = []
    public var catalogPath: String?
    public var storefront: String?
    public var locale: String?
    public var statePath: String?
    public var ephemeral = false
    public var timeRate: String?
    public var noColor = false
    public var noMouse = false
    public var json = false
    public var rootCertificate: String?
    public var atSignedDate = false
    public var junitPath: String?
    public var reportPath: String?
    public var speed: Double = 1
    public var environment: StoreEnvironment?
    public var recordPath: String?
    /// `--record-scenario`: where the session is kept as a scenario.
    public var scenarioPath: String?
    public var port: UInt16?
    public var host: String?
    public var notifyURL: String?
    public var ledgerURL: String?
    public var issuerID: String?
    /// `--paywall GROUP`: open straight into the group's paywall (a demo's opening); `--paywall-style`: its control style.
    public var paywall: String?
    var paywallStyle: PaywallStyle?

    public init() {}
}

public enum Command: String, CaseIterable, Sendable {
    case store, catalog, verify, cert, export, notifications, run, walk, demo
    case serve
    case apiKey = "api-key"
    case iapKey = "iap-key"

    var usage: String {
        switch self {
        case .store: "storefront [--catalog FILE] [--paywall GROUP [--paywall-style STYLE]] [options]"
        case .catalog: "storefront catalog [FILE] [--storefront CODE] [--locale ID] [--json]"
        case .verify: "storefront verify FILE|- [--root PEM] [--at-signed-date]"
        case .cert: "storefront cert [--state DIR]"
        case .export: "storefront export [--state DIR] [--catalog FILE] [--json]"
        case .notifications: "storefront notifications [--state DIR] [--catalog FILE] [--json]"
        case .run: "storefront run FILE... [--junit FILE] [--report FILE]"
        case .walk: "storefront walk FILE"
        case .demo: "storefront demo FILE [--speed X]"
        case .serve: "storefront serve [--state DIR] [--catalog FILE] [--port N] [--host ADDR] [--notify URL]"
        case .apiKey: "storefront api-key [--state DIR] [--json]"
        case .iapKey: "storefront iap-key [KEY_ID FILE.p8 [--issuer UUID]] [--state DIR] [--json]"
        }
    }

    var summary: String {
        switch self {
        case .store: "open the storefront in the terminal (the default)"
        case .catalog: "load, validate and print a catalog or .storekit file"
        case .verify: "decode a signed JWS, print its payload and whether it verifies"
        case .cert: "print the local store's root certificate (PEM) for a backend to trust"
        case .export: "print the signed transactions, renewal info and AppTransaction (full JWS)"
        case .notifications: "list the App Store Server Notifications the store made, and their delivery"
        case .run: "run scenario files headless; exit non-zero on any failure"
        case .walk: "open the storefront with a scenario as a checklist to perform by hand"
        case .demo: "play a scenario in the storefront at human pace"
        case .serve: "serve the App Store Server API on the store's state, for a backend to call"
        case .apiKey: "print the App Store Server API key (key ID, issuer ID, .p8 path) for a backend to call serve with"
        case .iapKey: "register the team's In-App Purchase key (the .p8 a backend signs offers with), or list those registered"
        }
    }
}

public struct UsageError: Error, Equatable, CustomStringConvertible {
    public var description: String
}

struct OptionSpec: Sendable {
    var names: [String]
    var value: String?
    var help: String
    /// The commands that use the option; any other rejects it rather than silently ignore it.
    var commands: Set<Command> = Set(Command.allCases)
    var apply: @Sendable (inout CommandLineOptions, String) throws(UsageError) -> Void
}

public enum CommandLineParser {
    static let version = "0.1.0"

    static let options: [OptionSpec] = [
        OptionSpec(names: ["--catalog"], value: "FILE", help: "catalog.json or Xcode .storekit file (default: ./catalog.json)") { $0.catalogPath = $1 },
        OptionSpec(names: ["--storefront"], value: "CODE", help: "storefront, ISO 3166-1 alpha-3 (default: the catalog's, else USA)", commands: [.store, .catalog, .run, .walk, .demo]) { $0.storefront = $1.uppercased() },
        OptionSpec(names: ["--locale"], value: "ID", help: "locale for text and prices, e.g. ja_JP (default: the storefront's)", commands: [.store, .catalog, .run, .walk, .demo]) { $0.locale = $1 },
        OptionSpec(names: ["--state"], value: "DIR", help: "state directory (ledger, signing key); default under $XDG_STATE_HOME/storefront", commands: [.store, .verify, .cert, .export, .notifications, .run, .walk, .demo, .serve, .apiKey, .iapKey]) { o, v throws(UsageError) in
            guard !v.isEmpty else { throw UsageError(description: "--state needs a directory path, got an empty string") }
            o.statePath = v
        },
        OptionSpec(names: ["--environment"], value: "ENV", help: "environment in signed data: Sandbox (default), Production, Xcode, LocalTesting", commands: [.store, .export, .run, .walk, .demo, .serve]) { o, v throws(UsageError) in
            guard let environment = StoreEnvironment(rawValue: v) else {
                throw UsageError(description: "unknown environment '\(v)' (use one of: \(StoreEnvironment.names))")
            }
            o.environment = environment
        },
        OptionSpec(names: ["--notify"], value: "URL", help: "POST App Store Server Notifications V2 to URL (your backend)", commands: [.store, .run, .walk, .demo, .serve]) { o, v throws(UsageError) in
            if let problem = TestSettings.notificationURLProblem(v) { throw UsageError(description: "--notify: \(problem)") }
            o.notifyURL = v
        },
        OptionSpec(names: ["--ledger"], value: "URL", help: "keep the ledger on PostgreSQL, postgresql://… (a team's shared store; also STOREFRONT_LEDGER)", commands: [.store, .verify, .cert, .export, .notifications, .run, .walk, .demo, .serve]) { o, v throws(UsageError) in
            guard LedgerLocation(url: v) != nil else { throw UsageError(description: "--ledger needs a PostgreSQL URL (postgresql://user:password@host:port/database), got '\(v)'") }
            o.ledgerURL = v
        },
        OptionSpec(names: ["--ephemeral"], value: nil, help: "keep everything in memory; nothing is saved", commands: [.store, .verify, .cert]) { o, _ in o.ephemeral = true },
        OptionSpec(names: ["--time-rate"], value: "RATE", help: "store clock speed: an Xcode time rate name or integer, or a sandbox tier (sandboxMonthlyEveryFiveMinutes…)", commands: [.store, .run, .walk, .demo, .serve]) { $0.timeRate = $1 },
        OptionSpec(names: ["--no-color"], value: nil, help: "monochrome interface (also NO_COLOR or TERM=dumb)", commands: [.store, .walk, .demo]) { o, _ in o.noColor = true },
        OptionSpec(names: ["--no-mouse"], value: nil, help: "leave the mouse to the terminal (select and copy text)", commands: [.store, .walk, .demo]) { o, _ in o.noMouse = true },
        OptionSpec(names: ["--record"], value: "FILE", help: "record the screen as an asciicast v2 file (FILE.cast) any asciinema player plays", commands: [.store, .walk, .demo]) { $0.recordPath = $1 },
        OptionSpec(names: ["--record-scenario"], value: "FILE", help: "keep the session as a scenario (on a fresh store) that storefront run replays; W saves it so far", commands: [.store]) { o, v throws(UsageError) in
            guard !v.isEmpty else { throw UsageError(description: "--record-scenario needs a file path, got an empty string") }
            o.scenarioPath = v
        },
        OptionSpec(names: ["--paywall"], value: "GROUP", help: "open on the paywall of a subscription group (its ID or reference name)", commands: [.store]) { $0.paywall = $1 },
        OptionSpec(names: ["--paywall-style"], value: "STYLE", help: "the paywall's control style: \(PaywallStyle.allCases.map(\.rawValue).joined(separator: ", ")) (s switches it)", commands: [.store]) { o, v throws(UsageError) in
            guard let style = PaywallStyle(rawValue: v) else {
                throw UsageError(description: "unknown paywall style '\(v)' (use one of: \(PaywallStyle.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            o.paywallStyle = style
        },
        OptionSpec(names: ["--port"], value: "N", help: "serve: the port (default 8765; 0 picks a free one)", commands: [.serve]) { o, v throws(UsageError) in
            guard let port = UInt16(v) else { throw UsageError(description: "--port needs a port number from 0 to 65535, got '\(v)'") }
            o.port = port
        },
        OptionSpec(names: ["--host"], value: "ADDR", help: "serve: the address to listen on (default 127.0.0.1, loopback only)", commands: [.serve]) { $0.host = $1 },
        OptionSpec(names: ["--json"], value: nil, help: "catalog, export, notifications, api-key, iap-key: print JSON", commands: [.catalog, .export, .notifications, .apiKey, .iapKey]) { o, _ in o.json = true },
        OptionSpec(names: ["--issuer"], value: "UUID", help: "iap-key: the issuer ID the key's JWS name (App Store Connect's Keys page)", commands: [.iapKey]) { o, v throws(UsageError) in
            guard v.utf8.count == 36, v.split(separator: "-").map(\.count) == [8, 4, 4, 4, 12], v.allSatisfy({ $0.isHexDigit || $0 == "-" }) else { throw UsageError(description: "--issuer needs the issuer ID, a UUID, got '\(v)'") }
            o.issuerID = v
        },
        OptionSpec(names: ["--root"], value: "PEM", help: "verify: trusted root certificate (default: the local store's)", commands: [.verify]) { $0.rootCertificate = $1 },
        OptionSpec(names: ["--at-signed-date"], value: nil, help: "verify: check certificates at the payload's signedDate", commands: [.verify]) { o, _ in o.atSignedDate = true },
        OptionSpec(names: ["--junit"], value: "FILE", help: "run: write a JUnit XML report", commands: [.run]) { $0.junitPath = $1 },
        OptionSpec(names: ["--report"], value: "FILE", help: "run, walk: write a Markdown report", commands: [.run, .walk, .demo]) { $0.reportPath = $1 },
        OptionSpec(names: ["--speed"], value: "X", help: "demo: playback speed multiplier (default 1)", commands: [.demo]) { o, v throws(UsageError) in
            guard let speed = Double(v), speed > 0, speed <= 100 else { throw UsageError(description: "--speed needs a number above 0, got '\(v)'") }
            o.speed = speed
        },
    ]

    public static var helpText: String {
        var lines = ["storefront \(version): StoreKit 2 purchase flows in the terminal", "", "Usage:"]
        lines += Command.allCases.map { "  " + $0.usage }  // whole: a usage line is never cut
        lines += ["", "Commands:"]
        lines += columns(Command.allCases.map { ($0 == .store ? "(none)" : $0.rawValue, $0.summary) })
        lines += ["", "Options:"]
        lines += columns(options.map { ($0.names.joined(separator: ", ") + ($0.value.map { " " + $0 } ?? ""), $0.help) }
                         + [("-h, --help", "show this help"), ("--version", "print the version")])
        lines += ["", "In the storefront, press ? for the keys of each screen; 'storefront run --help' lists the scenario steps."]
        return lines.joined(separator: "\n")
    }

    /// Two columns, the first as wide as its longest entry (`padding(toLength:)` cut what was longer).
    static func columns(_ rows: [(String, String)]) -> [String] {
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { "  " + $0.0 + String(repeating: " ", count: width - $0.0.count + 2) + $0.1 }
    }

    /// Help about one command: its usage, what it does, exactly the options it takes, and for the
    /// scenario commands every step of the language.
    static func helpText(for command: Command) -> String {
        guard command != .store else { return helpText }
        let own = options.filter { $0.commands.contains(command) }
        var lines = ["Usage: " + command.usage, "", command.summary, "", "Options:"]
        lines += columns(own.map { ($0.names.joined(separator: ", ") + ($0.value.map { " " + $0 } ?? ""), $0.help) }
                         + [("-h, --help", "show this help")])
        if [.run, .walk, .demo].contains(command) {
            lines += ["", "Scenario steps, one a line (# starts a comment):"] + ScenarioParser.reference.map { "  " + $0 }
        }
        return lines.joined(separator: "\n")
    }

    /// `help`: the command it was asked about (`storefront run --help`), or `.store` for the program.
    public enum Outcome: Equatable { case run(CommandLineOptions), help(Command), version }

    public static func parse(_ arguments: [String]) throws(UsageError) -> Outcome {
        var result = CommandLineOptions()
        var given: [(name: String, spec: OptionSpec)] = []
        var rest = arguments[...]
        var sawCommand = false
        while let argument = rest.popFirst() {
            if argument == "-h" || argument == "--help" || argument == "help" && !sawCommand { return .help(result.command) }
            if argument == "--version" { return .version }
            if argument.hasPrefix("-") && argument != "-" {
                let (name, inline) = split(argument)
                guard let spec = options.first(where: { $0.names.contains(name) }) else {
                    throw UsageError(description: "unknown option '\(name)'")
                }
                given.append((name, spec))
                if spec.value != nil {
                    guard let value = inline ?? rest.popFirst() else {
                        throw UsageError(description: "option '\(name)' needs a value (\(spec.value!))")
                    }
                    try spec.apply(&result, value)
                } else {
                    guard inline == nil else { throw UsageError(description: "option '\(name)' takes no value") }
                    try spec.apply(&result, "")
                }
            } else if !sawCommand && result.files.isEmpty, let command = Command(rawValue: argument), command != .store {
                result.command = command
                sawCommand = true
            } else if !sawCommand && result.files.isEmpty && Command(rawValue: argument) == nil && !argument.contains(".") && !argument.contains("/") {
                throw UsageError(description: "unknown command '\(argument)'")
            } else {
                result.files.append(argument)
            }
        }
        try check(result)
        for (name, spec) in given where !spec.commands.contains(result.command) {
            let users = Command.allCases.filter(spec.commands.contains).map { $0 == .store ? "the storefront" : $0.rawValue }
            throw UsageError(description: "\(name) does nothing for \(result.command == .store ? "the storefront" : result.command.rawValue) (it is for \(users.joined(separator: ", ")))")
        }
        return .run(result)
    }

    private static func split(_ argument: String) -> (String, String?) {
        guard let eq = argument.firstIndex(of: "=") else { return (argument, nil) }
        return (String(argument[..<eq]), String(argument[argument.index(after: eq)...]))
    }

    private static func check(_ o: CommandLineOptions) throws(UsageError) {
        switch o.command {
        case .store:
            if let file = o.files.first { throw UsageError(description: "unexpected argument '\(file)' (use --catalog FILE to open a catalog)") }
        case .catalog, .cert, .export, .notifications, .apiKey, .serve:
            if o.files.count > (o.command == .catalog ? 1 : 0) { throw UsageError(description: "unexpected argument '\(o.files.last!)'") }
        case .iapKey:
            if o.files.count == 1 || o.files.count > 2 { throw UsageError(description: "iap-key takes a KEY_ID and its FILE.p8, or nothing to list the keys") }
        case .verify, .walk, .demo:
            if o.files.isEmpty { throw UsageError(description: "\(o.command.rawValue) needs a FILE") }
            if o.files.count > 1 { throw UsageError(description: "unexpected argument '\(o.files[1])'") }
        case .run:
            if o.files.isEmpty { throw UsageError(description: "run needs at least one scenario FILE") }
        }
        if o.ephemeral && o.statePath != nil { throw UsageError(description: "--ephemeral and --state cannot be used together") }
        if o.ephemeral && o.ledgerURL != nil { throw UsageError(description: "--ephemeral and --ledger cannot be used together") }
    }
}
