import Foundation
import Testing
@testable import StorefrontApp

@Suite("Command line")
struct CommandLineTests {
    /// A merge once left two `--json` rows; the first silently won.
    @Test("Every option is declared once")
    func optionsAreUnique() {
        let names = CommandLineParser.options.flatMap(\.names)
        #expect(names.count == Set(names).count, "\(names)")
    }

    @Test("help and version are recognised anywhere")
    func helpAndVersion() throws {
        #expect(try CommandLineParser.parse(["--help"]) == .help(.store))
        #expect(try CommandLineParser.parse(["catalog", "-h"]) == .help(.catalog))
        #expect(try CommandLineParser.parse(["run", "--help"]) == .help(.run))
        #expect(try CommandLineParser.parse(["--version"]) == .version)
    }

    @Test("--help lists every command and option")
    func helpText() {
        let help = CommandLineParser.helpText
        for command in Command.allCases where command != .store { #expect(help.contains("storefront \(command.rawValue)")) }
        for option in CommandLineParser.options { for name in option.names { #expect(help.contains(name)) } }
    }

    @Test("an unknown option or command is a one-line error naming it", arguments: [
        (["--bogus"], "unknown option '--bogus'"),
        (["frobnicate"], "unknown command 'frobnicate'"),
        (["catalog", "--storefront"], "option '--storefront' needs a value (CODE)"),
        (["verify"], "verify needs a FILE"),
        (["--ephemeral", "--state", "x"], "--ephemeral and --state cannot be used together"),
        (["demo", "x.scenario", "--speed", "fast"], "--speed needs a number above 0, got 'fast'"),
        (["--notify", "example.com"], "--notify: \"example.com\" is not an http or https URL (for example http://127.0.0.1:8080/notifications)"),
        (["cert", "--notify", "http://127.0.0.1:1/n"], "--notify does nothing for cert (it is for the storefront, run, walk, demo, serve)"),
    ])
    func usageErrors(arguments: [String], message: String) {
        #expect(throws: UsageError(description: message)) { try CommandLineParser.parse(arguments) }
    }

    /// `catalog --time-rate warp` exited 0: the option was never looked at.
    @Test("An option the command does not use is an error naming the option and the commands it is for", arguments: [
        (["catalog", "--time-rate", "warp"], "--time-rate does nothing for catalog (it is for the storefront, run, walk, demo, serve)"),
        (["verify", "t.jws", "--json"], "--json does nothing for verify (it is for catalog, export, notifications, api-key, iap-key)"),
        (["--speed", "2"], "--speed does nothing for the storefront (it is for demo)"),
        (["run", "a.scenario", "--no-color"], "--no-color does nothing for run (it is for the storefront, walk, demo)"),
        (["cert", "--storefront", "JPN"], "--storefront does nothing for cert (it is for the storefront, catalog, run, walk, demo)"),
    ])
    func unusedOptions(arguments: [String], message: String) {
        #expect(throws: UsageError(description: message)) { try CommandLineParser.parse(arguments) }
    }

    @Test("Every command accepts the options its usage line shows")
    func usageLinesParse() throws {
        for command in Command.allCases {
            let words = command.usage.split(separator: " ").map(String.init).filter { $0.hasPrefix("[--") || $0.hasPrefix("--") }
            for option in words.map({ $0.trimmingCharacters(in: CharacterSet(charactersIn: "[]")) }) {
                guard let spec = CommandLineParser.options.first(where: { $0.names.contains(option) }) else { continue }
                #expect(spec.commands.contains(command), "\(command.rawValue)'s usage shows \(option)")
            }
        }
    }

    @Test("options take values inline or as the next argument")
    func optionValues() throws {
        guard case .run(let o) = try CommandLineParser.parse(["catalog", "x.storekit", "--storefront=jpn", "--locale", "ja_JP", "--json"]) else {
            Issue.record("expected run"); return
        }
        #expect(o.command == .catalog && o.files == ["x.storekit"] && o.storefront == "JPN" && o.locale == "ja_JP" && o.json)
    }

    @Test("the exit status is 2 for usage errors and 0 for help")
    func exitStatus() async {
        #expect(await StorefrontProgram.main(["--nope"]) == 2)
        #expect(await StorefrontProgram.main(["--version"]) == 0)
        #expect(await StorefrontProgram.main(["catalog", "/nonexistent.json"]) == 2)
    }
}

@Suite("Files given to verify and cert")
struct SigningFileTests {
    @Test("a missing file, a directory, a device and a file that is no certificate each get their own message", arguments: [
        ("/nonexistent.pem", "/nonexistent.pem: no such file"),
        ("/tmp", "/tmp: is a directory, not a file"),
        ("/dev/zero", "/dev/zero: is a character device, not a regular file (name a file, or give it on standard input)"),
        ("/etc/hostname", "/etc/hostname: not a PEM or DER certificate"),
    ])
    func fileMessages(path: String, message: String) {
        #expect(throws: UsageError(description: message)) { try SigningCommands.certificate(at: path) }
    }

    @Test("run --help lists every scenario step, from the same table the parser reads")
    func scenarioHelp() {
        let text = CommandLineParser.helpText(for: .run)
        for step in CommandTable.steps { #expect(text.contains("  " + step.usage), "\(step.keyword)") }
        #expect(text.contains("expect [not] entitled PRODUCT"))
        #expect(CommandLineParser.helpText(for: .store) == CommandLineParser.helpText, "the storefront's own is the whole help")
    }
}

/// Seen at the QA desk: `storefront --help` cut every usage line at 66 columns and ran
/// `notifications` into its summary (`notificatilist …`).
@Suite struct HelpTextTests {
    @Test func usageLinesAreWholeAndTheCommandColumnFitsTheLongestName() {
        let help = CommandLineParser.helpText
        for command in Command.allCases { #expect(help.contains("  " + command.usage + "\n"), "\(command.usage)") }
        #expect(help.contains("  notifications  list the App Store Server Notifications"))
        #expect(!help.contains("notificatilist"))
    }
}

extension HelpTextTests {
    /// Seen at the QA desk: `catalog --help` printed the whole global help; `walk --help` left out `--report`.
    @Test func eachSubcommandsHelpListsExactlyItsOptions() {
        for command in Command.allCases where command != .store {
            let help = CommandLineParser.helpText(for: command)
            #expect(help.hasPrefix("Usage: " + command.usage), "\(command)")
            for option in CommandLineParser.options {
                let listed = help.contains("\n  " + option.names.joined(separator: ", ") + (option.value.map { " " + $0 } ?? "") + "  ")
                #expect(listed == option.commands.contains(command), "\(option.names) for \(command)")
            }
        }
        #expect(CommandLineParser.helpText(for: .walk).contains("--report FILE"))
    }
}
