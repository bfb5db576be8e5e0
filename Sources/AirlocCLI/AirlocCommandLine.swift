import Airloc
import Arguments
import Configuration
import Foundation
import ManualPages
import Platform
import Settings
import TerminalUI
import Web

/// What every command gets: the environment, the parsed arguments and lazy access to
/// configuration and console.
struct CommandContext: Sendable {
    var arguments: ParsedArguments
    var environment: [String: String]
    var configuration: Settings
    var console: Console
    /// Set only for `doctor`, which reports a broken configuration instead of stopping.
    var configurationError: CLIError? = nil
    /// The place data this invocation loaded (``loadGazetteer()``).
    let placeData = LoadedPlaceData()
}

/// One subcommand: its interface and what it does.
struct Command: Sendable {
    var spec: CommandSpec
    var run: @Sendable (CommandContext) async throws(CLIError) -> ExitCode
}

/// An action of one of airloc's commands, run with its context.
typealias CommandAction = ActionHandler<CommandContext>

/// The `airloc` command line: dispatches to subcommands and turns every failure into a
/// message on stderr and a sysexits code.
public enum AirlocCommandLine {
    static let commands: [Command] = [
        NowCommand.command, AirCommand.command, LocateCommand.command, AuthCommand.command, DoctorCommand.command,
        SearchCommand.command, PickCommand.command, UseCommand.command, PopularCommand.command, ReverseCommand.command,
        PostalCommand.command,
        DataCommand.command, LogCommand.command, SenseCommand.command, CollectCommand.command, ServeCommand.command,
    ]

    static var overview: String { ManualPage.overview(commands.map(\.spec)) }

    /// Runs one invocation and returns its exit status (testable without exiting).
    public static func run(arguments: [String], environment: [String: String]) async -> Int32 {
        let plain = Console(environment: environment, color: .never)
        guard let first = arguments.first else {
            plain.err(overview)
            return ExitCode.usage.rawValue
        }
        switch first {
        case "-h", "--help", "help":
            if arguments.count > 1, let command = commands.first(where: { $0.spec.name == arguments[1] }) {
                plain.out(command.spec.helpText)
            } else {
                plain.out(overview)
            }
            return 0
        case "--version", "version":
            plain.out("airloc \(AirlocVersion.string)\n")
            return 0
        case "__generate":
            // For packaging (docs/packaging.md): the man pages and completions, from the
            // same declarations the parser uses. Not listed: not for people.
            guard let text = ManualPage.generated(arguments.dropFirst().first, commands: commands.map(\.spec)) else {
                plain.err("Error: expected __generate man|conf-man|bash|zsh|fish\n")
                return ExitCode.usage.rawValue
            }
            StandardStream.write(text, to: StandardStream.output)
            return 0
        default:
            break
        }
        guard let command = commands.first(where: { $0.spec.name == first }) else {
            let names = commands.map(\.spec.name)
            let what = first.hasPrefix("-") ? "unknown option '\(first)'" : "unknown command '\(first)'"
            let hint = suggestion(for: first.trimmingCharacters(in: CharacterSet(charactersIn: "-")), among: names)
            plain.err("Error: \(what)" + (hint.map { " (did you mean '\($0)'?)" } ?? "") + "\n")
            plain.err("Usage: airloc <command> [options]\nSee 'airloc --help'.\n")
            return ExitCode.usage.rawValue
        }
        do throws(CLIError) {
            let parsed = try ArgumentParser.parse(Array(arguments.dropFirst()), spec: command.spec)
            if parsed.has(.help) {
                // An action's help when one is named; the command's own otherwise (not the default action's).
                let action = parsed.positionals.isEmpty ? nil : command.spec.action(for: parsed)
                plain.out(action.map(command.spec.helpText(for:)) ?? command.spec.helpText)
                return 0
            }
            try command.spec.checkOptions(parsed)
            try command.spec.checkValues(parsed)
            var configurationError: CLIError?
            let configuration: Settings
            do throws(ConfigurationError) {
                configuration = try ConfigurationFiles.load(
                    environment: environment, explicitPath: parsed.value(.config))
            } catch {
                guard command.spec.name == DoctorCommand.spec.name else { throw CLIError.config(error.message) }
                // doctor reports it as its finding (and checks nothing else).
                configurationError = .config(error.message)
                configuration = ConfigurationFiles.defaults(environment: environment)
            }
            let console = Console(environment: environment, color: configuration.color)
            let context = CommandContext(
                arguments: parsed, environment: environment, configuration: configuration, console: console,
                configurationError: configurationError)
            let code = try await command.run(context)
            // A lookup met a reference outside its section: whatever was printed came from a
            // damaged file, and the user must hear so (never a crash, never silence).
            if let damage = context.placeData.damaged {
                throw CLIError(
                    code: .dataError,
                    message: "place data \(damage.file) is damaged (a reference points "
                        + "outside its section); `airloc data info --verify` shows where; rebuild it with "
                        + "`airloc data import` or reinstall airloc")
            }
            return code.rawValue
        } catch {
            // The usage of the action named (`log prune`), not the whole command's.
            let named = arguments.dropFirst().first { !$0.hasPrefix("-") }
            let action = named.flatMap { name in command.spec.actions.first { $0.name == name } }
            report(error, console: plain, commandSpec: command.spec, action: action)
            // With --json (seen even when the arguments did not parse) a script still
            // gets one document on stdout: the error in it.
            if arguments.contains("--json"),
                let document = FailureJSON.document(
                    code: Int(error.code.rawValue), message: error.message, command: first)
            {
                plain.out(document)
            }
            return error.code.rawValue
        }
    }

    static func report(_ error: CLIError, console: Console, commandSpec: CommandSpec, action: ActionSpec? = nil) {
        console.err("Error: \(error.message)\n")
        guard error.usageOf != nil else { return }
        let name = commandSpec.name + (action.map { " \($0.name)" } ?? "")
        let usage = action.map(commandSpec.usage(of:)) ?? commandSpec.usageLine
        console.err("Usage: airloc \(name) \(usage)".trimmingTrailingSpaces() + "\nSee 'airloc \(name) --help'.\n")
    }
}
